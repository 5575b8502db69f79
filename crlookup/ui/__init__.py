"""The front ends: the command line (cli, click), its rich views (render), the interactive
browser (browse, Textual) and the server (serve). Each calls only crlookup.api; `options` are
the commands' options, the command line's and the server's, `failure` how a failed command is
told by both.

`from crlookup.ui import click` is click, imported without two standard modules it would
import for what crlookup never uses (`_import_click`), when it is first asked for.
"""

from __future__ import annotations

import sys
import types
from typing import Any


class _StandIn(types.ModuleType):
    """A module imported for real when a name it lacks is first used."""

    def __getattr__(self, name: str):
        if name.startswith("__"):  # what the import system asks of a module (__path__, ...)
            raise AttributeError(name)
        if sys.modules.get(self.__name__) is self:
            del sys.modules[self.__name__]
        return getattr(__import__(self.__name__), name)


def _cleandoc(doc: str) -> str:
    """inspect.cleandoc, without importing inspect for an option's one-line help."""
    if "\n" in doc or "\t" in doc:
        return __import__("inspect").cleandoc(doc)
    return doc.lstrip()


def _import_click():
    """click, imported without two standard modules it imports for what crlookup never uses:
    `inspect` (with ast, dis, tokenize: ~6 ms), for `cleandoc` of each option's help, and
    `uuid` (with platform: ~2 ms), for the UUID parameter type. While click is imported they
    are stand-ins (as crlookup.library.index does for whoosh), removed right after: any other
    import gets the real module, and so does click, on first use of a name the stand-in lacks."""
    if "click" in sys.modules:
        return sys.modules["click"]
    stand_ins: dict[str, Any] = {}
    if "inspect" not in sys.modules:
        stand_ins["inspect"] = _StandIn("inspect")
        stand_ins["inspect"].cleandoc = _cleandoc
    if "uuid" not in sys.modules:
        stand_ins["uuid"] = _StandIn("uuid")
        stand_ins["uuid"].UUID = type("UUID", (), {})  # click.types: ParamType[uuid.UUID]
    sys.modules.update(stand_ins)
    try:
        import click
    finally:
        for name, stand_in in stand_ins.items():
            if sys.modules.get(name) is stand_in:
                del sys.modules[name]
        if "uuid" in stand_ins:
            del stand_ins["uuid"].UUID  # click's uuid.UUID: the real one from now on
    return click


def __getattr__(name: str):
    if name == "click":
        return _import_click()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
