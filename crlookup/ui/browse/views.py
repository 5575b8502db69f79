"""What the browser shows, made from the API's results: a place (a rule, a glossary term, a
card) as a rich view with its links, the labels of the result lists, and the option ids that
stand for places ("rule:EDITION:NUMBER", "glossary:EDITION:TERM", "card:NAME")."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from rich.style import Style
from rich.text import Text
from textual.widgets.option_list import Option

from crlookup.core import numbers
from crlookup.core.documents import document_of, label
from crlookup.core.errors import BadInput, NotFound
from crlookup.core.i18n import _
from crlookup.ui.render.card import CardView
from crlookup.ui.render.rule import ParallelView, RuleView
from crlookup.ui.render.text import GlossaryTerms, group

if TYPE_CHECKING:
    from rich.console import RenderableType

    from crlookup.api import Library

#: the languages shown side by side, in the order `l` goes through them
MODES = (("en",), ("en", "ru"), ("en", "zh"), ("en", "pl"))
_NUMBER = re.compile(r"(?<![\w.])\d{3}(?:\.\d+[a-z]*)?(?![\w])")
LABEL = 28  # characters of a result's label (the list is 32 columns wide)


class Place(NamedTuple):
    """What the rule pane shows: an entry of an edition, a glossary term, or a card."""

    kind: str  # "rule", "glossary", "card"
    edition: str
    key: str  # the entry's number, the term, the card's name


def place_of(option_id: str | None, edition: str) -> Place | None:
    """The place a result or a link stands for (a card, or a rule without an edition: in
    `edition`)."""
    if not option_id:
        return None
    kind, _sep, rest = option_id.partition(":")
    if kind == "rule":
        named, _sep, number = rest.rpartition(":")
        return Place("rule", named or edition, number)
    if kind == "glossary":
        named, _sep, term = rest.partition(":")
        return Place("glossary", named, term)
    if kind == "card":
        return Place("card", edition, rest)
    return None


def langs_label(mode: int) -> str:
    """The languages shown side by side in `mode`: "EN", "EN+RU"…"""
    return "+".join(x.upper() for x in MODES[mode])


# ------------------------------------------------------------------------ labels of the lists


def one_line(label: Text, width: int = LABEL) -> Text:
    """A result's label on one line: cut with an ellipsis to fit the list."""
    if len(label) > width:
        label.truncate(width - 1)
        label.append("…")
    return label


def rule_label(number: str, text: str) -> Text:
    label = Text(number + " ", "bold cyan")
    label.append(" ".join(text.split())[:60])
    return one_line(label)


def rule_option(edition: str, rule) -> Option:
    return Option(
        rule_label(rule.number, rule.title or rule.text), id=f"rule:{edition}:{rule.number}"
    )


def hit_option(hit) -> Option:
    """A search hit: a glossary entry, or an entry of the rules."""
    if hit.kind == "glossary":
        return Option(
            one_line(Text.assemble(("glossary ", "green"), hit.title)),
            id=f"glossary:{hit.edition}:{hit.title}",
        )
    return Option(
        rule_label(hit.number, hit.title or hit.text), id=f"rule:{hit.edition}:{hit.number}"
    )


def card_option(name: str) -> Option:
    return Option(one_line(Text.assemble(("card ", "magenta"), name)), id=f"card:{name}")


def answer_option(answer, own: tuple[str, ...] = ()) -> Option:
    """An answer of `ask`: the rule (a tournament document's with its prefix: "IPG 2.1"),
    and on a second line what sets it apart from the other answers (`own`, of
    `Asked.reasons`), else the words of it that decide the question."""
    document = document_of(answer.edition)
    number = answer.number if document == "cr" else label(document, answer.number)
    label_ = one_line(
        Text.assemble(
            ("ask ", "yellow"),
            (number + " ", "bold cyan"),
            " ".join((answer.title or answer.text).split()),
        )
    )
    why = "; ".join(own[:2]) or answer.deciding
    if why:
        label_.append("\n")
        label_.append_text(one_line(Text("  " + why, "dim")))
    return Option(label_, id=f"rule:{answer.edition}:{answer.number}")


def distinct(options) -> list[Option]:
    """The options with the first of each id (a rule both cited and citing is listed once)."""
    first: dict = {}
    for option in options:
        first.setdefault(option.id, option)
    return list(first.values())


# ------------------------------------------------------------------------ the rule pane


class Linked:
    """A rich view whose rule numbers are links (a click runs `app.follow(number)`)."""

    def __init__(self, view):
        self.view = view

    def __rich_console__(self, console, options):
        # two columns to spare: the pane's scrollbar may take them after the text is laid out
        options = options.update_width(max(10, options.max_width - 2))
        for line in console.render_lines(self.view, options, pad=False):
            text = Text()
            for segment in line:
                text.append(segment.text, segment.style)
            for m in _NUMBER.finditer(text.plain):
                text.stylize(
                    Style(underline=True, meta={"@click": f"app.follow({m.group()!r})"}),
                    m.start(),
                    m.end(),
                )
            text.rstrip()
            text.no_wrap, text.overflow = True, "crop"  # laid out already, at this width
            yield text


def place_view(lib: Library, place: Place, mode: int) -> tuple[RenderableType, list[Option]]:
    """What the rule pane shows for `place` (in the languages of `mode`), and its links."""
    if place.kind == "rule":
        return rule_view(lib, place, MODES[mode])
    if place.kind == "glossary":
        return glossary_view(lib, place)
    return card_view(lib, place)


def rule_view(lib: Library, place: Place, langs: tuple[str, ...]):
    """A rule with its subrules (beside the other language's, for two `langs`); its links:
    what it cites (→), what cites it (←)."""
    try:
        found = lib.rule(place.key, place.edition)
    except NotFound as e:
        return Text(
            str(e) + _("; nearest: {numbers}").format(numbers=", ".join(e.suggestions)),
            "yellow",
        ), []
    rule, below, cited_by = found.rule, list(found.below), list(found.cited_by)
    links = [
        Option(Text.assemble(("→ ", "dim"), (n, "cyan")), id=_link(lib, place.edition, n))
        for n in lib.cites(place.edition, rule.number)
    ]
    links += [
        Option(
            Text.assemble(
                ("← ", "dim"),
                (
                    n.replace("glossary:", ""),
                    "cyan" if not n.startswith("glossary:") else "green",
                ),
            ),
            id=(
                f"glossary:{place.edition}:{n[9:]}"
                if n.startswith("glossary:")
                else _link(lib, place.edition, n)
            ),
        )
        for n in cited_by
    ]
    if found.document != "cr":  # a tournament document's entry: no other language, no chapter
        entry = RuleView(place.edition, rule, below, cited_by=cited_by, document=found.document)
        return entry, links
    heading = _heading(lib, place.edition, rule.number)
    if len(langs) > 1 and lib.edition(place.edition).lang == "en":
        found_there = lib.parallel(rule.number, (langs[0], langs[1]), place.edition)
        view = ParallelView(list(found_there.langs), list(found_there.pairs))
        return group(heading, view), links
    terms = GlossaryTerms(lib.headwords(place.edition))
    return group(
        heading, RuleView(place.edition, rule, below, cited_by=cited_by, terms=terms)
    ), links


def _link(lib: Library, edition: str, number: str) -> str:
    """The option id of a cited entry: of `edition`, or of another document's newest edition
    ("IPG 2.1", "CR 603.3b", "MTR 4.3")."""
    if " " in number:
        try:
            there, rule = lib.entry(number)
        except (NotFound, BadInput):
            return f"rule:{edition}:{number}"
        return f"rule:{there}:{rule.number}"
    return f"rule:{edition}:{number}"


def _heading(lib: Library, edition: str, number: str) -> Text:
    """The chapter and section a rule sits in."""
    parts = []
    n = numbers.parse(number)
    for up in (str(n.chapter), str(n.section) if n.section >= 10 else None):
        if up and up != number:
            entry = lib.get(edition, up)
            if entry is not None:
                parts.append(f"{up}. {entry.title}")
    return Text(" › ".join(parts), "dim")


def glossary_view(lib: Library, place: Place):
    """A glossary term's definition; its links: the rules it names."""
    entry = lib.glossary_term(place.edition, place.key)
    view = (
        Text(place.key)
        if entry is None
        else Text.assemble((entry.term + "\n", "bold"), entry.definition)
    )
    links = [
        Option(Text(t, "cyan"), id=f"rule:{place.edition}:{t}")
        for t in dict.fromkeys(x for ref in (entry.refs if entry else ()) for x in ref.targets)
    ]
    return view, links


def card_view(lib: Library, place: Place):
    """A card's Oracle text and the rules behind it; its links: those rules."""
    try:
        found = lib.card(place.key, place.edition)
    except (NotFound, BadInput) as e:
        return Text(str(e), "yellow"), []
    if found.card is None:  # several cards fit the name as well
        return Text(place.key), []
    card_links = list(found.links)
    links = [
        Option(
            Text.assemble((link.number + " ", "cyan"), link.name),
            id=f"rule:{place.edition}:{link.number}",
        )
        for link in card_links
        if link.number
    ]
    return CardView(found.card, card_links, place.edition), links


def in_edition(lib: Library, place: Place, edition: str) -> tuple[Place, str | None]:
    """The same place in another edition of its language: a rule followed across
    renumberings (its history). A rule the edition lacks comes with a note saying so (and
    when the rule was there); shown instead is what its rule or section was in that edition,
    else the number itself (the pane then says it is not there, and what is nearest)."""
    if place.kind != "rule":
        return place._replace(edition=edition), None
    steps = _steps(lib, place.key, place.edition)
    number = _number_in(steps, edition)
    if number is not None:
        return Place("rule", edition, number), None
    note = _("{number} is not in {edition}").format(number=place.key, edition=edition)
    when = _when(lib, steps, edition)
    if when:
        note += f" ({when})"
    for up in _ancestors(place.key):
        there = _number_in(_steps(lib, up, place.edition), edition)
        if there is not None:
            instead = (
                _("shown instead: {there}")
                if there == up
                else _("shown instead: {there} ({number} in that edition)")
            )
            note += "; " + instead.format(there=there, number=up)
            return Place("rule", edition, there), note
    return Place("rule", edition, place.key), note


def _steps(lib: Library, number: str, edition: str) -> tuple:
    """The steps of a rule's history (none for what has no history)."""
    try:
        return tuple(lib.history(number, edition).steps)
    except (NotFound, BadInput):
        return ()


def _number_in(steps, edition: str) -> str | None:
    """The rule's number in `edition`, if its history reaches it."""
    return next((s.number for s in steps if s.edition == edition and s.number), None)


def _ancestors(number: str) -> list[str]:
    """The rule and the section a CR subrule or rule sits in ("702.19c": 702.19, 702); none
    for a section, a chapter or a tournament document's entry."""
    try:
        n = numbers.parse(number).parent
    except BadInput:
        return []
    out = []
    while n is not None and n.kind in ("rule", "section"):
        out.append(str(n))
        n = n.parent
    return out


def _when(lib: Library, steps, edition: str) -> str:
    """When a rule an edition lacks was there: it came later, or had gone before; "" if
    neither (its history has a gap there, or none)."""
    order = {e.id: i for i, e in enumerate(lib.editions(lib.edition(edition).document))}
    present = sorted(order[s.edition] for s in steps if s.number and s.edition in order)
    if not present or edition not in order:
        return ""
    ids = list(order)
    if order[edition] < present[0]:
        return _("it first appears in {edition}").format(edition=ids[present[0]])
    if order[edition] > present[-1]:
        return _("it was last in {edition}").format(edition=ids[present[-1]])
    return ""
