"""A stage of the build: one part of a library, made from the parts before it.

Each stage is a module of crlookup.builder.stages with one `STAGE`, which says what it reads and
writes (parts of a library: "library.sqlite", "index/<lang>", ...) and has two methods:

- `run(build)` starts its work on the library being built (in the build's process pool when
  the work can go on beside the other stages', else here) and returns what finishes it: the
  pipeline (crlookup.builder.pipeline) starts the stages that don't wait for each other, then
  finishes them, in the order of `pipeline.stages()`;
- `check(path)` looks at what it wrote in a built library and says what is damaged
  (`Finding`s; crlookup.builder.doctor asks every stage).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

if TYPE_CHECKING:
    from concurrent.futures import Executor
    from pathlib import Path

    from crlookup.builder.manifest import SourceFile, Unit
    from crlookup.core.model import Edition

Progress = Callable[[int, int, str], None]
Finish = Callable[[], None]


class Finding(NamedTuple):
    """One part of a library, checked: `damage` says what is wrong ("" when it is sound)."""

    part: str  # "library.sqlite", "index/en", "cards.sqlite", "ask/en-2026-08-07", …
    path: str
    damage: str = ""

    def to_dict(self) -> dict:
        return {"part": self.part, "path": self.path, "ok": not self.damage,
                "damage": self.damage or None}  # fmt: skip


@dataclass
class Build:
    """A library being built, as its stages see it."""

    path: Path  # the new library's folder (renamed into place when every stage is done)
    root: Path  # the library home
    files: list[SourceFile]  # every source of the library
    stamp: dict  # what the library records of its sources
    todo: list[Unit]  # the units parsed by this build (the others are in `base` already)
    base: str | None = None  # the library it starts from, or None: built anew
    pool: Executor | None = None  # the pipeline's processes (None: everything runs here)
    workers: int = 1
    progress: Progress | None = None
    step: Callable[[str], None] = lambda doing: None  # a point where a build may be stopped
    editions: list[Edition] = field(default_factory=list)  # parsed by this build, in order
    done: dict[str, Any] = field(default_factory=dict)  # what a stage tells the later ones

    @property
    def db_path(self) -> str:
        from crlookup.library.database import DB

        return str(self.path / DB)

    def share(self, start: int, span: int) -> Progress | None:
        """The build's progress for one stage, as its share (start..start+span) of 100."""
        progress = self.progress
        if progress is None:
            return None

        def report(done: int, total: int, label: str) -> None:
            progress(start + round(span * done / max(total, 1)), 100, label)

        return report

    def submit(self, fn, *args) -> Callable[[], Any]:
        """Run `fn(*args)` in the pool if there is one (else when it is waited for, after the
        stages that run here); returns what waits for its result."""
        if self.pool is None:
            return lambda: fn(*args)
        return self.pool.submit(fn, *args).result


class Stage(Protocol):
    """A stage of the build (see the module's docstring)."""

    name: str
    reads: tuple[str, ...]
    writes: tuple[str, ...]

    def run(self, build: Build) -> Finish: ...

    def check(self, path: str) -> list[Finding]: ...


def nothing() -> None:
    """What finishes a stage that did all its work in `run`."""
