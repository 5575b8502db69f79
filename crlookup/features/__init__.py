"""What crlookup answers, side by side, each reading the library: a rule's citations (refs),
search (search), the glossary (definitions), what changed between editions (diff), a rule's
history (history), the same rule in two languages (bilingual), the rules behind a card
(card_rules) and rules questions (ask/).

No feature imports another's internals; crlookup.api composes them (a result carried into
another language, say).
"""
