"""A rule's timeline through every edition of its language, following it across renumberings.

The library stores the alignment of each edition with the next (see crlookup.core.alignment.chain);
a timeline walks those links backwards and forwards from the rule asked about.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from crlookup.core.model import Rule
from crlookup.library.alignments import Links
from crlookup.library.reader import Library


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

    @property
    def worded(self) -> bool:
        """Its words changed (not only quotes, spacing or the numbers it cites)."""
        return bool(self.diff)

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
        }

    @property
    def noteworthy(self) -> bool:
        """Worth a line in a rule's story: it appears, its words change, it is renumbered or
        it goes (not a change of quotes and spacing alone, or of the numbers it cites)."""
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

    def to_dict(self) -> dict:
        return {
            "edition": self.edition,
            "number": self.rule.number,
            "steps": [s.to_dict() for s in self.steps],
        }


def history(lib: Library, number: str, edition: str | None = None) -> History:
    """The timeline of rule `number` of `edition` (by default the newest English one)."""
    edition, rule = lib.entry(number, edition)
    return History(edition, rule, tuple(timeline(lib, edition, rule.number)))


def timeline(lib: Library, edition: str, number: str) -> list[Step]:
    """The rule's number and change in each edition of its language, in the order the
    editions took effect."""
    document = lib.edition(edition).document
    infos = {e.id: e for e in lib.editions(document)}
    if "." not in number:
        steps = _headings(lib, edition, number)
    elif document != "cr":
        steps = _document_steps(lib, edition, number)
    else:
        steps = _rule_steps(lib, edition, number)
    line = _main_line(infos) if document == "cr" else set(infos)
    return [
        s._replace(
            diff=_diff(lib, s), date=infos[s.edition].date.isoformat(), main=s.edition in line
        )
        for s in steps
    ]


def _rule_steps(lib: Library, edition: str, number: str) -> list[Step]:
    links = Links(lib, lib.edition(edition).lang)
    infos = links.infos
    order = {e.id: i for i, e in enumerate(lib.editions())}
    found = links.numbers(edition, number)
    steps = []
    for ed in sorted(found, key=order.__getitem__):
        num = found[ed]
        link = links.previous(ed, num)
        if link is None or link[0] not in found:
            steps.append(Step(ed, num, "added", None))
            continue
        prev_ed, m = link
        old = m.old
        steps.append(
            Step(
                ed,
                num,
                m.kind,
                (prev_ed, old) if old else None,
                m.words_added,
                m.words_removed,
                m.refs_only,
                m.typography,
            )
        )
    # where it disappears: a link out of the last edition it is in that leads nowhere
    last = steps[-1]
    assert last.number is not None  # each step above is the rule in an edition that has it
    for new_ed, m in links.following(last.edition, last.number):
        if new_ed not in found and not infos[new_ed].partial and m.kind == "removed":
            steps.append(Step(new_ed, None, "removed", (last.edition, last.number)))
    return steps


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
