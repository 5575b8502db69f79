"""What every view shares: styles, rule numbers and glossary terms marked in text, wrapping
(Chinese between characters), snippets, word diffs, and the console output goes to: as wide as
the terminal, or unwrapped for a pipe."""

from __future__ import annotations

import os
import re
import sys

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.text import Text

_NUMBER = re.compile(
    r"(?<![\w.])\d{3}\.\d+[a-z]*(?!\w)|(?<=section )\d\b|(?<=rule )\d{3}\b|(?<=rules )\d{3}\b"
)

# Examples are labelled in the language of the rules they belong to.
EXAMPLE_LABELS = {"en": "Example:", "ru": "Пример:", "pl": "Przykład:", "zh": "例如："}


def spaced(label: str) -> str:
    """A label and the space after it (none after a full-width colon: "例如：")."""
    return label if label.endswith("：") else label + " "


_MEASURE = Console(width=80, color_system=None)  # wrapping only measures characters

STYLES = {
    "number": "bold cyan",
    "ref": "cyan",
    "title": "bold",
    "example": "italic",
    "muted": "dim",
}


def styled(*parts: tuple[str | Text, str]) -> Text:
    """Text from (text, style) pieces; each piece keeps its own style and only its own."""
    out = Text()
    for piece, style in parts:
        if isinstance(piece, Text):
            piece.stylize(style)
            out.append_text(piece)
        else:
            out.append(piece, style)
    return out


def with_refs(text: str) -> Text:
    """Text with rule numbers (cross-references) highlighted."""
    t = Text(text)
    t.highlight_regex(_NUMBER, STYLES["ref"])
    return t


_WORDS = re.compile(r"[^\W_]+(?:[-’'][^\W_]+)*")


class GlossaryTerms:
    """Finds glossary terms (of up to four words) in text, to set them in bold."""

    def __init__(self, headwords):
        self.terms = {" ".join(h.casefold().split()) for h in headwords if len(h) > 2}
        self.longest = max((t.count(" ") + 1 for t in self.terms), default=0)

    def mark(self, text: Text, seen: set[str]) -> None:
        """Bold the first occurrence (not in `seen`) of each term in `text`."""
        words = [(m.start(), m.end(), m.group().casefold()) for m in _WORDS.finditer(text.plain)]
        i = 0
        while i < len(words):
            for n in range(min(self.longest, len(words) - i), 0, -1):
                phrase = " ".join(w for _, _, w in words[i : i + n])
                candidates = (phrase, phrase[:-1] if phrase.endswith("s") else phrase)
                term = next((c for c in candidates if c in self.terms), None)
                if term:
                    if term not in seen:
                        seen.add(term)
                        text.stylize("bold", words[i][0], words[i + n - 1][1])
                    i += n
                    break
            else:
                i += 1


# Chinese punctuation that stays with the character before it, or after it, when lines break
_CLOSING = set("，。、；：？！）」』”’》…")
_OPENING = set("（「『“‘《")


def wrap(text: Text, width: int) -> list[Text]:
    """`text` wrapped to `width` cells: at spaces, and in Chinese between any two characters
    (it has no spaces to break at; rich breaks only at spaces), punctuation kept with its
    character."""
    from crlookup.core.chinese import has_chinese

    if not has_chinese(text.plain):
        return list(text.wrap(_MEASURE, width))
    from rich.cells import cell_len

    out: list[Text] = []
    for paragraph in text.split("\n", allow_blank=True):
        plain, breaks, used = paragraph.plain, [], 0
        for a, b in _units(plain):
            if used and used + cell_len(plain[a:b].rstrip()) > width:
                breaks.append(a)
                used = 0
            used += cell_len(plain[a:b])
        for line in paragraph.divide(breaks):
            line.rstrip()
            out.append(line)
    return out


def _units(plain: str) -> list[tuple[int, int]]:
    """Where a line may break: a word of letters with the spaces after it, or one Chinese
    character with the closing punctuation after it (and the opening before it)."""
    from crlookup.core.chinese import HAN

    units: list[tuple[int, int]] = []
    i = 0
    while i < len(plain):
        j = i
        while j < len(plain) and plain[j] in _OPENING:
            j += 1
        if j < len(plain) and HAN.match(plain[j]):
            j += 1
        else:
            while j < len(plain) and not (plain[j].isspace() or HAN.match(plain[j])):
                j += 1
        while j < len(plain) and (plain[j] in _CLOSING or plain[j].isspace()):
            j += 1
        j = max(j, i + 1)
        units.append((i, j))
        i = j
    return units


class Wrapped:
    """A text that wraps as `wrap` does, wherever it is laid out (a column of a table)."""

    def __init__(self, text: Text):
        self.text = text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield from wrap(self.text, options.max_width)

    def __rich_measure__(self, console: Console, options: ConsoleOptions):
        from rich.measure import Measurement

        return Measurement.get(console, options, self.text)


def hanging(text: Text, indent: int, width: int) -> list[Text]:
    """`text` wrapped to `width`, every line indented (no padding after the last word)."""
    lines = wrap(text, max(20, width - indent))
    out = []
    for line in lines:
        line.rstrip()
        out.append(Text(" " * indent) + line)
    return out


def marked(snippet: str) -> Text:
    """A snippet whose matched words are between \x01 and \x02, with those words highlighted."""
    t = Text()
    for i, part in enumerate(re.split("[\x01\x02]", snippet)):
        t.append(part, "bold reverse" if i % 2 else "")
    return t


#: The width output is laid out at when it is not shown on a terminal: wide enough that
#: nothing is wrapped or cut, so each paragraph is one line (`copying`).
UNWRAPPED = 100_000


def console(stderr: bool = False, color: str = "auto") -> Console:
    """The console output goes to. On a terminal: its width, and colour unless `color` is
    "never" or NO_COLOR is set (then no styles at all, bold included). Elsewhere (a file, a
    pipe): no colour unless `color` is "always", and nothing wrapped (`UNWRAPPED`)."""
    stream = sys.stderr if stderr else sys.stdout
    terminal = stream.isatty()
    width = terminal_width(stream) if terminal else laid_out_width()
    if color == "always":
        return Console(stderr=stderr, highlight=False, force_terminal=True, width=width)
    plain = color == "never" or bool(os.environ.get("NO_COLOR")) or not terminal
    return Console(
        stderr=stderr, highlight=False, color_system=None if plain else "auto", width=width
    )


def terminal_width(stream) -> int | None:
    """The width of a terminal: rich's (COLUMNS, else the terminal's own), unless COLUMNS is
    one no text fits ("0", "5"): then the terminal's own, else 80."""
    columns = os.environ.get("COLUMNS")
    if columns is None or (columns.isdigit() and int(columns) >= 20):
        return None
    try:
        size = os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError, AttributeError):
        size = 0
    return size if size >= 20 else 80


def laid_out_width() -> int:
    """The width of output that is not shown on a terminal: `UNWRAPPED`, unless
    CRLOOKUP_WIDTH asks for a terminal's layout (the documentation's examples: 80)."""
    asked = os.environ.get("CRLOOKUP_WIDTH", "")
    return int(asked) if asked.isdigit() and 20 <= int(asked) < UNWRAPPED else UNWRAPPED


_TRAILING = re.compile(r"[ \t]+((?:\x1b\[[0-9;]*m)*)$", re.MULTILINE)


def without_trailing_spaces(text: str) -> str:
    """Rendered text without the spaces rich pads lines with (before any closing styles)."""
    return _TRAILING.sub(r"\1", text)


def copying(options: ConsoleOptions) -> bool:
    """Whether the output is laid out for copying (not a terminal): one line per paragraph."""
    return options.max_width >= UNWRAPPED


def group(*items) -> Group:
    return Group(*items)


def diff_text(ops, context: int | None = None) -> Text:
    """A word diff (crlookup.core.alignment.word_diff) as text: removed words [-struck through-] in
    red, {+inserted ones+} green (the marks show the change without colour too). With
    `context`, unchanged words further than that from a change are left out ("…")."""
    out = Text()
    ops = list(ops)
    for i, (op, words) in enumerate(ops):
        if context is not None and op == "=":
            words = _around(words.split(), context, first=i == 0, last=i == len(ops) - 1)
        if out:
            out.append(" ")
        if op == "-":
            out.append("[-" + words + "-]", "red strike")
        elif op == "+":
            out.append("{+" + words + "+}", "green")
        else:
            out.append(words)
    return out


def _around(words: list[str], context: int, first: bool, last: bool) -> str:
    """Unchanged words between changes: `context` of them next to each change."""
    head = [] if first else words[:context]
    tail = [] if last else words[-context:]
    if len(words) <= len(head) + len(tail) + 1:
        return " ".join(words)
    return " ".join([*head, "…", *tail])
