"""crlookup's version: a library built by another version is rebuilt (crlookup.build)."""

__version__ = "0.1.0"
