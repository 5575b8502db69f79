"""`crlookup rule`: a rule with its subrules, examples and citations (docs/commands/rule.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from crlookup.ui import options
from crlookup.ui.cli.command import (
    command,
    emit_json,
    json_option,
    open_library,
    pager_option,
    show,
)

if TYPE_CHECKING:
    from crlookup.bilingual import Parallel
    from crlookup.library.reader import RuleLookup


@command()
@options.RULE
@json_option
@pager_option
def rule(
    number: str,
    edition: str | None,
    lang: str | None,
    parallel: str | None,
    annotations: bool,
    cite: bool,
    as_json: bool,
    pager: bool,
):
    """Show a rule with its subrules, examples and citations.

    NUMBER is a section (702), a rule (702.19) or a subrule (702.19b); a trailing period
    (702.19.) shows the rule alone, without its subrules. The judge's other rulebooks are
    named before the number: "IPG 2.1", "MTR 3.1", "MTR C" (an appendix), "JAR extra cards"
    (a JAR case by its title); "CR 702.19b" is the same as 702.19b.

    Example: crlookup rule 702.19b
    """
    lib = open_library(as_json)
    found = lib.rule(number, edition, lang, parallel=parallel, annotations=annotations, cite=cite)
    if as_json:
        emit_json(found.to_dict())
        return
    from crlookup.ui.render import rule as views

    if parallel:  # (the rule beside its counterparts)
        show(views.parallel(cast("Parallel", found)), pager)
        return
    looked_up = cast("RuleLookup", found)
    show(views.lookup(looked_up, lib.headwords(looked_up.edition)), pager)
