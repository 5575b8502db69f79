"""crlookup: the Magic: The Gathering Comprehensive Rules, every edition, from the command line
and from Python.

    import crlookup

    lib = crlookup.open()                 # builds the library on first use
    rule = lib.rule("702.19")             # trample, its subrules, what cites it
    print(rule.rule.title, [r.number for r in rule.below])
    found = lib.search("deathtuch")       # corrected to deathtouch
    changes = lib.diff("en-2024-07-30", "en-2026-08-07", section="702")
    story = lib.history("702.2")
    asked = lib.ask("Can my Giant Spider block Serra Angel?")
    card = lib.card("Giant Spider")
    card.to_dict()                        # what `crlookup card "Giant Spider" --json` prints

Every result's `to_dict()` is the `--json` of its command. Errors are crlookup.errors:
`except crlookup.CrlookupError` catches them all (`NotFound` has `suggestions`).
Names are imported when first used: `import crlookup` itself loads nothing else.
"""

from crlookup.version import __version__

__all__ = [
    "Asked",
    "BadInput",
    "CardLookup",
    "Citations",
    "CrlookupError",
    "Definitions",
    "EditionDiff",
    "History",
    "Library",
    "NotFound",
    "Parallel",
    "RuleLookup",
    "Search",
    "__version__",
    "open",
]

# name -> the module that defines it: the library and its errors, then each method's result
_LAZY = {
    "open": "crlookup.api",
    "Library": "crlookup.api",
    "CrlookupError": "crlookup.core.errors",
    "NotFound": "crlookup.core.errors",
    "BadInput": "crlookup.core.errors",
    "RuleLookup": "crlookup.library.reader",
    "Citations": "crlookup.features.refs",
    "Parallel": "crlookup.bilingual",
    "Search": "crlookup.features.search",
    "Definitions": "crlookup.features.definitions",
    "EditionDiff": "crlookup.features.diff",
    "History": "crlookup.features.history",
    "Asked": "crlookup.features.ask",
    "CardLookup": "crlookup.features.card_rules",
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'crlookup' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
