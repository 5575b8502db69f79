"""The built library on disk, and its read side: the database's files (database), the queries
over it (reader), the full-text index (index), the card database (cards).

A query only reads: nothing here writes a library (crlookup.builder does).
"""
