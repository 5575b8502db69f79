"""The server's endpoints, one per command: what each reads from the request and the JSON it
answers with, which is exactly what `crlookup <command> --json` prints for the same arguments.

An endpoint's parameters are its command's own (crlookup.ui.options), with their names
(`--all-editions`: `all_editions`), types, limits, defaults and help; its arguments are the
path's parameters (`/v1/rule/{number}`) or named ones (`q`). So a parameter the command line
gains, the server has, and the OpenAPI schema describes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

import click

from crlookup.core.errors import BadInput
from crlookup.core.i18n import N_, _
from crlookup.ui import options
from crlookup.ui.failure import MAX_ARGUMENT, check_argument

if TYPE_CHECKING:
    from crlookup.api import Library

#: The options no endpoint takes: how the command line shows what it prints.
SHOWING = {"brief", "every"}
#: What an endpoint costs (Endpoint.cost): bounded to milliseconds; a search; a slow command.
QUICK, SEARCH, SLOW = "quick", "search", "slow"


class Param(NamedTuple):
    """One parameter of an endpoint: `name` in the request, `dest` the command's own name
    for it, `where` "path" or "query", `option` the click parameter it is read as."""

    name: str
    dest: str
    where: str
    option: click.Parameter
    required: bool
    what: str = ""  # an argument's description (an option's is its help)

    @property
    def help(self) -> str:
        text = getattr(self.option, "help", None) or self.what
        return _(text) if text else f"--{self.name.replace('_', '-')}"


class Endpoint(NamedTuple):
    """`path` answers as `command` does: `answer(library, values)` returns its JSON, what the
    crlookup.api method `method` returns (its first argument the command's argument, its
    options by name). Its `cost` says where it is answered (crlookup.ui.serve.app): QUICK
    ones (a few milliseconds, whatever is asked) on the worker's event loop; a SEARCH (up to
    SEARCH_SECONDS) among the searches, a SLOW one (a question, a diff) among the slow ones,
    each in threads of their own. `options` are the command's (crlookup.ui.options);
    `arguments` names its arguments in the request: {dest: (name, where, what)}."""

    command: str
    path: str
    summary: str
    options: Callable
    arguments: Mapping[str, tuple[str, str, str]]
    method: str
    cost: str = "quick"

    def answer(self, lib: Library, values: dict[str, Any]) -> Any:
        """The command's --json for `values` (as `read` gives them)."""
        given = dict(values)
        first = [given.pop(name) for name in self.arguments if name in given]
        return getattr(lib, self.method)(*first, **given).to_dict()

    @property
    def params(self) -> tuple[Param, ...]:
        out = []
        for p in options.parameters(self.options):
            if not p.expose_value or p.name in SHOWING:
                continue
            if isinstance(p, click.Argument):
                name, where, what = self.arguments[p.name]
                out.append(Param(name, p.name, where, p, True, what))
            elif isinstance(p, click.Option) and not p.hidden:
                name = max(p.opts, key=len).lstrip("-").replace("-", "_")
                out.append(Param(name, p.name, "query", p, False))
        return tuple(out)

    def read(self, path: Mapping[str, str], query: list[tuple[str, str]]) -> dict[str, Any]:
        """The command's values from a request's path and query parameters; `BadInput` for an
        unknown parameter, one given twice, a missing one or a value of the wrong kind."""
        params = _params_of(self)
        by_name = {p.name: p for p in params}
        given: dict[str, str] = {}
        for name, value in query:
            p = by_name.get(name)
            if p is None or p.where != "query":
                known = ", ".join(q.name for q in params if q.where == "query")
                raise BadInput(
                    _("{command}: no parameter {name!r} (it takes: {known})").format(
                        command=self.command, name=name, known=known
                    )
                )
            if name in given:
                raise BadInput(
                    _("{command}: {name} given twice").format(command=self.command, name=name)
                )
            given[name] = value
        given |= {p.name: path[p.name] for p in params if p.where == "path" and p.name in path}
        values: dict[str, Any] = {}
        for p in params:
            raw = given.get(p.name)
            if raw is None:
                if p.required:
                    raise BadInput(
                        _("{command}: expected {name}").format(command=self.command, name=p.name)
                    )
                values[p.dest] = _default(p.option)
                continue
            flag = isinstance(p.option, click.Option) and p.option.is_flag
            check_argument(f"{self.command}: {p.name}", raw or flag * "true")
            values[p.dest] = _converted(self.command, p, raw)
        return values


def _default(option: click.Parameter) -> Any:
    """An option's default as the command receives it: a flag's False, no value's None (click
    8.3 and later keep an unset default as a sentinel of their own)."""
    if isinstance(option, click.Option) and option.is_flag:
        return option.default is True
    default = option.default
    return default if isinstance(default, (str, int, float)) else None


_CONTEXT = click.Context(click.Command("serve"))  # what click's defaults and types are read in


def _converted(command: str, p: Param, raw: str) -> Any:
    option = p.option
    try:
        if isinstance(option, click.Option) and option.is_flag:
            return True if raw == "" else click.BOOL.convert(raw, option, _CONTEXT)
        return option.type.convert(raw, option, _CONTEXT)
    except click.BadParameter as e:
        raise BadInput(f"{command}: {p.name}: {e.format_message()}") from None


_cached: dict[str, tuple[Param, ...]] = {}


def _params_of(endpoint: Endpoint) -> tuple[Param, ...]:
    found = _cached.get(endpoint.path)
    if found is None:
        found = _cached[endpoint.path] = endpoint.params
    return found


ENDPOINTS = (
    Endpoint(
        "rule",
        "/v1/rule/{number}",
        N_("A rule with its subrules, examples and citations"),
        options.RULE,
        {"number": ("number", "path", N_("A rule number: 702.19b, IPG 2.1, MTR C"))},
        "rule",
    ),
    Endpoint(
        "search",
        "/v1/search",
        N_("Rules, examples and glossary entries for words, ranked"),
        options.SEARCH,
        {"words": ("q", "query", N_("The words to search for"))},
        "search",
        cost=SEARCH,
    ),
    Endpoint(
        "define",
        "/v1/define/{term}",
        N_("A glossary term; a keyword's rule"),
        options.DEFINE,
        {"words": ("term", "path", N_("A glossary term or keyword"))},
        "define",
    ),
    Endpoint(
        "refs",
        "/v1/refs/{number}",
        N_("What a rule cites and what cites it"),
        options.REFS,
        {"number": ("number", "path", N_("A rule number"))},
        "refs",
    ),
    Endpoint(
        "diff",
        "/v1/diff",
        N_("What changed between two editions"),
        options.DIFF,
        {
            "old": ("old", "query", N_("The older edition")),
            "new": ("new", "query", N_("The newer edition")),
        },
        "diff",
        cost=SLOW,
    ),
    Endpoint(
        "history",
        "/v1/history/{number}",
        N_("A rule through every edition, across renumberings"),
        options.HISTORY,
        {"number": ("number", "path", N_("A rule number"))},
        "history",
        cost=SLOW,
    ),
    Endpoint(
        "card",
        "/v1/card",
        N_("A card's Oracle text, its rulings and the rules behind it"),
        options.CARD,
        {"words": ("name", "query", N_("A card's name, maybe misspelt or partial"))},
        "card",
        cost=SEARCH,  # (a name no card has: the nearest of 34,565, and then its words)
    ),
    Endpoint(
        "ask",
        "/v1/ask",
        N_("The rules that decide a rules question, best first, and why"),
        options.ASK,
        {"words": ("q", "query", N_("A rules question"))},
        "ask",
        cost=SLOW,
    ),
    Endpoint(
        "editions",
        "/v1/editions",
        N_("The editions in the library"),
        options.EDITIONS,
        {},
        "list_editions",
    ),
)


BY_COMMAND = {e.command: e for e in ENDPOINTS}
LOOKUP = Endpoint(
    "lookup",
    "/v1/lookup",
    N_("Whatever was typed, answered by the command it goes to, as `crlookup <anything>`"),
    options.LOOKUP,
    {"words": ("q", "query", N_("A rule number, a question, a term, a card's name or words"))},
    "route",  # (answered by the endpoint it goes to: `routed`)
    cost=SEARCH,  # (where it goes is found among the searches: a card's name, the words)
)


def routed(lib: Library, words: str, edition: str | None) -> tuple[Endpoint, dict[str, Any]]:
    """The endpoint `crlookup <anything>` goes to for `words` (`Library.route`: a number to
    rule, a question to ask, a term to define, a card's name to card, other words to search,
    or to the card they name loosely if no hit has them all), and its values."""
    text = words.strip()
    route = lib.route(text, edition)
    target = BY_COMMAND[route.command]
    text = route.argument or text
    path: dict[str, str] = {}
    query: list[tuple[str, str]] = [("edition", edition)] if edition else []
    for p in _params_of(target):
        if p.required and p.where == "path":
            path[p.name] = text
        elif p.required:
            query.append((p.name, text))
    values = target.read(path, query)
    if target.command == "search":
        values["or_card"] = True
    return target, values


# ------------------------------------------------------------------ the schema


def _schema(option: click.Parameter) -> dict:
    if isinstance(option, click.Option) and option.is_flag:
        return {"type": "boolean", "default": False}
    kind = option.type
    out: dict[str, Any]
    if isinstance(kind, click.Choice):
        out = {"type": "string", "enum": list(kind.choices)}
    elif isinstance(kind, click.IntRange):
        out = {"type": "integer"}
        if kind.min is not None:
            out["minimum"] = kind.min
        if kind.max is not None:
            out["maximum"] = kind.max
    else:
        out = {"type": "string", "maxLength": MAX_ARGUMENT}
    default = _default(option)
    if default is not None and not isinstance(option, click.Argument):
        out["default"] = default
    return out


_ERROR = {"$ref": "#/components/schemas/Error"}


def _errors(*statuses: tuple[int, str]) -> dict:
    return {
        str(status): {"description": what, "content": {"application/json": {"schema": _ERROR}}}
        for status, what in statuses
    }


COMMON_ERRORS = (
    (400, "Bad input: a value of the wrong kind, an unknown parameter, control characters"),
    (404, "Not found: the error lists the nearest that exist in suggestions"),
    (414, "A parameter of more than 2,000 characters, or a request line of more than 32 KiB"),
    (429, "Too many requests from this client (only if the server sets a rate limit)"),
    (503, "The library is being changed or is damaged, or too many questions wait: try again"),
)


def openapi(version: str) -> dict:
    """The OpenAPI 3.1 description of every endpoint: its parameters (the command's options)
    and its answers (the command's --json, or an error)."""
    paths: dict[str, dict] = {}
    for e in (*ENDPOINTS, LOOKUP):
        command = "<anything>" if e is LOOKUP else e.command
        parameters = [
            {
                "name": p.name,
                "in": p.where,
                "required": p.required,
                "description": p.help,
                "schema": _schema(p.option),
            }
            for p in _params_of(e)
        ]
        paths[e.path] = {
            "get": {
                "operationId": e.command,
                "summary": _(e.summary),
                "description": _("The body is what `crlookup {command} --json` prints.").format(
                    command=command
                ),
                "parameters": parameters,
                "responses": {
                    "200": {
                        "description": _("What `crlookup {command} --json` prints").format(
                            command=command
                        ),
                        "content": {"application/json": {"schema": {}}},
                    }
                }
                | _errors(*COMMON_ERRORS),
            }
        }
    paths["/healthz"] = {
        "get": {
            "operationId": "healthz",
            "summary": "Whether the server answers, and from which library",
            "responses": {
                "200": {
                    "description": "The library in use",
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/Health"}}
                    },
                },
                **_errors((503, "No library can be read")),
            },
        }
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "crlookup",
            "version": version,
            "description": "The Magic: The Gathering Comprehensive Rules, the MTR, IPG and JAR, "
            "and the cards, every edition: each endpoint answers as the crlookup command of its "
            "name does with --json.",
        },
        "paths": paths,
        "components": {
            "schemas": {
                "Error": {
                    "type": "object",
                    "required": ["error", "code", "suggestions"],
                    "properties": {
                        "error": {"type": "string", "description": "the command's one line"},
                        "code": {
                            "type": "integer",
                            "enum": [1, 2],
                            "description": "the command's exit code: 1 not found, 2 bad input",
                        },
                        "suggestions": {
                            "type": "array",
                            "items": {"type": "string"},
                            "description": "the nearest that exist",
                        },
                    },
                },
                "Health": {
                    "type": "object",
                    "properties": {
                        "ok": {"type": "boolean"},
                        "library": {"type": "string"},
                        "editions": {"type": "integer"},
                        "version": {"type": "string"},
                    },
                },
            }
        },
    }
