"""crlookup: the Magic: The Gathering Comprehensive Rules, every edition, from the command line."""

__version__ = "0.1.0"
