"""The processes a build starts end with it: its pool's workers (spawned) and whoosh's index
writers (forked) are killed by the kernel when the build's process ends, however it ends (a
`kill -9` included), and a forked one never holds the home's lock (crlookup.library.home).

Without this, a killed build left its writers waiting on their queues for ever, holding the
lock by the descriptor they inherited: every later build waited for them (issue 32). Linux
alone has a way to ask for it (prctl PR_SET_PDEATHSIG); elsewhere nothing is asked, and the
writers are still ended by `stop` when the build fails rather than dies.
"""

from __future__ import annotations

import os
import signal
import sys

_PR_SET_PDEATHSIG = 1
_watched = False
_forking = 0  # the pid of the process forking, as the child finds it in its copied memory


def die_with(parent: int) -> None:
    """Have this process killed when its parent (`parent`, its pid) ends; if it has ended
    already, end now."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):  # no prctl to call: as elsewhere
        return
    if os.getppid() != parent:  # the parent ended before it was asked
        os._exit(1)


def forked_children_die_with_this_process() -> None:
    """Every process forked from this one from now on (whoosh's writers) dies with it."""
    global _watched
    if _watched or not hasattr(os, "register_at_fork"):
        return
    _watched = True
    me = os.getpid()

    def forking() -> None:
        global _forking
        _forking = os.getpid()

    def in_child() -> None:
        # a fork of this process (not of a fork of it), even if this one has ended since (a
        # child slow to run its handlers: it is not this process's by getppid() any more)
        if _forking == me:
            die_with(me)

    os.register_at_fork(before=forking, after_in_child=in_child)


def stop(tasks) -> None:
    """End processes a failed build leaves waiting (whoosh's writers, on their job queue)."""
    for task in tasks:
        if task.is_alive():
            task.terminate()
    for task in tasks:
        task.join(5)
