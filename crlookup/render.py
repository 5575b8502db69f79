"""Rich renderables for people: a rule with its subrules, the editions table, notices.

Only the CLI imports this module, and only for output that is not `--json`. Domain objects
never import rich.
"""

from __future__ import annotations

import re

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.table import Table
from rich.text import Text

from crlookup.library import EditionInfo
from crlookup.model import Rule

_NUMBER = re.compile(
    r"(?<![\w.])\d{3}\.\d+[a-z]*(?!\w)|(?<=section )\d\b|(?<=rule )\d{3}\b|(?<=rules )\d{3}\b"
)

# Examples are labelled in the language of the rules they belong to.
EXAMPLE_LABELS = {"en": "Example:", "ru": "Пример:", "pl": "Przykład:"}

_MEASURE = Console(width=80, color_system=None)  # wrapping only measures characters

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


def hanging(text: Text, indent: int, width: int) -> list[Text]:
    """`text` wrapped to `width`, every line indented (no padding after the last word)."""
    lines = text.wrap(_MEASURE, max(20, width - indent))
    out = []
    for line in lines:
        line.rstrip()
        out.append(Text(" " * indent) + line)
    return out


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def ref_label(label: str) -> str:
    """A cited number as the CR writes it: chapter numbers are "section N"."""
    return f"section {label}" if label.isdigit() and len(label) == 1 else label


class RuleView:
    """A rule (or section, or chapter) with the entries below it and its citations."""

    def __init__(
        self,
        edition: str,
        rule: Rule,
        below: list[Rule],
        *,
        cited_by: list[str] | None = None,
    ):
        self.edition = edition
        self.rule = rule
        self.below = below
        self.cited_by = cited_by or []

    def _entry(self, r: Rule, indent: int, width: int) -> list[Text]:
        head = Text(r.number + (" " if r.kind in ("rule", "subrule") else ". "), STYLES["number"])
        if r.kind in ("chapter", "section"):
            return hanging(head + Text(r.title, STYLES["title"]), indent, width)
        lines: list[Text] = []
        for i, paragraph in enumerate(r.text.split("\n")):
            body = with_refs(paragraph)
            if r.title:
                body.stylize(STYLES["title"])
            lines += hanging(head + body if i == 0 else body, indent, width)
        for example in r.examples:
            label = EXAMPLE_LABELS.get(self.edition.split("-")[0], "Example:")
            ex = Text(label + " ", "bold " + STYLES["example"]) + with_refs(example)
            ex.stylize(STYLES["example"])
            lines += hanging(ex, indent + 4, width)
        return lines

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        yield Text(self.edition, STYLES["muted"])
        yield from self._entry(self.rule, 0, width)
        listing = self.rule.kind in ("chapter", "section")
        for r in self.below:
            if listing:
                yield self._listing(r, width)
            else:
                yield from self._entry(r, 2, width)
        yield from self._footer(width)

    def _footer(self, width: int) -> list[Text]:
        shown = {self.rule.number} | {r.number for r in self.below}
        cites: list[str] = []
        for r in [self.rule, *self.below]:
            for ref in r.refs:
                label = ref_label(ref.label)
                if label not in cites and not set(ref.targets or [ref.first]) <= shown:
                    cites.append(label)
        lines: list[Text] = []
        if cites:
            lines += hanging(Text("Cites: ", STYLES["muted"]) + Text(", ".join(cites), STYLES["ref"]), 0, width)
        rules = [c for c in self.cited_by if not c.startswith("glossary:")]
        terms = [c.split(":", 1)[1] for c in self.cited_by if c.startswith("glossary:")]
        if rules:
            shown_rules = ", ".join(rules[:12]) + (", …" if len(rules) > 12 else "")
            line = Text(f"Cited by {plural(len(rules), 'rule')}: ", STYLES["muted"])
            lines += hanging(line + Text(shown_rules, STYLES["ref"]), 0, width)
        if terms:
            line = Text("In the glossary under: ", STYLES["muted"]) + Text(", ".join(terms))
            lines += hanging(line, 0, width)
        return [Text(), *lines] if lines else []

    def _listing(self, r: Rule, width: int) -> Text:
        """One line per rule of a section (or section of a chapter)."""
        line = Text("  " + r.number + " ", STYLES["number"])
        line.append(r.title or r.text.split("\n")[0])
        line.truncate(width, overflow="ellipsis")
        return line


def editions_table(editions: list[EditionInfo]) -> Table:
    """One row per edition: its id (language and effective date) over its source file."""
    table = Table(
        box=None, header_style="bold", pad_edge=False, collapse_padding=True,
        caption_justify="left", caption_style="dim",
        caption="sect: sections · sub: subrules · ex: examples · gloss: glossary terms · "
        "refs: cross-references resolved/total",
    )
    table.add_column("edition · source", no_wrap=True)
    for name in ("sect", "rules", "sub", "ex", "gloss", "refs"):
        table.add_column(name, justify="right", no_wrap=True)
    for e in editions:
        c = e.counts
        head = Text(e.id, "bold")
        if e.partial:
            head.append(" (partial)", "yellow")
        head.append("\n" + e.source, STYLES["muted"])
        table.add_row(
            head,
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
