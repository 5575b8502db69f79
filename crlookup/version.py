"""crlookup's version: a library built by another version is rebuilt (crlookup.builder)."""

__version__ = "0.1.0"
