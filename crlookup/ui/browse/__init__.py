"""`crlookup browse`: one screen to look things up, follow references, go back, switch edition.

A Textual app over the public API (crlookup.api.Library: `typed`, `search`, `ask`, `rule`,
`card`, `history`, `parallel`…) and the same rich views as the commands (crlookup.ui.render):
no second path to the data. The library keeps its search index and, once a question has been
asked, the embedding model open between keystrokes, so a result list costs one query; a
question is answered in a thread, so that loading that model does not freeze the screen.

Screen: the search box on top (`/`); below it the results (while there is a query), the rule
pane, and the links of the rule shown (what it cites, what cites it). Every cross-reference in
the rule pane is a link (click it, or pick it in the links list and press Enter).

The modules, the way Textual's own examples are laid out (messages up, attributes down):

- `widgets`: the parts of the screen, each owning its state: `SearchBox` (posts `Query`),
  `ResultList` (the results for what is typed; posts `Chosen`, `Note`, `Toggled`, `Listed`),
  `RulePane` (shows a `Place`, and a notice above it; posts `Shown` with its links),
  `LinksList` (posts `Chosen`), `StatusLine`; the pane with the focus is outlined;
- `views`: what a place looks like (a rich view and its links), from the API's results;
- `screens`: the modal screens (the keys, an edition to pick (filtered as you type), a rule's
  history);
- `questions`: `Asker`, which answers questions in a thread of its own;
- `app`: `Browser`, which composes the widgets, binds its `place`, `mode` and `edition` to
  them and routes their messages (history of places, actions, key bindings).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from crlookup.ui.browse.app import Browser
from crlookup.ui.browse.screens import KeysScreen, PickScreen
from crlookup.ui.browse.views import MODES, Place

if TYPE_CHECKING:
    from crlookup.api import Library

__all__ = ["MODES", "Browser", "KeysScreen", "PickScreen", "Place", "run"]


def run(lib: Library, query: str = "") -> None:
    """Run the browser until the user quits. What needs an edition still being added says
    so (a note) instead of holding the screen until it is in."""
    lib.waits = False
    Browser(lib, query).run()
