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
split from it (old side) or merged into it (new side); and two or more unmatched entries most of
whose words live on in one unmatched new entry nearby are recorded as merged into it (in July
2009, 502.9b, 502.9d and 502.9e became one reworded 702.17b, which no one of them is alone).

`main_line` and `chain` say which editions a library aligns when it is built (each with the
next on its language's main line); crlookup.library.alignments reads what the build stored.
"""

from __future__ import annotations

import difflib
import itertools
import re
from typing import NamedTuple

from crlookup.core.chinese import has_chinese, joined, words
from crlookup.core.model import Rule, fold
from crlookup.core.numbers import rule_of

KINDS = ("unchanged", "changed", "moved", "split", "merged", "removed", "added")


_REF_NUMBER = re.compile(r"(?<![\w.])\d{3}(?:\.\d+[a-z]*)?(?![\w])")


_QUOTES = {"’": "'", "‘": "'", "“": '"', "”": '"', "–": "-", "—": "-"}


SAME_NUMBER = 60.0  # similarity for "the same rule, reworded" at the same number


ELSEWHERE = 75.0  # similarity for "the same rule, moved"


LIVES_ON = 90.0


SAME_NUMBER_BONUS = 15.0  # how much of a text must survive inside another for split/merged


MERGED_SHARE = 60.0  # the share of an entry's words (in runs of three or more) that must live on
# in a new entry for it to have merged there with others (the least in July 2009's 702.17b: 68)


class Match(NamedTuple):
    kind: str
    old: str | None  # number in the older edition
    new: str | None  # number in the newer edition
    similarity: float  # 0-100, texts compared without reference numbers
    words_added: int
    words_removed: int
    refs_only: bool  # the text differs only in the numbers of its cross-references
    typography: bool = False  # the text differs only in quotes, dashes, case or spacing


def number_of(m: Match) -> str:
    """The match's number in the newer edition, else in the older (a removed entry has only
    that one)."""
    number = m.new or m.old
    assert number is not None  # a match pairs an old entry, a new one, or both
    return number


def plain_marks(text: str) -> str:
    """Typographic quotes and dashes as plain ones; each is one other non-space character.

    (str.replace per mark: `str.translate` with a table is several times slower on these
    mostly ASCII texts, and the alignment at build time folds some 90,000 of them.)
    """
    for mark, plain in _QUOTES.items():
        if mark in text:
            text = text.replace(mark, plain)
    return text


# an encoding slip: every character outside ASCII saved as "?" (en-2008-05-01: "can?t",
# "?Draw Step?", "Magic? player"); compared, each of these marks is any other of them
_SLIPPED = re.compile(r"[?'\"®™©-]")


def slips_folded(text: str, other: str) -> str:
    """`plain_marks`'s text with quotes, dashes and symbols as "?", the mark an encoding slip
    leaves for them, where it or the text it is compared with (`other`) has one: a change that
    is only such a repair compares as typography."""
    return _SLIPPED.sub("?", text) if _SLIP.search(text) or _SLIP.search(other) else text


_SLIP = re.compile(r"[A-Za-z]\?[A-Za-z]|\?[A-Za-z][^?]*\?")  # "can?t", "?Draw Step?"


def comparable(rule: Rule) -> str:
    """The text as compared: folded, typographic marks plain, reference numbers blanked."""
    parts = [f"{name}: {text}" for name, text in rule.parts]
    text = (
        " ".join([rule.title, rule.text, *rule.examples, *parts])
        if rule.title != rule.text
        else rule.text
    )
    return _REF_NUMBER.sub("#", fold(plain_marks(text)))


def _plain(rule: Rule) -> str:
    """Text and examples with typography folded (quotes, dashes, case, spacing)."""
    return fold(plain_marks(full_text(rule)))


def _typography_only(a: Rule, b: Rule) -> bool:
    """Whether two entries differ only in typography (and the "?" an encoding slip left for
    it)."""
    plain_a, plain_b = _plain(a), _plain(b)
    return plain_a == plain_b or slips_folded(plain_a, plain_b) == slips_folded(plain_b, plain_a)


def word_diff(old: str, new: str) -> list[tuple[str, str]]:
    """(op, text) runs: "=" kept, "-" removed, "+" inserted, word by word (a Chinese
    character is a word: crlookup.core.chinese.words)."""
    a, b = words(old), words(new)
    # words are compared with typography folded ("owner's" is "owner’s"); shown as written
    # (each mark folds to one other non-space character, so the words stay where they were)
    marks_a, marks_b = plain_marks(old), plain_marks(new)
    plain_a, plain_b = words(slips_folded(marks_a, marks_b)), words(slips_folded(marks_b, marks_a))
    out: list[tuple[str, str]] = []
    matcher = difflib.SequenceMatcher(None, plain_a, plain_b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            out.append(("=", joined(b[j1:j2])))
        else:
            if i2 > i1:
                out.append(("-", joined(a[i1:i2])))
            if j2 > j1:
                out.append(("+", joined(b[j1:j2])))
    return out


def _counts(old: Rule | None, new: Rule | None) -> tuple[int, int]:
    if new is None:
        assert old is not None, "a match has an old side, a new side, or both"
        return 0, len(words(old.text))
    if old is None:
        return len(words(new.text)), 0
    ops = word_diff(full_text(old), full_text(new))
    added = sum(len(words(t)) for op, t in ops if op == "+")
    removed = sum(len(words(t)) for op, t in ops if op == "-")
    return added, removed


def full_text(rule: Rule) -> str:
    """A rule's text and its examples (a tournament entry's: and its parts, each named), as
    compared and diffed."""
    return "\n".join(
        [rule.text, *rule.examples, *(f"{n.capitalize()}: {t}" for n, t in rule.parts)]
    )


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
        same_number = new_by.get(r.number)
        if same_number is not None and same_number.kind == r.kind and _same(r, same_number):
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
        same_number = new_by.get(r.number)
        if (
            same_number
            and same_number.kind == "rule"
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
    gathered = _gathered(
        [n for n in old_by if n not in pairs and n not in lives_in],
        [n for n in unmatched_b if n not in into],
        text_a,
        text_b,
        pairs,
        children_a,
        children_b,
    )
    matches: list[Match] = []
    for r in olds:
        a = r.number
        if a in pairs:
            b = pairs[a]
            same_text = _same(r, new_by[b])
            s = 100.0 if same_text else sim(a, b)
            kind = "unchanged" if a == b and same_text else "changed" if a == b else "moved"
            typography = not same_text and _typography_only(r, new_by[b])
            refs_only = not same_text and not typography and text_a[a] == text_b[b]
            added, removed = (0, 0) if same_text or typography else _counts(r, new_by[b])
            matches.append(Match(kind, a, b, round(s, 1), added, removed, refs_only, typography))
        elif a in lives_in:
            b = lives_in[a]
            matches.append(Match("merged", a, b, 100.0, *_counts(r, new_by[b]), False))
        elif a in gathered:
            b, share = gathered[a]
            matches.append(Match("merged", a, b, round(share, 1), *_counts(r, new_by[b]), False))
        else:
            matches.append(Match("removed", a, None, 0.0, 0, len(words(r.text)), False))
    for b in unmatched_b:
        if b in into:
            a = into[b]
            matches.append(Match("split", a, b, 100.0, len(words(new_by[b].text)), 0, False))
        else:
            matches.append(Match("added", None, b, 0.0, len(words(new_by[b].text)), 0, False))
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
        near = _near(n, counterparts, own_children, other_children)
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


def _near(number: str, counterparts, own_children, other_children) -> set[str]:
    """The other edition's entries near an entry: the counterparts of its rule and of its
    siblings, and their subrules."""
    parent = rule_of(number)
    near = set()
    for m in (parent, *own_children.get(parent, ())):
        b = counterparts.get(m)
        if b:
            near.add(b)
            near.update(other_children.get(rule_of(b), ()))
    return near


def _gathered(
    numbers, fresh, texts, other_texts, counterparts, own_children, other_children
) -> dict[str, tuple[str, float]]:
    """Entries merged into a new entry: for each unmatched entry (`numbers`), the unmatched new
    entry nearby (`fresh`) that holds the most of its words, if it holds MERGED_SHARE of them;
    kept where two or more entries went into one (one alone, reworded into a longer entry, is a
    rewrite: removed, and the new one added).
    Entry -> (new entry, the share of its words there)."""
    fresh_set = set(fresh)
    into: dict[str, list[tuple[str, float]]] = {}
    for n in numbers:
        if len(texts[n]) <= 20:
            continue
        near = sorted(_near(n, counterparts, own_children, other_children) & fresh_set)
        best = max(((_share(texts[n], other_texts[b]), b) for b in near), default=(0.0, ""))
        if best[0] >= MERGED_SHARE:
            into.setdefault(best[1], []).append((n, best[0]))
    return {n: (b, share) for b, found in into.items() if len(found) > 1 for n, share in found}


def _share(text: str, other: str) -> float:
    """The share (0-100) of `text`'s words found in `other`, in the same order, in runs of
    three words or more; 0 where fewer than MERGED_SHARE of them are in `other` at all."""
    mine, others = words(text), words(other)
    if not mine:
        return 0.0
    present = set(others)  # no more of it can be in runs than is there at all: often too few
    if 100.0 * sum(w in present for w in mine) / len(mine) < MERGED_SHARE:
        return 0.0
    matcher = difflib.SequenceMatcher(None, mine, others, autojunk=False)
    kept = sum(size for _, _, size in matcher.get_matching_blocks() if size >= 3)
    return 100.0 * kept / len(mine)


def _children(rules: list[Rule]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for r in rules:
        if r.kind == "subrule":
            out.setdefault(rule_of(r.number), []).append(r.number)
    return out


def _keyword_names(rules: list[Rule]) -> set[str]:
    from crlookup.core.numbers import KEYWORD_SECTIONS

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
    if any(k in differ for k in keywords if " " not in k):
        return False
    # Chinese names are not set apart by spaces: "践踏" is in one text and not the other
    return not any((k in a) != (k in b) for k in keywords if has_chinese(k))


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
