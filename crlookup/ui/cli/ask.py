"""`crlookup ask`: the rules that decide a question, best first, and why
(docs/commands/ask.md)."""

from __future__ import annotations

from crlookup.core.errors import NOT_FOUND
from crlookup.core.i18n import _
from crlookup.ui import options
from crlookup.ui.cli.command import (
    Failure,
    command,
    emit_json,
    json_option,
    open_library,
    pager_option,
    short,
    show,
)


@command()
@options.ASK
@json_option
@pager_option
def ask(
    words: tuple[str, ...],
    edition: str | None,
    lang: str | None,
    parallel: str | None,
    limit: int,
    brief: bool,
    as_json: bool,
    pager: bool,
):
    """Answer a rules question with the rules that decide it, best first, and why.

    The question is read for keyword abilities and actions, glossary terms, card types,
    zones, steps and counters (misspellings and word forms too); questions in English,
    Russian or Chinese (read through the English rules). Answers come from the newest edition
    unless --edition says otherwise; --parallel en puts the English beside each. Each answer
    says what sets it apart; what most of them share is said once, above them.

    Example: crlookup ask "Can I activate two loyalty abilities of a planeswalker in one turn?"
    """
    question = " ".join(words)
    lib = open_library(as_json)
    asked = lib.ask(question, edition=edition, lang=lang, limit=limit, parallel=parallel)
    if as_json:
        emit_json(asked.to_dict())
    else:
        from crlookup.ui.render import ask as views

        show(views.BriefAnswersView(asked) if brief else views.AnswersView(asked), pager)
    if not asked.answers:
        raise Failure(
            _("no rule matches the question {question!r}").format(question=short(question.strip())),
            NOT_FOUND,
        )
