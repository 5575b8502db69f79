"""`crlookup ask`: the answers, with what sets each apart (and --brief: a line each)."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from crlookup.core.i18n import _
from crlookup.ui.render.text import STYLES, copying, hanging, styled, with_refs

BRIEF_WORDS = 12  # an answer's first words, where it has no title or deciding words (ask --brief)


class AnswersView:
    """`ask`: how the question was read and the reasons most answers share, then each answer
    with its text and what sets it apart (crlookup.features.ask.Asked.reasons)."""

    def __init__(self, asked):
        self.asked = asked

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        if self.asked.read_as:
            yield from hanging(
                styled(
                    (_("Read as: "), STYLES["muted"]), ("; ".join(self.asked.read_as), "italic")
                ),
                0,
                width,
            )
        told = self.asked.reasons()
        if told.shared:
            shared = _("All answers: ") if told.everywhere else _("Most answers: ")
            yield from hanging(
                styled((shared, STYLES["muted"]), ("; ".join(told.shared), STYLES["muted"])),
                0,
                width,
            )
        from crlookup.core.documents import document_of, label

        for i, (a, own) in enumerate(zip(self.asked.answers, told.own), 1):
            yield Text()
            document = document_of(a.edition)
            text = a.text
            if document != "cr":  # a tournament entry: its label, and its first paragraph
                text = text.split("\n")[0] + (" …" if "\n" in text else "")
            yield styled(
                (f"{i}. ", STYLES["muted"]),
                (a.number if document == "cr" else label(document, a.number), STYLES["number"]),
                (" " + a.title if a.title else "", STYLES["title"]),
                (f"  {a.edition}", STYLES["muted"]),
            )
            yield from hanging(with_refs(text), 3, width)
            twin = self.asked.beside[i - 1] if self.asked.beside else None
            if twin:  # --parallel: the counterpart, below
                edition, rule = twin
                yield from hanging(
                    styled((f"{rule.number}  {edition}  ", STYLES["muted"]), (rule.text, "")),
                    3,
                    width,
                )
            for reason in own:
                yield from hanging(Text("· " + reason, STYLES["muted"]), 3, width)


class BriefAnswersView:
    """`ask --brief`: one line per answer: its place, number, title (or first words) and the
    words of its text that decide the question; cut to the width on a terminal, whole
    otherwise."""

    def __init__(self, asked):
        self.asked = asked

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from crlookup.core.documents import document_of, label

        for i, a in enumerate(self.asked.answers, 1):
            document = document_of(a.edition)
            words = " ".join(a.text.split()[:BRIEF_WORDS]) + (
                " …" if len(a.text.split()) > BRIEF_WORDS else ""
            )
            line = styled(
                (f"{i}. ", STYLES["muted"]),
                (a.number if document == "cr" else label(document, a.number), STYLES["number"]),
                (" " + (a.title or words), STYLES["title"]),
                (": " + (a.deciding or words) if a.title or a.deciding else "", ""),
            )
            if not copying(options):  # a terminal (or one asked for: CRLOOKUP_WIDTH)
                line.truncate(options.max_width, overflow="ellipsis")
            yield line
