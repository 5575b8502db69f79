"""`crlookup doctor` and `crlookup rebuild`: the library checked, and built again
(docs/commands/doctor.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from crlookup import api
from crlookup.core.errors import NOT_FOUND
from crlookup.core.i18n import _, ngettext
from crlookup.ui.cli.command import BuildProgress, Failure, command, emit_json, json_option

if TYPE_CHECKING:
    import click
else:
    from crlookup.ui import click


@command()
@json_option
def rebuild(as_json: bool):
    """Build the library again from its sources: the shipped editions and your own.

    Nothing of the current library is reused, so this mends a damaged one. The editions you
    added (ingest, update) are kept: their files are in the library home. Like every build,
    it is atomic: until it is done, commands answer from the current library.

    Example: crlookup rebuild
    """
    with BuildProgress(plain=as_json, rebuilding=True) as progress:
        done = api.rebuild(progress=progress)
    if as_json:
        emit_json(done.to_dict())
        return
    if done.by_another:
        click.echo(
            _(
                "another rebuild, under way when this one began, made {path}: nothing left to do"
            ).format(path=done.path)
        )
        return
    click.echo(
        ngettext(
            "rebuilt {path}: {count} edition ({yours} of them yours)",
            "rebuilt {path}: {count} editions ({yours} of them yours)",
            done.editions,
        ).format(path=done.path, count=done.editions, yours=len(done.yours))
    )


@command()
@json_option
def doctor(as_json: bool):
    """Check every part of the library: its database, each language's index, the cards, what
    ask reads. Exit code 1 if something is damaged (then: crlookup rebuild).

    Example: crlookup doctor
    """
    found = api.doctor()
    if as_json:
        emit_json(found.to_dict())
    else:
        click.echo(found.path)
        for f in found.parts:
            click.echo(f"  {f.part:<28} {f.damage or _('ok')}")
        for f in found.damaged_shipped:
            click.echo(f"  {f.path}  {f.damage}")
        if found.shipped and not found.damaged_shipped:
            files = ngettext("{count} file", "{count} files", len(found.shipped)).format(
                count=len(found.shipped)
            )
            label = _("package data ({files})").format(files=files)
            click.echo(f"  {label:<28} {_('ok')}")
        if found.pending:
            state = (
                _("{count} could not be added: {reason}").format(
                    count=found.pending, reason=found.pending_error
                )
                if found.pending_error
                else _("{count} being added in the background").format(count=found.pending)
            )
            click.echo(f"  {_('older editions'):<28} {state}")
    problem = found.problem()
    if problem:
        raise Failure(problem, NOT_FOUND)
