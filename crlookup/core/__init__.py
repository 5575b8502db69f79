"""The ground every other floor stands on: rule numbers (numbers), the records a source is
parsed into (model), the errors crlookup raises on purpose (errors), words and spelling
(words, spelling), the interface language (i18n) and where things are (paths).

Nothing here reads a library or imports from the other packages of crlookup.
"""
