"""Rich renderables for people, one module per command's answer (`rule`, `search`, `ask`, `card`,
`define`, `refs`, `diff`, `history`, `editions`) and `text` for what they share: styles, marked
text, wrapping and the console. A view is made from a command's result alone.

Only the front ends import these modules, and only for output that is not `--json`. Domain
objects never import rich.
"""
