"""Where things are: the data shipped with crlookup, the sources a library is built from, and
the home the libraries are built into."""

from __future__ import annotations

import os
import sys


def package_data() -> str:
    """The data shipped with crlookup (the sources, and what `ask` reads): inside the installed
    package, or `data/` of a source checkout."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # crlookup/
    packaged = os.path.join(here, "data")
    if os.path.exists(os.path.join(packaged, "manifest.json")):
        return packaged
    return os.path.join(os.path.dirname(here), "data")


def data_dir() -> str:
    """The sources a library is built from: the shipped ones (`package_data`), or the folder
    `CRLOOKUP_DATA` names (with its own manifest.json)."""
    return os.environ.get("CRLOOKUP_DATA") or package_data()


def home() -> str:
    """Where libraries are built: `CRLOOKUP_HOME`, else the per-user cache directory."""
    env = os.environ.get("CRLOOKUP_HOME")
    if env:
        return os.path.expanduser(env)
    user = os.path.expanduser("~")
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.join(user, "AppData", "Local")
    elif sys.platform == "darwin":
        base = os.path.join(user, "Library", "Caches")
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(user, ".cache")
    return os.path.join(base, "crlookup")
