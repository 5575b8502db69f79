"""crlookup: the Magic: The Gathering Comprehensive Rules, every edition, from the command line."""

from crlookup.version import __version__
