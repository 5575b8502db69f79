"""Questions answered off the screen's thread: `Asker` runs `Library.ask` in a thread of its
own, so that the screen stays live while the first question loads the embedding model (a few
seconds). The thread reads its own opening of the library: an open library's database answers
only in the thread that opened it.

Imported when the first question is asked, not when the browser starts.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from queue import SimpleQueue
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crlookup.api import Library


def asker(lib: Library) -> Asker:
    """The asker of `lib`'s home, made once and kept with `lib` (closed with it)."""
    return lib.memo(("browse", "asker"), lambda: Asker(lib.root))


class Asker:
    """`ask(question, edition)` returns at once a future of `Library.ask`'s result, worked out
    in the asker's thread (started with the first question; one question at a time, in the
    order asked; a question cancelled before its turn is skipped). `warm` once a question has
    been answered: the model is loaded, and the next answer is quick."""

    def __init__(self, root: str | None):
        self.root = root
        self.warm = False
        self._jobs: SimpleQueue = SimpleQueue()
        self._thread: threading.Thread | None = None

    def ask(self, question: str, edition: str, limit: int = 5) -> Future:
        if self._thread is None:
            # a daemon: quitting while the model loads does not wait for it
            self._thread = threading.Thread(target=self._run, name="crlookup-ask", daemon=True)
            self._thread.start()
        future: Future = Future()
        self._jobs.put((future, question, edition, limit))
        return future

    def close(self) -> None:
        """Let the thread end (after the question it is at), closing its library."""
        if self._thread is not None:
            self._jobs.put(None)

    def _run(self) -> None:
        import crlookup  # (its public `open`, as any program opens a library)

        lib = None
        try:
            while (job := self._jobs.get()) is not None:
                future, question, edition, limit = job
                if not future.set_running_or_notify_cancel():
                    continue  # given up on before its turn
                try:
                    if lib is None:
                        lib = crlookup.open(self.root, heal=False)  # the screen's one heals
                    future.set_result(lib.ask(question, edition=edition, limit=limit))
                    self.warm = True
                except BaseException as e:  # noqa: BLE001 (the asker's to report: see the future)
                    future.set_exception(e)
        finally:
            if lib is not None:
                lib.close()
