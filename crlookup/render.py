"""Rich renderables for people: a rule with its subrules, the editions table, notices.

Only the CLI imports this module, and only for output that is not `--json`. Domain objects
never import rich.
"""

from __future__ import annotations

import re

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from crlookup.library import EditionInfo
from crlookup.model import Rule

_NUMBER = re.compile(
    r"(?<![\w.])\d{3}\.\d+[a-z]*(?!\w)|(?<=section )\d\b|(?<=rule )\d{3}\b|(?<=rules )\d{3}\b"
)

STYLES = {
    "number": "bold cyan",
    "ref": "cyan",
    "title": "bold",
    "example": "italic",
    "muted": "dim",
}


def with_refs(text: str) -> Text:
    """Text with rule numbers (cross-references) highlighted."""
    t = Text(text)
    t.highlight_regex(_NUMBER, STYLES["ref"])
    return t


class RuleView:
    """A rule (or section, or chapter) with the entries below it and its citations."""

    def __init__(
        self,
        edition: str,
        rule: Rule,
        below: list[Rule],
        *,
        cited_by: list[str] | None = None,
        alone: bool = False,
    ):
        self.edition = edition
        self.rule = rule
        self.below = below
        self.cited_by = cited_by or []
        self.alone = alone

    def _entry(self, r: Rule, indent: int) -> list:
        head = Text(r.number + (" " if r.kind in ("rule", "subrule") else ". "), STYLES["number"])
        if r.kind in ("chapter", "section"):
            head.append(r.title, STYLES["title"])
            parts: list = [head]
        else:
            body = with_refs(r.text)
            if r.title:
                body.stylize(STYLES["title"])
            parts = [head + body]
        for example in r.examples:
            ex = Text("Example: ", "bold " + STYLES["example"]) + with_refs(example)
            ex.stylize(STYLES["example"])
            parts.append(Padding(ex, (0, 0, 0, 4)))
        return [Padding(p, (0, 0, 0, indent)) for p in parts]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Text(self.edition, STYLES["muted"])
        yield from self._entry(self.rule, 0)
        depth = self.rule.number.count(".")
        for r in self.below:
            indent = 2 * (r.number.count(".") - depth) + (2 if r.kind == "subrule" else 0)
            if self.rule.kind in ("chapter", "section"):
                yield from self._listing(r)
            else:
                yield from self._entry(r, min(indent, 2))
        cites = []
        for r in [self.rule, *self.below]:
            for ref in r.refs:
                if ref.label not in cites and ref.first != r.number:
                    cites.append(ref.label)
        footer = Text()
        if cites:
            footer.append("Cites: ", STYLES["muted"])
            footer.append(", ".join(cites), STYLES["ref"])
        if self.cited_by:
            if footer:
                footer.append("\n")
            rules = [c for c in self.cited_by if not c.startswith("glossary:")]
            terms = [c.split(":", 1)[1] for c in self.cited_by if c.startswith("glossary:")]
            footer.append(f"Cited by {len(rules)} rules", STYLES["muted"])
            if rules:
                footer.append(": ", STYLES["muted"])
                footer.append(", ".join(rules[:12]) + (", …" if len(rules) > 12 else ""), STYLES["ref"])
            if terms:
                footer.append(f"; glossary: {', '.join(terms)}", STYLES["muted"])
        if footer:
            yield Text()
            yield footer

    def _listing(self, r: Rule) -> list:
        """One line per rule of a section (or section of a chapter)."""
        line = Text("  " + r.number + " ", STYLES["number"])
        first = r.title or r.text.split("\n")[0]
        line.append(first if len(first) <= 100 else first[:99] + "…")
        return [line]


def editions_table(editions: list[EditionInfo]) -> Table:
    table = Table(box=None, header_style="bold", pad_edge=False)
    for name, justify in [
        ("edition", "left"), ("lang", "left"), ("effective", "left"), ("source", "left"),
        ("sections", "right"), ("rules", "right"), ("subrules", "right"),
        ("examples", "right"), ("glossary", "right"), ("refs resolved", "right"),
    ]:
        table.add_column(name, justify=justify, no_wrap=name in ("edition", "effective"))
    for e in editions:
        c = e.counts
        table.add_row(
            e.id + (" (partial)" if e.partial else ""),
            e.lang,
            e.date.isoformat(),
            e.source,
            str(c["sections"]),
            str(c["rules"]),
            str(c["subrules"]),
            str(c["examples"]),
            str(c["glossary"]),
            f"{c['refs_resolved']}/{c['refs']}",
        )
    return table


def console(stderr: bool = False) -> Console:
    return Console(stderr=stderr, highlight=False)


def group(*items) -> Group:
    return Group(*items)
