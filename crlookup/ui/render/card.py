"""`crlookup card`: a card's faces, the rules behind its words and its rulings; the cards a
name fits."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from crlookup.core.i18n import N_, _, ngettext
from crlookup.ui.render.text import STYLES, hanging, styled

if TYPE_CHECKING:
    from crlookup.features.card_rules import CardLookup

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
# what the "→" under a ruling is (docs/commands/card.md: checked on 100 rulings)
RULES_FOUND = N_(
    "→ the rules found by reading each ruling as a question: a lead, not a citation (the "
    "first is the deciding rule for about one ruling in three)"
)


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
        if self.rulings_unavailable and self.rulings is not None:  # none in the data: why
            return lines + hanging(Text(self.rulings_unavailable, STYLES["muted"]), 2, width)
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
        if any(r.rules for r in self.rulings):
            lines += hanging(Text(_(RULES_FOUND), STYLES["muted"]), 2, width)
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


def lookup(found: CardLookup) -> CardView | CardCandidatesView:
    """`crlookup card`'s answer: the card, its rules and rulings (and what it was found for, if
    the name was misspelt or partial), or the cards that fit the name as well."""
    if found.card is None:  # several fit as well: the user chooses
        return CardCandidatesView(found.found)
    assert found.edition is not None  # (one card found: the rules of an edition behind it)
    note = ""
    if found.found.how in ("fuzzy", "partial"):
        note = _("showing {name} for {query!r}").format(
            name=found.card.name, query=found.found.query
        )
    return CardView(
        found.card,
        list(found.links),
        found.edition,
        note=note,
        rulings=found.rulings,
        rulings_unavailable=found.rulings_unavailable,
    )
