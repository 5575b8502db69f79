"""`crlookup rule`: a rule with what is below it and what cites it, its twins, how to cite it;
and the same rule in two languages side by side (rule --parallel)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.text import Text

from crlookup.core.i18n import _, ngettext
from crlookup.core.model import Rule
from crlookup.core.numbers import ref_label
from crlookup.ui.render.text import (
    EXAMPLE_LABELS,
    STYLES,
    GlossaryTerms,
    Wrapped,
    copying,
    hanging,
    spaced,
    styled,
    with_refs,
)

if TYPE_CHECKING:
    from crlookup.bilingual import Parallel
    from crlookup.library.reader import RuleLookup


class RuleView:
    """A rule (or section, or chapter) with the entries below it and its citations."""

    def __init__(
        self,
        edition: str,
        rule: Rule,
        below: list[Rule],
        *,
        cited_by: list[str] | None = None,
        terms: GlossaryTerms | None = None,
        document: str = "cr",
        annotations: bool = False,
    ):
        self.edition = edition
        self.rule = rule
        self.below = below
        self.cited_by = cited_by or []
        self.terms = terms
        self.document = document
        self.annotations = annotations

    def _entry(self, r: Rule, indent: int, width: int) -> list[Text]:
        if self.document != "cr":
            return self._document_entry(r, indent, width)
        head = styled(
            (r.number + (" " if r.kind in ("rule", "subrule") else ". "), STYLES["number"])
        )
        if r.kind in ("chapter", "section"):
            return hanging(head + Text(r.title, STYLES["title"]), indent, width)
        lines: list[Text] = []
        seen: set[str] = set()
        for i, paragraph in enumerate(r.text.split("\n")):
            body = with_refs(paragraph)
            if r.title:
                body.stylize(STYLES["title"])
            elif self.terms:
                self.terms.mark(body, seen)
            lines += hanging(head + body if i == 0 else body, indent, width)
        for example in r.examples:
            label = EXAMPLE_LABELS.get(self.edition.split("-")[0], "Example:")
            ex = styled((spaced(label), "bold"), (with_refs(example), ""))
            ex.stylize(STYLES["example"])
            lines += hanging(ex, indent + 4, width)
        return lines

    def _document_entry(self, r: Rule, indent: int, width: int) -> list[Text]:
        """A tournament document's entry: its label and title, the IPG's penalty, its text,
        examples and other parts, and (asked for) the judges' annotations."""
        from crlookup.core.documents import CELLS, label

        head = styled((label(self.document, r.number) + " ", STYLES["number"]), (r.title, "bold"))
        lines = hanging(head, indent, width)
        parts = dict(r.parts)
        if parts.get("penalty"):
            lines += hanging(
                styled((_("Penalty: "), STYLES["muted"]), (parts["penalty"], "bold")),
                indent + 2,
                width,
            )
        paragraphs = r.text.split("\n") if r.text else []
        # a table ("infraction | penalty" rows, a header row first: the IPG's penalties, the
        # MTR's levels of programs), from its first row to its last, in columns
        rows = [i for i, p in enumerate(paragraphs) if CELLS in p]
        table = range(rows[0], rows[-1] + 1) if len(rows) > 2 else range(0)
        cells = max((len(paragraphs[i].split(CELLS)[0]) for i in rows), default=0)
        for i, paragraph in enumerate(paragraphs):
            if i in table and CELLS in paragraph:  # a row
                first, rest = paragraph.split(CELLS, 1)
                weight = "bold" if i == table.start else ""
                row = styled((first.ljust(cells + 2), weight), (rest, weight))
                lines += hanging(row, indent + 4, width)
            elif i in table:  # a heading among the rows
                lines += hanging(Text(paragraph, STYLES["muted"]), indent + 2, width)
            else:
                lines += hanging(with_refs(paragraph), indent + 2, width)
        for example in r.examples:
            ex = styled((_("Example:") + " ", "bold"), (with_refs(example), ""))
            ex.stylize(STYLES["example"])
            lines += hanging(ex, indent + 4, width)
        for name, text in r.parts:
            if name == "penalty":
                continue
            lines.append(Text())
            lines += hanging(Text(name.capitalize(), "bold"), indent + 2, width)
            for paragraph in text.split("\n"):
                lines += hanging(with_refs(paragraph), indent + 2, width)
        if self.annotations and r.annotations:
            # the annotators' words, not Wizards' (a note may contradict the IPG in force)
            said = _("Annotation (judges' commentary, not Wizards' text; as of {date}): ").format(
                date=self.edition[-10:]
            )
            for note in r.annotations:
                lines += hanging(styled((said, "bold"), (note, "")).copy(), indent + 4, width)
                lines[-1].stylize(STYLES["muted"])
        return lines

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        yield Text(self.edition, STYLES["muted"])
        yield from self.entries(width)
        yield from self._footer(width)

    def entries(self, width: int) -> list[Text]:
        lines = self._entry(self.rule, 0, width)
        listing = self.rule.kind in ("chapter", "section") or (
            self.document != "cr" and self.rule.kind == "appendix"
        )
        for r in self.below:
            lines += [self._listing(r, width)] if listing else self._entry(r, 2, width)
        return lines

    def _label(self, number: str) -> str:
        """A cited number as shown: a tournament document's own with its prefix ("MTR 2.11")."""
        if self.document == "cr" or " " in number or number.startswith("glossary:"):
            return number
        from crlookup.core.documents import label

        return label(self.document, number)

    def _footer(self, width: int) -> list[Text]:
        shown = {self.rule.number} | {r.number for r in self.below}
        cites: list[str] = []
        for r in [self.rule, *self.below]:
            for ref in r.refs:
                label = ref_label(self._label(ref.label))
                if label not in cites and not set(ref.targets or [ref.first]) <= shown:
                    cites.append(label)
        lines: list[Text] = []
        if cites:
            line = styled((_("Cites: "), STYLES["muted"]), (", ".join(cites), STYLES["ref"]))
            lines += hanging(line, 0, width)
        rules = [self._label(c) for c in self.cited_by if not c.startswith("glossary:")]
        terms = [c.split(":", 1)[1] for c in self.cited_by if c.startswith("glossary:")]
        if rules:
            shown_rules = ", ".join(rules[:12]) + (", …" if len(rules) > 12 else "")
            line = styled(
                (
                    ngettext(
                        "Cited by {count} rule: ", "Cited by {count} rules: ", len(rules)
                    ).format(count=len(rules)),
                    STYLES["muted"],
                ),
                (shown_rules, STYLES["ref"]),
            )
            lines += hanging(line, 0, width)
        if terms:
            line = styled((_("In the glossary under: "), STYLES["muted"]), (", ".join(terms), ""))
            lines += hanging(line, 0, width)
        return [Text(), *lines] if lines else []

    def _listing(self, r: Rule, width: int) -> Text:
        """One line per rule of a section (or section of a chapter)."""
        line = styled(
            ("  " + r.number + " ", STYLES["number"]), (r.title or r.text.split("\n")[0], "")
        )
        line.truncate(width, overflow="ellipsis")
        return line


class CitationView:
    """How to cite a rule: "CR 702.19b (August 7, 2026)", then the official page."""

    def __init__(self, citation):
        self.citation = citation

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from babel.dates import format_date

        from crlookup.core.i18n import language

        c = self.citation
        day = format_date(c.date, format="long", locale=language())
        where = day if c.lang == "en" else f"{c.lang}, {day}"
        yield Text()
        yield Text(f"{c.label} ({where})")
        if c.url:
            yield Text(c.url, STYLES["muted"])


class TwinView:
    """Another entry printed with the number just shown: a numbering slip in Wizards' text."""

    def __init__(self, edition: str, rule: Rule, terms=None):
        self.edition, self.rule, self.terms = edition, rule, terms

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Text("")
        yield Text(
            _(
                "{edition} prints {number} twice (a numbering slip in Wizards' text); "
                "the other entry:"
            ).format(edition=self.edition, number=self.rule.number),
            "yellow",
        )
        yield RuleView(self.edition, self.rule, [], terms=self.terms)


class ParallelView:
    """A rule and its subrules in two languages, in two columns."""

    def __init__(self, langs: list[str], pairs):
        self.langs, self.pairs = langs, pairs

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.table import Table

        first = self.pairs[0]
        right = first.right.edition or self.langs[1]
        if copying(options):  # no columns to paste: each entry, then its counterpart
            yield Text(f"{first.left.edition} / {right}", "bold")
            for p in self.pairs:
                yield Text()
                yield self._cell(p.left, p.number)
                yield self._cell(p.right, p.number)
            yield from self._note(first)
            return
        table = Table(
            box=None,
            show_header=True,
            header_style="bold",
            pad_edge=False,
            expand=True,
            show_lines=False,
        )
        # a word longer than its column goes on below (a Chinese paragraph has no spaces)
        table.add_column(first.left.edition, ratio=1, overflow="fold")
        table.add_column(right, ratio=1, overflow="fold")
        for p in self.pairs:
            table.add_row(
                Wrapped(self._cell(p.left, p.number)), Wrapped(self._cell(p.right, p.number))
            )
        yield table
        yield from self._note(first)

    def _note(self, first) -> RenderResult:
        if first.right.rule is not None and not first.same_date:
            yield Text(
                _(
                    "{edition} is the nearest {lang} edition: its text may differ from {other}."
                ).format(edition=first.right.edition, lang=self.langs[1], other=first.left.edition),
                STYLES["muted"],
            )

    def _cell(self, side, number: str) -> Text:
        if side.rule is None:
            return Text(
                _("{number}: not in {edition}").format(
                    number=number, edition=side.edition or _("this language")
                ),
                "italic yellow",
            )
        r = side.rule
        label = EXAMPLE_LABELS.get(side.edition.split("-")[0], "Example:")
        t = styled(
            (r.number + " ", STYLES["number"]),
            (with_refs(r.text), STYLES["title"] if r.title else ""),
        )
        for example in r.examples:
            t.append("\n")
            t.append_text(
                styled((spaced(label), "bold " + STYLES["example"]), (example, STYLES["example"]))
            )
        return t


def lookup(found: RuleLookup, headwords: set[str]) -> RenderableType:
    """`crlookup rule`'s answer: the rule (its glossary terms, `headwords`, in bold), the
    entries Wizards printed with the same number (twins), and how to cite it if asked."""
    terms = GlossaryTerms(headwords)
    view: RenderableType = RuleView(
        found.edition,
        found.rule,
        list(found.below),
        cited_by=list(found.cited_by),
        terms=terms,
        document=found.document,
        annotations=found.annotations,
    )
    if found.twins:
        view = Group(view, *[TwinView(found.edition, r, terms) for r in found.twins])
    if found.citation is not None:
        view = Group(view, CitationView(found.citation))
    return view


def parallel(found: Parallel) -> ParallelView:
    """`crlookup rule --parallel`'s answer: the rule and its subrules beside their
    counterparts."""
    return ParallelView(list(found.langs), list(found.pairs))
