"""Rich renderables for people: a rule with its subrules, a card with its rules, the editions
table, notices.

Only the CLI imports this module, and only for output that is not `--json`. Domain objects
never import rich.
"""

from __future__ import annotations

import os
import re
import sys

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.text import Text

from crlookup.core.i18n import N_, _, ngettext
from crlookup.core.model import Rule
from crlookup.core.numbers import ref_label
from crlookup.library.reader import EditionInfo

_NUMBER = re.compile(
    r"(?<![\w.])\d{3}\.\d+[a-z]*(?!\w)|(?<=section )\d\b|(?<=rule )\d{3}\b|(?<=rules )\d{3}\b"
)

# The kinds of change, as the interface names them.
KIND_LABELS = {
    "unchanged": N_("unchanged"),
    "changed": N_("changed"),
    "moved": N_("moved"),
    "split": N_("split"),
    "merged": N_("merged"),
    "removed": N_("removed"),
    "added": N_("added"),
}

# Examples are labelled in the language of the rules they belong to.
EXAMPLE_LABELS = {"en": "Example:", "ru": "Пример:", "pl": "Przykład:", "zh": "例如："}


def _spaced(label: str) -> str:
    """A label and the space after it (none after a full-width colon: "例如：")."""
    return label if label.endswith("：") else label + " "


_MEASURE = Console(width=80, color_system=None)  # wrapping only measures characters
BRIEF_WORDS = 12  # an answer's first words, where it has no title or deciding words (ask --brief)

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
            ex = styled((_spaced(label), "bold"), (with_refs(example), ""))
            ex.stylize(STYLES["example"])
            lines += hanging(ex, indent + 4, width)
        return lines

    def _document_entry(self, r: Rule, indent: int, width: int) -> list[Text]:
        """A tournament document's entry: its label and title, the IPG's penalty, its text,
        examples and other parts, and (asked for) the judges' annotations."""
        from crlookup.core.documents import label

        head = styled((label(self.document, r.number) + " ", STYLES["number"]), (r.title, "bold"))
        lines = hanging(head, indent, width)
        parts = dict(r.parts)
        if parts.get("penalty"):
            lines += hanging(
                styled((_("Penalty: "), STYLES["muted"]), (parts["penalty"], "bold")),
                indent + 2,
                width,
            )
        for paragraph in r.text.split("\n") if r.text else []:
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
            for note in r.annotations:
                lines += hanging(
                    styled((_("Annotation: "), "bold"), (note, "")).copy(), indent + 4, width
                )
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


class DefinitionsView:
    """Glossary definitions, each with the entry it points to and the keyword's rule."""

    def __init__(self, edition: str, found):
        self.edition = edition
        self.found = found

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        yield Text(self.edition, STYLES["muted"])
        if self.found and self.found[0].entry is None and self.found[0].rule is not None:
            yield Text(
                _("not in this glossary; {term} is defined by this rule:").format(
                    term=self.found[0].name
                ),
                "italic yellow",
            )
        elif self.found and self.found[0].score < 100:
            names = ", ".join(d.name for d in self.found)
            yield Text(_("no exact match; closest: {names}").format(names=names), "italic yellow")
        for i, d in enumerate(self.found):
            if i:
                yield Text()
            for entry in (d.entry, d.see):
                if entry is None:
                    continue
                head = styled(
                    (entry.term, STYLES["title"]),
                    (
                        f" ({entry.english})" if entry.english not in ("", entry.term) else "",
                        STYLES["muted"],
                    ),
                    (" " + _("unofficial translation") if entry.unofficial else "", "yellow"),
                )
                yield head
                for paragraph in filter(None, entry.definition.split("\n")):
                    yield from hanging(with_refs(paragraph), 2, width)
            if d.rule is not None:
                view = RuleView(self.edition, d.rule, list(d.subrules))
                yield from view.entries(width)


class RefsView:
    """A rule's citations both ways (crlookup.refs.Citations), one line each."""

    def __init__(self, citations):
        self.citations = citations

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        c = self.citations
        yield Text(c.edition, STYLES["muted"])
        yield styled((c.number + " ", STYLES["number"]), (c.preview, STYLES["title"]))
        for label, items in ((_("cites"), c.cites), (_("cited by"), c.cited_by)):
            yield Text()
            yield Text(f"{label} ({len(items)})", "bold")
            if not items:
                yield Text("  " + _("nothing"), STYLES["muted"])
            for item in items:
                shown = item.number.replace("glossary:", "glossary ")
                via = ""
                if item.via:  # which of the rule's own entries the citation links
                    template = _("from {numbers}") if label == _("cites") else _("cites {numbers}")
                    via = "(" + template.format(numbers=", ".join(item.via)) + ") "
                line = styled(
                    ("  " * item.depth + ref_label(shown) + " ", STYLES["ref"]),
                    (via, STYLES["muted"]),
                    (item.preview, ""),
                )
                line.truncate(width, overflow="ellipsis")
                yield line


class SearchView:
    """A search (crlookup.features.search.Search): what was corrected or widened, then each hit's
    number, edition and title, the snippet with matched words marked, and its counterpart."""

    def __init__(self, search):
        self.search = search

    def notes(self) -> list[str]:
        s, found = self.search, self.search.results
        notes = []
        if found.corrections:
            notes.append(_("showing results for {query}").format(query=found.query))
        if s.widened:
            notes.append(
                _("nothing in {edition}; showing older editions").format(edition=s.widened)
            )
        if found.relaxed and not found.complete:
            notes.append(_("no entry has every word; showing entries with some of them"))
        elif found.relaxed:
            notes.append(
                _("{count} with every word, then entries with some of them").format(
                    count=found.complete
                )
            )
        return notes

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        notes = self.notes()
        for note in notes:
            yield Text(note, "italic yellow")
        from crlookup.core.documents import document_of, label

        s = self.search
        for i, (h, snippet) in enumerate(zip(s.hits, s.snippets)):
            twin = s.counterparts.get(i)
            if i or notes:
                yield Text()
            document = document_of(h.edition)
            number = label(document, h.number) if document != "cr" else h.number
            head = styled(
                (number or "glossary", STYLES["number"]),
                (" " + h.title if h.title else "", STYLES["title"]),
                (f"  {h.edition}", STYLES["muted"]),
            )
            yield head
            plain = snippet.replace("\x01", "").replace("\x02", "").strip("… ")
            if plain and plain != h.title:  # a rule that is only its name says it in the head
                yield from hanging(marked(snippet), 2, width)
            if twin:
                text = twin["title"] if twin["title"] == twin["text"] else twin["text"]
                shown = text if len(text) <= 300 else text[:299] + "…"
                yield from hanging(
                    styled(
                        (f"{twin['edition']} {twin['number'] or twin['title']}: ", STYLES["muted"]),
                        (shown, "italic"),
                    ),
                    4,
                    width,
                )


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


# How a card's rules are labelled, by the kind of link (crlookup.card_rules.Link.kind).
LINK_KINDS = {
    "layout": N_("layout"),
    "keyword": N_("keyword"),
    "ability word": N_("ability word"),
    "flavor word": N_("flavor word"),
    "type": N_("type"),
    "term": N_("term"),
    "symbol": N_("symbol"),
}
_REMINDER = re.compile(r"\([^()]*\)")


class CardView:
    """A card: each face's name, cost, type line, text and P/T or loyalty; its rulings (if
    given: each with its date, newest first, and the rules it applies; or why there are none);
    then the rules behind it, one line each (its number and the rule's first sentence)."""

    def __init__(
        self,
        card,
        links,
        edition: str,
        *,
        note: str = "",
        rulings=None,
        rulings_unavailable: str | None = None,
    ):
        self.card, self.links, self.edition, self.note = card, links, edition, note
        self.rulings, self.rulings_unavailable = rulings, rulings_unavailable

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        card = self.card
        if self.note:
            yield Text(self.note, "italic yellow")
        if len(card.faces) > 1:
            yield styled((card.name, STYLES["title"]), (f"  ({card.layout})", STYLES["muted"]))
        for i, face in enumerate(card.faces):
            if i or len(card.faces) > 1:
                yield Text()
            yield from self._face(face, width)
        facts = []
        if card.melds_into:
            facts.append(_("Melds into {name}.").format(name=card.melds_into))
        if card.alchemy:
            facts.append(_("A digital-only Alchemy version of a card (MTG Arena)."))
        for fact in facts:
            yield Text(fact, STYLES["muted"])
        if self.rulings is not None or self.rulings_unavailable:
            yield Text()
            yield from self._rulings(width)
        yield Text()
        yield styled((_("Rules behind it") + "  ", "bold"), (self.edition, STYLES["muted"]))
        if not self.links:
            yield Text("  " + _("nothing"), STYLES["muted"])
        kinds = [_(LINK_KINDS.get(link.kind, link.kind)) for link in self.links]
        columns = (
            max(map(len, kinds), default=0),
            min(max((len(link.name) for link in self.links), default=0), 22),
            max((len(link.number) for link in self.links), default=1),
        )
        for kind, link in zip(kinds, self.links):
            yield from self._link(kind, link, width, columns)

    def _rulings(self, width: int) -> list[Text]:
        """ "Rulings (Gatherer, ...)", then each ruling: its date, its text (after the face it
        was given under, when a card's rulings name several) and the rules it applies."""
        head = styled(
            (_("Rulings"), "bold"),
            (
                "  ("
                + _("Gatherer, to October 2018; an older ruling may predate a rules change")
                + ")",
                STYLES["muted"],
            ),
        )
        lines = hanging(head, 0, width)
        if self.rulings_unavailable:
            return lines + hanging(
                Text(
                    _("rulings unavailable: {reason}").format(reason=self.rulings_unavailable),
                    "italic yellow",
                ),
                2,
                width,
            )
        if not self.rulings:
            return [*lines, Text("  " + _("none"), STYLES["muted"])]
        # the face a ruling was given under, where it is not plain: a later face's, or one of
        # several faces' rulings ("Turn: ...", "Intervention: ...")
        several = len({r.face for r in self.rulings}) > 1
        front = self.card.faces[0].name
        indent = 14  # "  2018-03-16  "
        for r in self.rulings:
            label = r.face and (several or r.face != front)
            body = hanging(
                styled(
                    (f"{r.face}: " if label else "", STYLES["title"]),
                    (r.text, ""),
                ),
                indent,
                width,
            )
            first = Text(f"  {r.date:<10}  ", STYLES["muted"])
            first.append_text(body[0][indent:])
            lines += [first, *body[1:]]
            if r.rules:
                lines += hanging(
                    styled(("→ ", STYLES["muted"]), (", ".join(r.rules), STYLES["number"])),
                    indent,
                    width,
                )
        return lines

    def _face(self, face, width: int) -> list[Text]:
        head = styled(
            (face.name, STYLES["title"]), (f"  {face.mana_cost}" if face.mana_cost else "", "")
        )
        lines = hanging(head, 0, width)
        if face.missing:
            return lines + hanging(
                Text(_("(its text is not in the card data)"), "italic yellow"), 2, width
            )
        stats = ""
        if face.power is not None or face.toughness is not None:
            stats = f"  {face.power}/{face.toughness}"
        elif face.loyalty is not None:
            stats = "  " + _("loyalty {loyalty}").format(loyalty=face.loyalty)
        if face.type_line or stats:
            lines += hanging(styled((face.type_line, ""), (stats, "bold")), 0, width)
        for paragraph in face.text.split("\n") if face.text else []:
            body = Text(paragraph)
            for m in _REMINDER.finditer(paragraph):
                body.stylize("italic " + STYLES["muted"], m.start(), m.end())
            lines += hanging(body, 2, width)
        return lines

    def _link(self, kind: str, link, width: int, columns: tuple[int, int, int]) -> list[Text]:
        """ "  keyword  Reach   702.17  Reach is a static ability. ...": a keyword's (or ability
        or flavor word's) first sentence wrapped in its column, a type's or term's on one line."""
        kinds, names, numbers = columns
        head = styled(
            (f"  {kind:<{kinds}}  ", STYLES["muted"]),
            (f"{link.name:<{names}}  ", ""),
            (
                f"{link.number or '—':<{numbers}}  ",
                STYLES["number"] if link.number else STYLES["muted"],
            ),
        )
        if link.digital_only:
            about = Text(
                _("digital-only (MTG Arena): no rule in the Comprehensive Rules"), "italic"
            )
        elif not link.number and not link.summary:
            about = Text(_("no rule of this edition names it"), "italic")
        else:
            title = "" if link.title.casefold() == link.name.casefold() else link.title
            about = styled((f"{title}: " if title else "", STYLES["title"]), (link.summary, ""))
        indent = len(head.plain)
        if link.kind not in ("layout", "keyword", "ability word", "flavor word"):
            line = head + about
            line.truncate(width, overflow="ellipsis")
            return [line]
        if indent + 20 > width:  # too narrow for a column: the sentence goes below
            return [head, *hanging(about, 4, width)]
        body = hanging(about, indent, width)
        first = head.copy()
        first.append_text(body[0][indent:])
        return [first, *body[1:]]


class CardCandidatesView:
    """The cards a name fits as well as each other, best first (`crlookup card Teferi`)."""

    def __init__(self, found, *, limit: int = 20):
        self.found, self.limit = found, limit

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        shown = self.found.candidates[: self.limit]
        yield Text(
            ngettext(
                "{query!r} fits {count} card:",
                "{query!r} fits {count} cards:",
                len(self.found.candidates),
            ).format(query=self.found.query, count=len(self.found.candidates)),
            "italic yellow",
        )
        for c in shown:
            line = styled(
                ("  " + c.name, STYLES["title"]),
                (f"  {c.mana_cost}" if c.mana_cost else "", ""),
                (f"  {c.type_line}", STYLES["muted"]),
            )
            line.truncate(width, overflow="ellipsis")
            yield line
        if len(self.found.candidates) > len(shown):
            yield Text(
                _("… and {count} more").format(count=len(self.found.candidates) - len(shown)),
                STYLES["muted"],
            )


class CardSearchView:
    """Cards found by their words: name, cost and type line, then the text around the words
    (and, where one of its rulings has them, that ruling's date and the words around them)."""

    def __init__(self, hits, notes: list[str]):
        self.hits, self.notes = hits, notes

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        for note in self.notes:
            yield Text(note, "italic yellow")
        for i, h in enumerate(self.hits):
            if i or self.notes:
                yield Text()
            head = styled(
                (h.name, STYLES["title"]),
                (f"  {h.mana_cost}" if h.mana_cost else "", ""),
                (f"  {h.type_line}", STYLES["muted"]),
            )
            yield from hanging(head, 0, width)
            if h.snippet.strip():
                yield from hanging(marked(h.snippet.replace("\n", " ")), 2, width)
            if h.ruling is not None:
                label = _("ruling {date}").format(date=h.ruling.date)
                if h.ruling.face:
                    label += f" ({h.ruling.face})"
                line = Text(label + ": ", STYLES["muted"])
                line.append_text(marked(h.ruling.snippet.replace("\n", " ")))
                yield from hanging(line, 2, width)


def marked(snippet: str) -> Text:
    """A snippet whose matched words are between \x01 and \x02, with those words highlighted."""
    t = Text()
    for i, part in enumerate(re.split("[\x01\x02]", snippet)):
        t.append(part, "bold reverse" if i % 2 else "")
    return t


#: how `editions` names the kind of source of an edition (its format)
SOURCE_KINDS = {
    "archive": N_("official"),
    "text": N_("official"),
    "flat": N_("flat text"),
    "webpage": N_("web page"),
    "po": N_("gettext"),
    "markdown": N_("Markdown"),
    "scraped_json": N_("scraped"),
    "tournament_json": N_("JSON"),
    "dokuwiki": N_("annotated wiki"),
    "tournament_pdf": N_("official PDF"),
    "jar_markdown": N_("Markdown"),
}


def editions_table(editions: list[EditionInfo]):
    """One line per edition, in the order they took effect: its id, the date it took effect,
    what kind of source it comes from, and its counts (fits 100 columns)."""
    from rich.table import Table

    table = Table(
        box=None,
        header_style="bold",
        pad_edge=False,
        collapse_padding=True,
        caption_justify="left",
        caption_style="dim",
        caption=_(
            "effective: the date the text states · sect: sections · sub: subrules · "
            "ex: examples · gloss: glossary terms · refs: cross-references "
            "resolved/total · --json names each source file"
        ),
    )
    # at 100 columns every edition is one line; narrower, the source wraps, never the numbers
    table.add_column(
        _("edition"), no_wrap=True, min_width=max((len(e.id) for e in editions), default=13)
    )
    table.add_column(_("effective"), no_wrap=True, min_width=12)
    table.add_column(_("source"))
    for name in (_("sect"), _("rules"), _("sub"), _("ex"), _("gloss"), _("refs")):
        table.add_column(name, justify="right", no_wrap=True, min_width=len(name))
    from babel.dates import format_date

    from crlookup.core.i18n import language

    for e in editions:
        c = e.counts
        head = Text(e.id, "bold")
        day = format_date(e.date, format="medium", locale=language())
        kind = Text(
            _(
                N_("translation")
                if e.format == "archive" and not e.official
                else SOURCE_KINDS.get(e.format, e.format)
            ),
            "" if e.official else STYLES["muted"],
        )
        if e.origin == "user":
            kind.append(" " + _("(yours)"), "green")
        if e.partial:
            kind.append(" " + _("(partial)"), "yellow")
        table.add_row(
            head,
            Text(day, STYLES["muted"] if e.id.endswith(e.date.isoformat()) else "yellow"),
            kind,
            str(c["sections"]),
            str(c["rules"]),
            str(c["subrules"]),
            str(c["examples"]),
            str(c["glossary"]),
            f"{c['refs_resolved']}/{c['refs']}",
        )
    return table


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


class DiffView:
    """Changes between two editions (crlookup.features.diff.EditionDiff), by section; moves as moves;
    text changes word by word."""

    def __init__(self, diff):
        self.diff = diff

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        d = self.diff
        total = d.counts["total"]
        parts = [f"{n} {_(KIND_LABELS[k])}" for k, n in total.items() if n]
        yield Text(f"{d.old} → {d.new}: " + (", ".join(parts) or _("nothing")), "bold")
        quiet = sum(1 for c in d.changes if not c.shown)
        if quiet:
            yield Text(
                _("({count} changed only in quotes, dashes or spacing: not listed)").format(
                    count=quiet
                ),
                STYLES["muted"],
            )
        section = None
        for c in d.changes:
            if not c.shown:
                continue
            sec = (c.match.new or c.match.old).split(".")[0]
            if sec != section:
                section = sec
                yield Text()
                yield styled(
                    (f"{sec} ", STYLES["number"]), (d.titles.get(sec, ""), STYLES["title"])
                )
            yield from self._change(c, width)

    def _change(self, c, width: int) -> list[Text]:
        m = c.match
        label = {
            "moved": f"{m.old} → {m.new}",
            "removed": m.old,
            "added": m.new,
            "split": f"{m.old} → {m.new}",
            "merged": f"{m.old} → {m.new}",
        }.get(m.kind, m.new)
        head = styled((f"  {m.kind} ", "bold"), (label, STYLES["ref"]))
        if m.refs_only:
            head.append("  " + _("only cross-reference numbers changed"), STYLES["muted"])
        elif m.words_added or m.words_removed:
            head.append(f"  +{m.words_added} −{m.words_removed} words", STYLES["muted"])
        lines = [head]
        if c.diff:
            lines += hanging(diff_text(c.diff), 4, width)
        elif c.text:
            lines += hanging(Text(c.text), 4, width)
        return lines


class DiffSummaryView:
    def __init__(self, old: str, new: str, counts: dict):
        self.old, self.new, self.counts = old, new, counts

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.table import Table

        from crlookup.core.alignment import KINDS

        table = Table(
            box=None,
            header_style="bold",
            pad_edge=False,
            collapse_padding=True,
            title=f"{self.old} → {self.new}",
            title_justify="left",
        )
        table.add_column("section")
        for k in KINDS:
            table.add_column(k, justify="right")
        sections = self.counts["sections"]
        changed = {
            sec: c for sec, c in sections.items() if any(c[k] for k in KINDS if k != "unchanged")
        }
        for sec, c in changed.items():
            table.add_row(sec, *(str(c[k]) for k in KINDS))
        table.add_row("total", *(str(self.counts["total"][k]) for k in KINDS), style="bold")
        yield table
        if len(changed) < len(sections):
            yield Text(
                ngettext(
                    "{count} section unchanged (not listed)",
                    "{count} sections unchanged (not listed)",
                    len(sections) - len(changed),
                ).format(count=len(sections) - len(changed)),
                STYLES["muted"],
            )
        yield Text(
            _("{count} of the changed and moved differ only in quotes, dashes or spacing").format(
                count=self.counts["typography_only"]
            ),
            STYLES["muted"],
        )


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


class HistoryView:
    """A rule's timeline (crlookup.history.History), in the order the editions took effect.

    By default, its story: where it first appears, each edition where its words changed (the
    changed words marked), each renumbering, merge and split, its removal, and the edition it
    is in now; for a rule, each edition where its subrules changed (a section's: its rules),
    and which; editions where nothing changed are counted, not listed, and partial editions and
    conversions of an official edition are left out. `every` lists every edition.
    """

    def __init__(self, history, every: bool = False):
        self.rule, self.steps, self.every = history.rule, history.steps, every
        self.heading = "." not in self.rule.number  # a section or chapter: its rules below it

    def _what(self, i: int, s) -> str:
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

    def _below(self, s) -> str:
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
        if self.heading:
            return _("rules {changes}").format(changes=changes)
        return _("subrules {changes}").format(changes=changes)

    def _quiet(self, count: int) -> str:
        """The line for `count` editions where nothing worth a line changed."""
        if not any(s.subrules for s in self.steps):
            return ngettext(
                "… its words unchanged in {count} edition",
                "… its words unchanged in {count} editions",
                count,
            ).format(count=count)
        if self.heading:
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

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        shown = (
            list(enumerate(self.steps))
            if self.every
            else [(i, s) for i, s in enumerate(self.steps) if s.main]
        )
        quiet = 0
        last = len(shown) - 1
        for k, (i, s) in enumerate(shown):
            own = s.noteworthy or k == 0 or k == last  # a line for the entry itself
            if not self.every and not (own or s.subrules):
                quiet += 1
                continue
            if quiet:
                yield Text("    " + self._quiet(quiet), STYLES["muted"])
                quiet = 0
            what = self._what(i, s)
            below = self._below(s) if s.subrules else ""
            if k == last and not s.noteworthy and s.number:
                what = _("in force")
            elif below and not s.noteworthy:  # only its subrules changed: they are the line
                what, below = below, ""
            yield styled(
                (f"{s.date}  ", STYLES["muted"]),
                (f"{s.edition:<22}", ""),
                (s.number or "—", STYLES["number"]),
                (f"  {what}", ""),
            )
            if s.diff:
                yield from hanging(diff_text(s.diff, context=8), 4, width)
            if below:
                yield from hanging(Text(below), 4, width)


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
                styled((_spaced(label), "bold " + STYLES["example"]), (example, STYLES["example"]))
            )
        return t
