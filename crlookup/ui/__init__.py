"""The front ends: the command line (cli, click), its rich views (render) and the interactive
browser (browse, Textual). Each calls only the public API (crlookup.api)."""
