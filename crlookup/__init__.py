"""crlookup: the Magic: The Gathering Comprehensive Rules, every edition, from the command line."""

__version__ = "0.1.0"


def package_data() -> str:
    """The data shipped with crlookup (the sources, and what `ask` reads): inside the installed
    package, or `data/` of a source checkout."""
    import os

    here = os.path.dirname(os.path.abspath(__file__))
    packaged = os.path.join(here, "data")
    if os.path.exists(os.path.join(packaged, "manifest.json")):
        return packaged
    return os.path.join(os.path.dirname(here), "data")
