"""Which entry of edition A is which entry of edition B: alignment across updates and renumberings.

Each rule and subrule of the older edition is matched to its counterpart in the newer one, or
to nothing. Evidence, strongest first:

1. a keyword rule's name ("Deathtouch" at 502.63 in February 2009 is 702.2 from July 2009);
2. the same number with similar text;
3. similar text anywhere else (rapidfuzz), helped by structure: a subrule is matched first among
   the subrules of its rule's counterpart, so "Multiple instances of flying are redundant." is
   never taken for the deathtouch one, and 702.2b/702.2c that swapped places are still paired.

Texts are compared with their cross-reference numbers blanked out, so a rule whose only change
is a renumbered reference is "changed" with `refs_only` set, not a content change. After the
one-to-one matching, an unmatched entry whose text lives on inside a matched one is recorded as
split from it (old side) or merged into it (new side).

`diff` is `crlookup diff`: the changes between two editions of a library, each with what a
reader sees of it (the changed words; the text of an entry added or removed).
"""

from __future__ import annotations

import difflib
import itertools
import re
from dataclasses import dataclass
from typing import NamedTuple

from crlookup import numbers
from crlookup.errors import BadInput
from crlookup.i18n import _
from crlookup.model import Rule, fold
from crlookup.numbers import rule_of

KINDS = ("unchanged", "changed", "moved", "split", "merged", "removed", "added")
_REF_NUMBER = re.compile(r"(?<![\w.])\d{3}(?:\.\d+[a-z]*)?(?![\w])")
_QUOTES = {"’": "'", "‘": "'", "“": '"', "”": '"', "–": "-", "—": "-"}
SAME_NUMBER = 60.0  # similarity for "the same rule, reworded" at the same number
ELSEWHERE = 75.0  # similarity for "the same rule, moved"
LIVES_ON = 90.0
SAME_NUMBER_BONUS = 15.0  # how much of a text must survive inside another for split/merged


class Match(NamedTuple):
    kind: str
    old: str | None  # number in the older edition
    new: str | None  # number in the newer edition
    similarity: float  # 0-100, texts compared without reference numbers
    words_added: int
    words_removed: int
    refs_only: bool  # the text differs only in the numbers of its cross-references
    typography: bool = False  # the text differs only in quotes, dashes, case or spacing


def plain_marks(text: str) -> str:
    """Typographic quotes and dashes as plain ones; each is one other non-space character.

    (str.replace per mark: `str.translate` with a table is several times slower on these
    mostly ASCII texts, and the alignment at build time folds some 90,000 of them.)
    """
    for mark, plain in _QUOTES.items():
        if mark in text:
            text = text.replace(mark, plain)
    return text


def comparable(rule: Rule) -> str:
    """The text as compared: folded, typographic marks plain, reference numbers blanked."""
    text = (
        " ".join([rule.title, rule.text, *rule.examples]) if rule.title != rule.text else rule.text
    )
    return _REF_NUMBER.sub("#", fold(plain_marks(text)))


def _plain(rule: Rule) -> str:
    """Text and examples with typography folded (quotes, dashes, case, spacing)."""
    return fold(plain_marks(full_text(rule)))


def word_diff(old: str, new: str) -> list[tuple[str, str]]:
    """(op, text) runs: "=" kept, "-" removed, "+" inserted, word by word."""
    a, b = old.split(), new.split()
    # words are compared with typography folded ("owner's" is "owner’s"); shown as written
    # (each mark folds to one other non-space character, so the words stay where they were)
    plain_a = plain_marks(old).split()
    plain_b = plain_marks(new).split()
    out: list[tuple[str, str]] = []
    matcher = difflib.SequenceMatcher(None, plain_a, plain_b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            out.append(("=", " ".join(b[j1:j2])))
        else:
            if i2 > i1:
                out.append(("-", " ".join(a[i1:i2])))
            if j2 > j1:
                out.append(("+", " ".join(b[j1:j2])))
    return out


def _counts(old: Rule | None, new: Rule | None) -> tuple[int, int]:
    if old is None or new is None:
        return (len((new or old).text.split()), 0) if new else (0, len(old.text.split()))
    ops = word_diff(full_text(old), full_text(new))
    added = sum(len(t.split()) for op, t in ops if op == "+")
    removed = sum(len(t.split()) for op, t in ops if op == "-")
    return added, removed


def full_text(rule: Rule) -> str:
    """A rule's text and its examples, as compared and diffed."""
    return "\n".join([rule.text, *rule.examples])


def align(old: list[Rule], new: list[Rule], keywords: set[str] | None = None) -> list[Match]:
    """Match the rules and subrules of `old` to those of `new` (both in document order)."""
    from rapidfuzz import fuzz

    olds = _firsts(r for r in old if r.kind in ("rule", "subrule"))
    news = _firsts(r for r in new if r.kind in ("rule", "subrule"))
    old_by = {r.number: r for r in olds}
    new_by = {r.number: r for r in news}
    # texts as compared, made when first needed: most entries are the same from one edition
    # to the next, and are paired before any text is compared
    text_a = _Texts(old_by, comparable)
    text_b = _Texts(new_by, comparable)
    keywords = keywords if keywords is not None else _keyword_names(olds) | _keyword_names(news)
    pairs: dict[str, str] = {}  # old number -> new number
    taken: set[str] = set()

    def pair(a: str, b: str) -> None:
        pairs[a] = b
        taken.add(b)

    def core(r: Rule) -> str:
        return _REF_NUMBER.sub("#", fold(plain_marks(r.text)))

    core_a = _Texts(old_by, core)
    core_b = _Texts(new_by, core)
    # 0. the same entry, word for word, at the same number
    for r in olds:
        b = new_by.get(r.number)
        if b is not None and b.kind == r.kind and _same(r, b):
            pair(r.number, r.number)

    def sim(a: str, b: str) -> float:
        # an example added or dropped does not make it another rule: the rule text decides too
        return max(fuzz.ratio(text_a[a], text_b[b]), fuzz.ratio(core_a[a], core_b[b]))

    # 1. keyword rules by name, then 2. rules at the same number
    titled = {fold(r.title): r.number for r in news if r.kind == "rule" and r.title}
    for r in olds:
        if r.kind == "rule" and r.title and fold(r.title) in keywords:
            b = titled.get(fold(r.title))
            if b and b not in taken:
                pair(r.number, b)
    for r in olds:
        if r.number in pairs or r.kind != "rule":
            continue
        b = new_by.get(r.number)
        if (
            b
            and b.kind == "rule"
            and r.number not in taken
            and sim(r.number, r.number) >= SAME_NUMBER
        ):
            pair(r.number, r.number)
    # 3. the remaining rules by text, best pairs first
    _best_pairs(
        [r.number for r in olds if r.kind == "rule" and r.number not in pairs],
        [r.number for r in news if r.kind == "rule" and r.number not in taken],
        text_a,
        text_b,
        ELSEWHERE,
        pair,
    )
    # subrules: first within the counterpart of their rule, then anywhere (not across keywords)
    children_a = _children(olds)
    children_b = _children(news)
    for a_rule, b_rule in list(pairs.items()):
        subs_a = [n for n in children_a.get(a_rule, []) if n not in pairs]
        subs_b = [n for n in children_b.get(b_rule, []) if n not in taken]
        same = [n for n in subs_a if n in subs_b and sim(n, n) >= SAME_NUMBER]
        for n in same:
            pair(n, n)
        _best_pairs(
            [n for n in subs_a if n not in pairs],
            [n for n in subs_b if n not in taken],
            text_a,
            text_b,
            SAME_NUMBER,
            pair,
        )
    rest_a = [r.number for r in olds if r.kind == "subrule" and r.number not in pairs]
    rest_b = [r.number for r in news if r.kind == "subrule" and r.number not in taken]
    for n in [n for n in rest_a if n in new_by and n in rest_b and sim(n, n) >= SAME_NUMBER]:
        if n not in taken and _same_keywords(text_a[n], text_b[n], keywords):
            pair(n, n)
    _best_pairs(
        [n for n in rest_a if n not in pairs],
        [n for n in rest_b if n not in taken],
        text_a,
        text_b,
        ELSEWHERE,
        pair,
        allowed=lambda a, b: _same_keywords(text_a[a], text_b[b], keywords),
    )

    # a subrule that became a rule, or a rule that became a subrule: near-identical text only
    for old_kind, new_kind in (("subrule", "rule"), ("rule", "subrule")):
        _best_pairs(
            [r.number for r in olds if r.kind == old_kind and r.number not in pairs],
            [r.number for r in news if r.kind == new_kind and r.number not in taken],
            text_a,
            text_b,
            90.0,
            pair,
            allowed=lambda a, b: _same_keywords(text_a[a], text_b[b], keywords),
        )
    # split / merged: an unmatched entry whose text lives on inside a matched one nearby
    # (under the counterpart of its rule, or beside its siblings' counterparts)
    counterpart_of = {b: a for a, b in pairs.items()}
    lives_in = _lives_on(
        [n for n in old_by if n not in pairs], text_a, text_b, pairs, children_a, children_b
    )
    unmatched_b = [n for n in new_by if n not in taken]
    into = _lives_on(unmatched_b, text_b, text_a, counterpart_of, children_b, children_a)
    matches: list[Match] = []
    for r in olds:
        a = r.number
        if a in pairs:
            b = pairs[a]
            same_text = _same(r, new_by[b])
            s = 100.0 if same_text else sim(a, b)
            kind = "unchanged" if a == b and same_text else "changed" if a == b else "moved"
            typography = not same_text and _plain(r) == _plain(new_by[b])
            refs_only = not same_text and not typography and text_a[a] == text_b[b]
            added, removed = (0, 0) if same_text or typography else _counts(r, new_by[b])
            matches.append(Match(kind, a, b, round(s, 1), added, removed, refs_only, typography))
        elif a in lives_in:
            b = lives_in[a]
            matches.append(Match("merged", a, b, 100.0, *_counts(r, new_by[b]), False))
        else:
            matches.append(Match("removed", a, None, 0.0, 0, len(r.text.split()), False))
    for b in unmatched_b:
        if b in into:
            a = into[b]
            matches.append(Match("split", a, b, 100.0, len(new_by[b].text.split()), 0, False))
        else:
            matches.append(Match("added", None, b, 0.0, len(new_by[b].text.split()), 0, False))
    return matches


class _Texts(dict):
    """number -> a text made from the entry of that number, made when first asked for."""

    def __init__(self, entries: dict[str, Rule], make):
        super().__init__()
        self.entries = entries
        self.make = make

    def __missing__(self, number: str) -> str:
        text = self[number] = self.make(self.entries[number])
        return text


def _same(a: Rule, b: Rule) -> bool:
    return a.text == b.text and a.examples == b.examples and a.title == b.title


def _firsts(rules) -> list[Rule]:
    """The entries with the first of each number: the second of a number Wizards printed twice
    is not aligned (its twin stands for the number)."""
    first: dict[str, Rule] = {}
    for r in rules:
        first.setdefault(r.number, r)
    return list(first.values())


def _best_pairs(left, right, text_a, text_b, cutoff, pair, allowed=None) -> None:
    """Pair texts greedily, most similar first, above `cutoff` (one-to-one)."""
    if not left or not right:
        return
    # ratio >= cutoff needs lengths within a factor of cutoff / (200 - cutoff) of each other:
    # compare each text only with the window of texts of a possible length
    from bisect import bisect_left, bisect_right

    from rapidfuzz import fuzz, process

    by_length = sorted(range(len(right)), key=lambda j: len(text_b[right[j]]))
    lengths = [len(text_b[right[j]]) for j in by_length]
    factor = max(cutoff, 1.0) / (200.0 - max(cutoff, 1.0))

    def window(n: str) -> list[int]:
        la = len(text_a[n])
        return by_length[bisect_left(lengths, la * factor) : bisect_right(lengths, la / factor)]

    # Keeping its number counts for SAME_NUMBER_BONUS points: when a rule is rewritten, the
    # rewrite at its own number beats a neighbour that happens to share more words.
    position = {n: j for j, n in enumerate(right)}
    candidates = []
    for i, n in enumerate(left):
        near = window(n)
        found = process.extract(
            text_a[n],
            [text_b[right[j]] for j in near],
            scorer=fuzz.ratio,
            score_cutoff=cutoff,
            limit=5,
        )
        candidates += [(score, i, near[k]) for _, score, k in found if right[near[k]] != n]
    for i, n in enumerate(left):
        if n in position:
            score = fuzz.ratio(text_a[n], text_b[n]) + SAME_NUMBER_BONUS
            if score >= cutoff:
                candidates.append((score, i, position[n]))
    used_l: set[int] = set()
    used_r: set[int] = set()
    for _score, i, j in sorted(candidates, key=lambda c: (-c[0], c[1], c[2])):
        if i in used_l or j in used_r:
            continue
        if allowed and not allowed(left[i], right[j]):
            continue
        used_l.add(i)
        used_r.add(j)
        pair(left[i], right[j])


def _lives_on(numbers, texts, other_texts, counterparts, own_children, other_children) -> dict:
    """For each entry, the nearby counterpart entry that contains its text, if any: "nearby" is
    the counterpart of its rule or of its siblings, and their subrules."""
    from rapidfuzz import fuzz

    found = {}
    for n in numbers:
        if len(texts[n]) <= 20:
            continue
        parent = rule_of(n)
        near = set()
        for m in (parent, *own_children.get(parent, ())):
            b = counterparts.get(m)
            if b:
                near.add(b)
                near.update(other_children.get(rule_of(b), ()))
        best = max(
            (
                (fuzz.partial_ratio(texts[n], other_texts[b], score_cutoff=LIVES_ON), b)
                for b in near
                if b in other_texts.entries and len(other_texts[b]) > len(texts[n])
            ),
            default=(0.0, None),
        )
        if best[0] >= LIVES_ON:
            found[n] = best[1]
    return found


def _children(rules: list[Rule]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for r in rules:
        if r.kind == "subrule":
            out.setdefault(rule_of(r.number), []).append(r.number)
    return out


def _keyword_names(rules: list[Rule]) -> set[str]:
    from crlookup.read import KEYWORD_SECTIONS

    return {
        fold(r.title)
        for r in rules
        if r.kind == "rule" and r.title and r.number.split(".")[0] in KEYWORD_SECTIONS
    }


def _same_keywords(a: str, b: str, keywords: set[str]) -> bool:
    """Texts that differ in a keyword's name ("instances of flying" / "of deathtouch") are not
    the same rule, however alike the rest."""
    words_a, words_b = set(a.split()), set(b.split())
    differ = words_a ^ words_b
    return not any(k in differ for k in keywords if " " not in k)


# --------------------------------------------------------------------------- editions


def main_line(editions, lang: str) -> list:
    """A language's main line: its complete editions in the order they took effect, where of
    several complete editions of one date the official text is the one on the line."""
    line: list = []
    complete = [e for e in editions if e.lang == lang and not e.partial]
    for e in sorted(complete, key=lambda e: (e.date, not e.official, e.id)):
        if not line or line[-1].date != e.date:
            line.append(e)
    return line


def chain(editions) -> list[tuple[str, str]]:
    """The pairs of editions a library aligns when it is built, for `history`.

    Per language, each edition of the main line (`main_line`) with the next. Every other
    edition (partial ones, and conversions of an edition the line already has) hangs off the
    line: aligned with the line's edition of its date or the one before it (after it, if it
    is older than all of them).
    """
    pairs = []
    for lang in sorted({e.lang for e in editions}):
        line = main_line(editions, lang)
        pairs += [(a.id, b.id) for a, b in itertools.pairwise(line)]
        on_line = {e.id for e in line}
        for e in sorted((e for e in editions if e.lang == lang), key=lambda e: (e.date, e.partial)):
            if e.id in on_line or not line:
                continue
            before = [c for c in line if c.date <= e.date]
            pairs.append((before[-1].id, e.id) if before else (e.id, line[0].id))
    return pairs


def align_editions(lib, old: str, new: str, entries=None) -> list[Match]:
    """Align two editions of the library (any two of the same language); `entries` maps an
    edition to its entries, for those already read."""
    entries = entries if entries is not None else {}
    for e in (old, new):
        if e not in entries:
            entries[e] = list(lib.entries(e))
    return align(entries[old], entries[new])


def stored(lib, old: str, new: str) -> list[Match] | None:
    """The alignment the build stored for two editions of `chain`, or None if it stored none.

    Only what changed is stored: an entry of `old` that no stored match names is unchanged,
    at the same number, in `new`.
    """
    if (
        lib.db.execute(
            "SELECT 1 FROM chain WHERE old_edition = ? AND new_edition = ?", (old, new)
        ).fetchone()
        is None
    ):
        return None
    rows = lib.db.execute(
        "SELECT kind, old, new, similarity, words_added, words_removed, refs_only, typography "
        "FROM aligned WHERE old_edition = ? AND new_edition = ?",
        (old, new),
    ).fetchall()
    by_old: dict[str, list[Match]] = {}
    out: list[Match] = []
    for r in rows:
        m = Match(*r[:6], bool(r[6]), bool(r[7]))
        if m.old is None:
            out.append(m)
        else:
            by_old.setdefault(m.old, []).append(m)
    kept = []
    for (number,) in lib.db.execute(
        "SELECT number FROM entry WHERE edition = ? AND twin = 0 AND kind IN ('rule', 'subrule') "
        "ORDER BY seq",
        (old,),
    ):
        kept += by_old.pop(number, None) or [Match("unchanged", number, number, 100.0, 0, 0, False)]
    return kept + [m for ms in by_old.values() for m in ms] + out


def changes(old: str, new: str, matches: list[Match]) -> list[tuple]:
    """The rows of an alignment the library stores: all but the unchanged."""
    return [(old, new, *m) for m in matches if not (m.kind == "unchanged" and m.old == m.new)]


def align_pairs(db_path: str, pairs: list[tuple[str, str]]) -> list[tuple]:
    """The stored rows of the alignments of `pairs`, computed from the library database at
    `db_path` (read-only): what a worker process of the build runs."""
    import sqlite3

    from crlookup.database import connect
    from crlookup.read import Library

    db = connect(db_path)
    db.row_factory = sqlite3.Row
    lib = Library("", db)
    rows = []
    entries: dict[str, list[Rule]] = {}
    for old, new in pairs:
        # pairs run along the line: the newer edition of one is the older of the next
        entries = {e: rules for e, rules in entries.items() if e in (old, new)}
        rows += changes(old, new, align_editions(lib, old, new, entries))
    db.close()
    return rows


def plan(db_path: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The alignments stage of a build, first step: the pairs of `chain` the library at
    `db_path` does not have yet (to align, with `align_pairs`), and the stored pairs `chain`
    no longer has (to drop)."""
    import sqlite3

    from crlookup.database import connect
    from crlookup.read import Library

    db = connect(db_path)
    db.row_factory = sqlite3.Row
    lib = Library("", db)
    wanted = chain(lib.editions())
    have = set(lib.alignment_pairs())
    db.close()
    return [p for p in wanted if p not in have], [p for p in have if p not in set(wanted)]


def shares(pairs: list, workers: int) -> list[list]:
    """The pairs in `workers` runs of consecutive pairs (each run reads its editions once)."""
    size = max(1, -(-len(pairs) // max(workers, 1)))
    return [pairs[i : i + size] for i in range(0, len(pairs), size)]


def save(db_path: str, aligned: list[tuple[str, str]], stale: list[tuple[str, str]], rows) -> None:
    """The alignments stage, last step: store the new pairs' rows, drop the stale pairs."""
    import sqlite3

    db = sqlite3.connect(db_path)
    with db:
        for old, new in stale:
            db.execute("DELETE FROM chain WHERE old_edition = ? AND new_edition = ?", (old, new))
            db.execute("DELETE FROM aligned WHERE old_edition = ? AND new_edition = ?", (old, new))
        db.executemany("INSERT INTO chain VALUES (?, ?)", aligned)
        db.executemany("INSERT INTO aligned VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
    db.close()


def summary(matches: list[Match]) -> dict:
    """Counts per kind of change, overall and per section (of the newer number, else older)."""
    total = dict.fromkeys(KINDS, 0)
    sections: dict[str, dict[str, int]] = {}
    for m in matches:
        total[m.kind] += 1
        section = (m.new or m.old).split(".")[0]
        sections.setdefault(section, dict.fromkeys(KINDS, 0))[m.kind] += 1
    typography = sum(1 for m in matches if m.typography)
    return {
        "total": total,
        "typography_only": typography,
        "sections": dict(sorted(sections.items())),
    }


# --------------------------------------------------------------------------- diff


class Change(NamedTuple):
    """One change between two editions: how the entry was matched (`match`), the words that
    changed (`diff`, `word_diff` runs) and, for an entry added or removed, its whole `text`."""

    match: Match
    diff: tuple[tuple[str, str], ...] = ()
    text: str = ""

    @property
    def shown(self) -> bool:
        """Worth showing a reader: not a change of quotes, dashes or spacing alone."""
        return not (self.match.kind == "changed" and self.match.typography)


@dataclass(frozen=True)
class EditionDiff:
    """What changed from edition `old` to `new` (at or below `section`, if given): the counts
    per kind (`summary`), the changes in rule order, and the title of each section shown."""

    old: str
    new: str
    section: str | None
    counts: dict
    changes: tuple[Change, ...]
    titles: dict

    def to_dict(self) -> dict:
        def change(c: Change) -> dict:
            m = c.match
            return {
                "kind": m.kind,
                "old": {"edition": self.old, "number": m.old} if m.old else None,
                "new": {"edition": self.new, "number": m.new} if m.new else None,
                "similarity": m.similarity,
                "words_added": m.words_added,
                "words_removed": m.words_removed,
                "refs_only": m.refs_only,
                "typography": m.typography,
                "diff": [list(op) for op in c.diff] or None,
                "text": c.text or None,
            }

        return {
            "old": self.old,
            "new": self.new,
            "section": self.section,
            "summary": self.counts,
            "changes": [change(c) for c in self.changes],
        }


def diff(lib, old: str, new: str, section: str | None = None, words: bool = True) -> EditionDiff:
    """The changes from edition `old` to `new` of the same language, followed across
    renumberings (the stored alignment where the build made one). A partial `new` edition
    lacks sections rather than removing them: their rules are not counted as removed.
    `words` false leaves out the word diffs and texts (for the counts alone)."""
    under = numbers.parse(section) if section else None
    old_info, new_info = lib.edition(old), lib.edition(new)
    if old_info.lang != new_info.lang:
        raise BadInput(
            _("{old} and {new} are in different languages").format(old=old_info.id, new=new_info.id)
        )
    old, new = old_info.id, new_info.id
    matches = stored(lib, old, new) or align_editions(lib, old, new)
    if under is not None:
        matches = [
            m
            for m in matches
            if any(n and under.contains(numbers.parse(n)) for n in (m.old, m.new))
        ]
    if new_info.partial:
        present = {n.split(".")[0] for n in lib.numbers(new)}
        matches = [
            m for m in matches if not (m.kind == "removed" and m.old.split(".")[0] not in present)
        ]
    changed = sorted(
        (m for m in matches if m.kind != "unchanged"),
        key=lambda m: numbers.sort_key(m.new or m.old),
    )
    out, titles = [], {}
    for m in changed:
        c = Change(m)
        if words and c.shown:
            sec = (m.new or m.old).split(".")[0]
            if sec not in titles:
                titles[sec] = lib.preview(new if m.new else old, sec)
            if (
                m.kind in ("changed", "moved")
                and not m.refs_only
                and (m.words_added or m.words_removed)
            ):
                a, b = lib.get(old, m.old), lib.get(new, m.new)
                c = c._replace(diff=tuple(word_diff(full_text(a), full_text(b))))
            elif m.kind in ("added", "removed"):
                c = c._replace(
                    text=full_text(lib.get(new if m.kind == "added" else old, m.new or m.old))
                )
        out.append(c)
    return EditionDiff(
        old, new, str(under) if under else None, summary(matches), tuple(out), titles
    )
