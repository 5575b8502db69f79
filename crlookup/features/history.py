"""A rule's timeline through every edition of its language, following it across renumberings.

The library stores the alignment of each edition with the next (see crlookup.core.alignment.chain);
a timeline walks those links backwards and forwards from the rule asked about, through merges
(back to the entry it holds the most words of, naming the others) and splits. A CR rule's, section's
or chapter's step also says which of its subrules (a section's: its rules and subrules) changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from crlookup.core.alignment import Match
from crlookup.core.i18n import _, ngettext
from crlookup.core.model import Rule
from crlookup.core.numbers import sort_key
from crlookup.library.alignments import Links, main_source
from crlookup.library.reader import Library


class SubruleChange(NamedTuple):
    """What became of one of a rule's subrules (a section's rules and subrules) since the
    edition before."""

    change: str  # "changed" (its words), "added", "removed", "renumbered" (its letters alone),
    # "merged" (others went into it), "split" (from another)
    number: str | None  # in the step's edition (None: removed)
    previous: str | None  # in the edition before (None: added; merged: the main one)
    moved: bool = False  # its place under the rule changed (its letters), not only the rule's

    def to_dict(self) -> dict:
        return {
            "change": self.change,
            "number": self.number,
            "previous": self.previous,
            "moved": self.moved,
        }


class Step(NamedTuple):
    edition: str
    number: str | None  # None: the rule is not in this edition (removed, or not yet there)
    change: str  # "added" (first appears), "unchanged", "changed", "moved", "removed", "absent"
    previous: tuple[str, str] | None  # (edition, number) it is compared with
    words_added: int = 0
    words_removed: int = 0
    refs_only: bool = False
    typography: bool = False
    diff: tuple[
        tuple[str, str], ...
    ] = ()  # where its words changed: (op, words) runs (crlookup.core.alignment.word_diff)
    date: str = ""  # the edition's effective date (ISO)
    main: bool = True  # on the main line of its language (not a partial edition or a conversion)
    merged_from: tuple[str, ...] = ()  # the entries of the edition before merged into it
    split_from: tuple[str, ...] = ()  # the entry of the edition before it was split from
    split_into: tuple[str, ...] = ()  # what its predecessor was split into (it among them)
    subrules: tuple[SubruleChange, ...] = ()  # its subrules' changes (a section's: its rules')
    # official editions missing from the library between the step before and this one (its
    # change may have come in one of them: "first appears in the library's edition of ...")
    missing_before: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {
            "edition": self.edition,
            "date": self.date,
            "number": self.number,
            "change": self.change,
            "previous": {"edition": self.previous[0], "number": self.previous[1]}
            if self.previous
            else None,
            "words_added": self.words_added,
            "words_removed": self.words_removed,
            "refs_only": self.refs_only,
            "typography": self.typography,
            "diff": [list(op) for op in self.diff] or None,
            "main": self.main,
            "merged_from": list(self.merged_from) or None,
            "split_from": list(self.split_from) or None,
            "split_into": list(self.split_into) or None,
            "subrules": [c.to_dict() for c in self.subrules] or None,
            "missing_before": list(self.missing_before) or None,
        }

    @property
    def noteworthy(self) -> bool:
        """Worth a line in a rule's story: it appears, its words change, it is renumbered,
        merged or split, or it goes (not a change of quotes and spacing alone, or of the
        numbers it cites). Its subrules' changes are `subrules`, apart."""
        if self.merged_from or self.split_from or self.split_into:
            return True
        if self.change == "changed":
            return not (self.typography or self.refs_only)
        return self.change != "unchanged"


@dataclass(frozen=True)
class History:
    """A rule (`rule`, as it is in `edition`) and its timeline, one step per edition of its
    language."""

    edition: str
    rule: Rule
    steps: tuple[Step, ...]

    def lines(self, every: bool = False) -> list[Line]:
        """Its story, a line a step, in the words the command line and the page both show:
        of the main line (not a partial edition, not a conversion), the first step, the last
        ("in force") and each noteworthy one or one whose subrules changed, each after how
        many it leaves out; `every`: every step."""
        heading = "." not in self.rule.number  # a section or chapter: its rules below it
        shown = [i for i, s in enumerate(self.steps) if every or s.main]
        out, quiet = [], 0
        for k, i in enumerate(shown):
            s = self.steps[i]
            last = k == len(shown) - 1
            if not every and not (k == 0 or last or s.noteworthy or s.subrules):
                quiet += 1
                continue
            what = _what(i, s)
            below = _below(s, heading) if s.subrules else ""
            if last and not s.noteworthy and s.number:
                what = _("in force")
            elif below and not s.noteworthy:  # only its subrules changed: they are the line
                what, below = below, ""
            said = _quiet(quiet, self.steps, heading) if quiet else ""
            out.append(Line(i, quiet, what, below, said))
            quiet = 0
        return out

    def to_dict(self) -> dict:
        return {
            "edition": self.edition,
            "number": self.rule.number,
            "steps": [s.to_dict() for s in self.steps],
            "lines": [line._asdict() for line in self.lines()],
        }


class Line(NamedTuple):
    """A line of a rule's story (`History.lines`): its step (an index of `steps`), how many
    steps before it the story leaves out, and what it says of the step and of its subrules."""

    step: int
    quiet: int
    said: str
    below: str
    quiet_said: str  # what it says of the steps it leaves out ("… its words unchanged in 8…")


def history(lib: Library, number: str, edition: str | None = None) -> History:
    """The timeline of rule `number` of `edition` (by default the newest English one)."""
    edition, rule = lib.entry(number, edition)
    steps = timeline(lib, edition, rule.number)
    return History(edition, rule, tuple(_after_gaps(lib, lib.edition(edition).lang, steps)))


def same_rule(lib: Library, number: str, edition: str) -> Rule | None:
    """The entry of `edition` that is the rule `number` of another edition of its language
    (the newest that has that number), followed through the renumberings: 702.19 is 502.9 in
    en-2004-10-01, 502.9b is 702.19b now; None if it cannot be followed there."""
    info = lib.edition(edition)
    if info.document != "cr":
        return None
    links = Links(lib, info.lang)
    has = next(
        (e.id for e in reversed(lib.editions()) if e.lang == info.lang and e.id != edition
         and lib.get(e.id, number) is not None),
        None,
    )  # fmt: skip
    if has is None:
        return None
    there = links.numbers(has, number).get(edition)
    return lib.get(edition, there) if there else None


def _after_gaps(lib: Library, lang: str, steps: list[Step]) -> list[Step]:
    """Each change on the main line marked with the official editions missing from the
    library since the step before (the change may be theirs)."""
    from datetime import date

    out, before = [], None
    for s in steps:
        if s.main and s.date:
            day = date.fromisoformat(s.date)
            if before is None:  # its first: the library's edition before it, if any
                earlier = [e.date for e in lib.editions() if e.lang == lang and e.date < day]
                before = max(earlier, default=None)
            if before is not None and s.change != "unchanged" and s.change != "absent":
                gap = tuple(e for e, _name in lib.missing_between(lang, before, day))
                s = s._replace(missing_before=gap) if gap else s
            before = day
        out.append(s)
    return out


def timeline(lib: Library, edition: str, number: str) -> list[Step]:
    """The rule's number and change in each edition of its language, in the order the
    editions took effect."""
    info = lib.edition(edition)
    document = info.document
    if document == "cr":  # (the archive's older editions may be still to come)
        lib.every_edition()
    infos = {e.id: e for e in lib.editions(document)}
    links = Links(lib, info.lang) if document == "cr" else None
    if "." not in number:
        steps = _headings(lib, edition, number)
    elif links is None:
        steps = _document_steps(lib, edition, number)
    else:
        steps = _rule_steps(lib, edition, number, links)
    if links is not None and not number[-1].isalpha():  # a subrule has none
        steps = _with_subrules(links, steps)
    line = _main_line(infos) if document == "cr" else set(infos)
    return [
        s._replace(
            diff=_diff(lib, s), date=infos[s.edition].date.isoformat(), main=s.edition in line
        )
        for s in steps
    ]


def _rule_steps(lib: Library, edition: str, number: str, links: Links) -> list[Step]:
    infos = links.infos
    order = {e.id: i for i, e in enumerate(lib.editions())}
    found = links.numbers(edition, number)
    steps = []
    for ed in sorted(found, key=order.__getitem__):
        num = found[ed]
        back = links.sources(ed, num)
        if back is None or back[0] not in found:
            steps.append(Step(ed, num, "added", None))
            continue
        prev_ed, matches = back
        # the match from the entry followed in the edition before (merged, it is not the main one)
        m = next((m for m in matches if m.old == found[prev_ed]), None) or main_source(matches)
        old = m.old
        step = Step(
            ed,
            num,
            m.kind,
            (prev_ed, old) if old else None,
            m.words_added,
            m.words_removed,
            m.refs_only,
            m.typography,
        )
        steps.append(step._replace(**_merges(links, prev_ed, ed, matches, m)))
    # where it disappears: a link out of the last edition it is in that leads nowhere
    last = steps[-1]
    assert last.number is not None  # each step above is the rule in an edition that has it
    for new_ed, m in links.following(last.edition, last.number):
        if new_ed not in found and not infos[new_ed].partial and m.kind == "removed":
            steps.append(Step(new_ed, None, "removed", (last.edition, last.number)))
    return steps


def _merges(links: Links, prev_ed: str, ed: str, matches: list[Match], m: Match) -> dict:
    """A step's merges and splits: the entries merged into it (`matches`, its own included),
    the one it was split from, and what that one (`m.old`, in `prev_ed`) was split into."""
    out: dict[str, tuple[str, ...]] = {}
    if m.old is None:
        return out
    merged = {x.old for x in matches if x.kind == "merged" and x.old}
    if merged:
        out["merged_from"] = tuple(sorted({m.old, *merged}, key=sort_key))
    if m.kind == "split":
        out["split_from"] = (m.old,)
    pieces = [x for e, x in links.following(prev_ed, m.old) if e == ed]
    if any(x.kind == "split" for x in pieces):
        out["split_into"] = tuple(sorted({x.new for x in pieces if x.new}, key=sort_key))
    return out


def _within(number: str) -> tuple[str, str]:
    """The numbers under a CR rule ("702.19": its subrules), section ("702": its rules and
    subrules) or chapter ("7"), as a range of strings: (from, to), from <= n < to."""
    if "." in number:
        return number + "a", number + "{"  # "{" comes after "z"
    if len(number) == 3:
        return number + ".", number + "/"  # "/" comes after "."
    return number, chr(ord(number) + 1)


def _with_subrules(links: Links, steps: list[Step]) -> list[Step]:
    """The steps, each with its subrules' changes since the edition it is aligned with (a
    section's or chapter's: its rules' and subrules')."""
    have = {s.edition: s.number for s in steps if s.number}
    out = []
    for s in steps:
        if s.number is None or s.previous is None:
            out.append(s)
            continue
        # a heading's step is compared with the edition before it that has it; the stored
        # alignments are of each edition with the one before it on the chain
        before = next(iter(links.back.get(s.edition, ())), None)
        old = s.previous[1] if before == s.previous[0] else have.get(before or "")
        if before is None or old is None:
            out.append(s)
            continue
        matches = links.changes_under(before, s.edition, _within(old), _within(s.number))
        out.append(s._replace(subrules=_subrule_changes(matches, old, s.number)))
    return out


def _subrule_changes(matches: list[Match], old: str, new: str) -> tuple[SubruleChange, ...]:
    """What the stored matches under a rule (`old` in the older edition, `new` in the newer)
    say of its subrules: words changed, added, removed, renumbered, merged, split. A change of
    quotes, spacing or cited numbers alone is none; a subrule moved in from elsewhere is
    added, one moved out removed."""
    (old_from, old_to), (new_from, new_to) = _within(old), _within(new)
    merged: dict[str, list[Match]] = {}  # an entry -> the matches of those merged into it
    for m in matches:
        if m.kind == "merged" and m.new and new_from <= m.new < new_to:
            merged.setdefault(m.new, []).append(m)
    out = []
    for m in matches:
        old_in = m.old is not None and old_from <= m.old < old_to
        if m.new is None or not new_from <= m.new < new_to:
            if old_in:
                out.append(SubruleChange("removed", None, m.old))  # or moved out, or merged out
            continue
        if m.kind == "merged":
            continue  # said of the entry it went into
        moved = bool(old_in and m.old and m.old[len(old) :] != m.new[len(new) :])
        if m.new in merged:
            source = main_source([m, *merged.pop(m.new)])
            out.append(SubruleChange("merged", m.new, source.old))
            continue
        if m.kind in ("split", "added"):
            change = m.kind
        elif not old_in:
            change = "added"  # moved in from elsewhere
        elif (m.words_added or m.words_removed) and not (m.typography or m.refs_only):
            change = "changed"
        elif moved:
            change = "renumbered"
        else:
            continue
        out.append(SubruleChange(change, m.new, m.old, moved and change != "split"))
    # an entry others went into that is itself unchanged at its number (no stored match)
    out += [SubruleChange("merged", n, n) for n in merged]
    return tuple(sorted(out, key=lambda c: _order(c.number or c.previous or "")))


def _order(number: str) -> tuple:
    """A CR rule's or subrule's place in rule order, by plain string work (a section's
    history sorts some thousands of them): 702.9 before 702.19, 702.19z before 702.19aa."""
    section, _, rest = number.partition(".")
    rule = rest.rstrip("abcdefghijklmnopqrstuvwxyz")
    letters = rest[len(rule) :]
    return (int(section), int(rule) if rule else -1, len(letters), letters)


def _main_line(infos: dict) -> set[str]:
    """The editions on the main lines (crlookup.core.alignment.main_line); the others hang off them."""
    from crlookup.core.alignment import main_line

    return {
        e.id
        for lang in {e.lang for e in infos.values()}
        for e in main_line(list(infos.values()), lang)
    }


def _diff(lib: Library, step: Step) -> tuple[tuple[str, str], ...]:
    """The word diff of a step whose words changed."""
    from crlookup.core.alignment import full_text, word_diff

    if not (step.previous and step.number and (step.words_added or step.words_removed)):
        return ()
    if step.typography or step.refs_only:
        return ()
    a, b = lib.get(*step.previous), lib.get(step.edition, step.number)
    if a is None or b is None:
        return ()
    return tuple(word_diff(full_text(a), full_text(b)))


def _headings(lib: Library, edition: str, number: str) -> list[Step]:
    """A chapter or section: the editions that have its number, and whether its title changed.

    Headings are not aligned (their rules are); the same number is the same heading.
    """
    info = lib.edition(edition)
    lang = info.lang
    steps: list[Step] = []
    previous = None
    for e in lib.editions(info.document):
        if e.lang != lang:
            continue
        here = lib.get(e.id, number)
        if here is None:
            if previous and not e.partial:
                steps.append(Step(e.id, None, "removed", previous))
                previous = None
            continue
        if previous is None:
            steps.append(Step(e.id, number, "added", None))
        else:
            before = lib.get(*previous)
            assert before is not None  # the heading was there: `previous` is where
            steps.append(
                Step(
                    e.id, number, "unchanged" if before.title == here.title else "changed", previous
                )
            )
        previous = (e.id, number)
    return steps


def _document_steps(lib: Library, edition: str, number: str) -> list[Step]:
    """A tournament document's entry through its editions: the library stores no alignments
    of them (a few editions of a hundred entries each), so each pair of editions is aligned
    here, backwards from `edition` and forwards."""
    from crlookup.library.alignments import align_editions

    info = lib.edition(edition)
    eds = [e.id for e in lib.editions(info.document) if e.lang == info.lang]
    at = eds.index(edition)
    cache: dict[str, list[Rule]] = {}

    def step(old_ed: str, new_ed: str, m) -> Step:
        return Step(
            new_ed,
            m.new,
            m.kind,
            (old_ed, m.old) if m.old else None,
            m.words_added,
            m.words_removed,
            m.refs_only,
            m.typography,
        )

    steps: list[Step] = []
    current = number
    for i in range(at, 0, -1):  # backwards: where it came from
        old_ed, new_ed = eds[i - 1], eds[i]
        m = next((m for m in align_editions(lib, old_ed, new_ed, cache) if m.new == current), None)
        if m is None or m.old is None:
            break
        steps.insert(0, step(old_ed, new_ed, m))
        current = m.old
    first = steps[0].previous if steps else (edition, number)
    assert first is not None
    steps.insert(0, Step(first[0], first[1], "added", None))
    current = number
    for i in range(at, len(eds) - 1):  # forwards: where it went
        old_ed, new_ed = eds[i], eds[i + 1]
        m = next((m for m in align_editions(lib, old_ed, new_ed, cache) if m.old == current), None)
        if m is None:
            break
        if m.new is None:
            if not lib.edition(new_ed).partial:
                steps.append(Step(new_ed, None, "removed", (old_ed, current)))
            break
        steps.append(step(old_ed, new_ed, m))
        current = m.new
    return steps


# --- a story's words (History.lines) ------------------------------------------------------


def _quiet(count: int, steps: tuple, heading: bool) -> str:
    """The line for `count` editions where nothing worth a line changed."""
    if not any(s.subrules for s in steps):
        return ngettext(
            "… its words unchanged in {count} edition",
            "… its words unchanged in {count} editions",
            count,
        ).format(count=count)
    if heading:
        return ngettext(
            "… its title and its rules unchanged in {count} edition",
            "… its title and its rules unchanged in {count} editions",
            count,
        ).format(count=count)
    return ngettext(
        "… its words and its subrules unchanged in {count} edition",
        "… its words and its subrules unchanged in {count} editions",
        count,
    ).format(count=count)


def _what(i: int, s: Any) -> str:
    moved = s.previous and s.number and s.previous[1] != s.number
    what = {
        "added": _("first appears") if i == 0 else _("added"),
        "removed": _("removed"),
        "unchanged": _("unchanged"),
        "changed": _("changed"),
        "moved": _("renumbered from {number}").format(number=s.previous[1])
        if moved
        else _("moved"),
        "split": _("split from {number}").format(number=s.previous[1])
        if s.previous
        else _("split"),
        "merged": _("merged"),
    }.get(s.change, s.change)
    if s.merged_from:
        what = _("merged from {numbers}").format(numbers=_listed(s.merged_from))
    elif s.split_into and s.change != "split":
        what = _("{number} split into {numbers}").format(
            number=s.previous[1], numbers=_listed(s.split_into)
        )
    if s.missing_before and s.change == "added" and i == 0:
        what = _("first appears in the library's edition of this date")
    if s.missing_before:  # the change may be one of theirs
        what += " " + _("(missing before it: {editions})").format(
            editions=", ".join(s.missing_before)
        )
    if s.typography:
        what += " " + _("(quotes and spacing only)")
    elif s.refs_only:
        what += " " + _("(cross-reference numbers only)")
    elif (s.words_added or s.words_removed) and len(s.merged_from) > 1:
        what += " " + _("(+{added} −{removed} against {number})").format(
            added=s.words_added, removed=s.words_removed, number=s.previous[1]
        )
    elif s.words_added or s.words_removed:
        what += f" (+{s.words_added} −{s.words_removed})"
    return what


def _below(s: Any, heading: bool) -> str:
    """What became of its subrules (a section's rules) in step `s`."""
    groups: dict[str, list[str]] = {}
    for c in s.subrules:
        shown = c.previous if c.number is None else c.number
        if c.moved:
            shown = f"{c.previous}→{c.number}"
        groups.setdefault(c.change, []).append(shown)
    labels = {
        "changed": _("changed: {numbers}"),
        "added": _("added: {numbers}"),
        "removed": _("removed: {numbers}"),
        "merged": _("merged: {numbers}"),
        "split": _("split: {numbers}"),
        "renumbered": _("renumbered: {numbers}"),
    }
    changes = "; ".join(
        label.format(numbers=_at_most(groups[kind]))
        for kind, label in labels.items()
        if kind in groups
    )
    if heading:
        return _("rules {changes}").format(changes=changes)
    return _("subrules {changes}").format(changes=changes)


def _listed(numbers) -> str:
    """Numbers as a list in words: "502.9b and 502.9d", "502.9b, 502.9d and 502.9e"."""
    *first, final = numbers
    if not first:
        return final
    return _("{numbers} and {number}").format(numbers=", ".join(first), number=final)


def _at_most(numbers: list[str], most: int = 12) -> str:
    """Numbers separated by commas, the first `most` of them and how many more."""
    if len(numbers) <= most:
        return ", ".join(numbers)
    rest = len(numbers) - most
    more = ngettext("and {count} more", "and {count} more", rest).format(count=rest)
    return ", ".join(numbers[:most]) + " " + more
