"""The library on disk: built on first use, reused, rebuilt when stale, atomically."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import conftest
from crlookup import library, store
from crlookup.sources import SourceError

DATA = Path(__file__).resolve().parent.parent / "data"


def new_edition_file(tmp_path: Path, day: str = "September 1, 2026", name="next.txt") -> Path:
    text = (DATA / "MagicCompRules-2026-08-07.txt").read_bytes()
    path = tmp_path / name
    path.write_bytes(text.replace(b"effective as of August 7, 2026", f"effective as of {day}".encode()))
    return path


def test_first_use_builds_with_progress(tmp_path):
    calls = []
    lib = store.open_library(str(tmp_path / "home"), progress=lambda d, t, label: calls.append((d, t, label)))
    assert [e.id for e in lib.editions()][-1] == "en-2026-08-07"
    assert calls[0][0] == 0 and calls[-1][0] == calls[-1][1]
    assert {c[2] for c in calls} >= {"MagicCompRules-2026-08-07.txt"}
    lib.close()


def test_later_runs_reuse_it(private_home):
    before = store.current(str(private_home))
    lib = store.open_library(str(private_home), progress=lambda *a: pytest.fail("rebuilt"))
    assert lib.path == before
    lib.close()


def test_new_version_rebuilds(private_home, monkeypatch):
    before = store.current(str(private_home))
    monkeypatch.setattr(store, "__version__", "999.0")
    lib = store.open_library(str(private_home))
    assert lib.path != before
    lib.close()


def test_changed_source_rebuilds_and_touched_source_does_not(private_home, tmp_path):
    store.ingest(str(new_edition_file(tmp_path)), {}, root=str(private_home))
    copy = private_home / "sources" / "next.txt"
    built = store.current(str(private_home))
    # touched, same bytes: no rebuild
    os.utime(copy, ns=(1, 1))
    lib = store.open_library(str(private_home), progress=lambda *a: pytest.fail("rebuilt"))
    assert lib.path == built
    lib.close()
    # changed bytes: rebuild
    copy.write_bytes(copy.read_bytes().replace(b"September 1, 2026", b"September 2, 2026"))
    lib = store.open_library(str(private_home))
    assert lib.path != built
    assert "en-2026-09-02" in [e.id for e in lib.editions()]
    lib.close()


@pytest.mark.parametrize("error", [RuntimeError("disk full"), KeyboardInterrupt()])
def test_failed_build_leaves_the_old_library(private_home, monkeypatch, error):
    before = store.current(str(private_home))
    real_write = library.write

    def failing_write(path, *args, **kwargs):
        real_write(path, *args, **kwargs)
        raise error

    monkeypatch.setattr(store, "__version__", "999.0")
    monkeypatch.setattr(library, "write", failing_write)
    with pytest.raises(type(error)):
        store.open_library(str(private_home))
    assert store.current(str(private_home)) == before
    assert not [p for p in private_home.iterdir() if p.name.startswith("build-")]
    monkeypatch.undo()
    lib = store.open_library(str(private_home), progress=lambda *a: pytest.fail("rebuilt"))
    assert lib.get("en-2026-08-07", "702.19b") is not None
    lib.close()


def test_bad_source_leaves_the_old_library(private_home, tmp_path):
    before = store.current(str(private_home))
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"These rules are effective as of May 1, 2030.\n\nno rules at all\n")
    with pytest.raises(SourceError):
        store.ingest(str(bad), {}, root=str(private_home))
    assert store.current(str(private_home)) == before
    assert not (private_home / "sources").exists()


def test_ingest_adds_an_edition_and_refuses_a_duplicate(private_home, tmp_path):
    added = store.ingest(str(new_edition_file(tmp_path)), {}, root=str(private_home))
    assert [e.id for e in added] == ["en-2026-09-01"]
    with pytest.raises(store.LibraryError, match="already in the library"):
        store.ingest(str(new_edition_file(tmp_path, name="again.txt")), {}, root=str(private_home))
    added = store.ingest(
        str(new_edition_file(tmp_path, name="again.txt")), {"id": "en-2026-09-01-draft"}, root=str(private_home)
    )
    assert added[0].id == "en-2026-09-01-draft"


def test_dangling_pointer_rebuilds(private_home):
    (private_home / "current").write_text("library-gone")
    lib = store.open_library(str(private_home))
    assert lib.get("en-2026-08-07", "100.1") is not None
    lib.close()


def test_two_processes_building_at_once(tmp_path):
    home = tmp_path / "home"
    code = "from crlookup import store; lib = store.open_library(); print(lib.path)"
    env = dict(os.environ, CRLOOKUP_HOME=str(home))
    procs = [
        subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    paths = [p.communicate(timeout=300)[0].strip() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert paths[0] == paths[1]  # the second waited and used the first one's build
    assert len([p for p in home.iterdir() if p.name.startswith("library-")]) == 1


def test_library_without_its_index_is_rebuilt(private_home):
    import shutil

    shutil.rmtree(Path(store.current(str(private_home))) / store.INDEX)
    lib = store.open_library(str(private_home))
    assert (Path(lib.path) / store.INDEX).is_dir()
    lib.close()


# --------------------------------------------------------------------------- the cards part


def test_cards_are_built_with_the_library_and_reused(small_data, tmp_path):
    home = str(tmp_path / "home")
    lib = store.open_library(home)
    assert lib.cards_error is None and len(lib.cards()) == 7
    assert lib.cards().find("stomp").card.name == "Bonecrusher Giant // Stomp"
    cached = next((tmp_path / "home" / "parsed").glob("cards-*.sqlite"))
    made = cached.stat().st_mtime_ns
    lib.close()
    store.build(home, progress=None)  # rebuilt (nothing changed): the card database is reused
    assert cached.stat().st_mtime_ns == made
    assert len(list((tmp_path / "home" / "parsed").glob("cards-*.sqlite"))) == 1


@pytest.mark.parametrize("damage, where", [
    (lambda data: (data / "cards.jsonl.gz").unlink(), "cards.jsonl.gz: expected a readable card file"),
    (lambda data: (data / "cards.jsonl.gz").write_bytes(
        __import__("gzip").compress(b"\n".join(conftest.card_lines()[:2]) + b"\n{oops\n")),
     "cards.jsonl.gz:3: expected a JSON object"),
    (lambda data: (data / "cards.jsonl.gz").write_bytes(
        (data / "cards.jsonl.gz").read_bytes()[:-40]), "cards.jsonl.gz:"),
])
def test_a_bad_card_file_leaves_the_rules_usable(small_data, tmp_path, damage, where):
    from crlookup.library import CardsUnavailable

    home = str(tmp_path / "home")
    store.open_library(home).close()
    damage(small_data)
    lib = store.open_library(home)  # rebuilt: the card file changed
    assert lib.get("en-2010-07-16", "702.19") is not None  # the rules are there
    assert lib.cards_error.startswith(where)
    with pytest.raises(CardsUnavailable, match=where.replace(".", r"\.")):
        lib.cards()
    lib.close()
    # recorded, not retried: the next run reuses this library
    again = store.open_library(home, progress=lambda *a: pytest.fail("rebuilt"))
    assert again.path == lib.path
    again.close()


def test_a_mended_card_file_brings_the_cards_back(small_data, tmp_path):
    home = str(tmp_path / "home")
    good = (small_data / "cards.jsonl.gz").read_bytes()
    (small_data / "cards.jsonl.gz").write_bytes(b"not gzip at all")
    assert store.open_library(home).cards_error.startswith("cards.jsonl.gz: expected a gzip")
    (small_data / "cards.jsonl.gz").write_bytes(good)
    lib = store.open_library(home)
    assert lib.cards_error is None and len(lib.cards()) == 7
    lib.close()


def test_the_cli_says_what_is_wrong_with_the_card_file(small_data, tmp_path):
    from click.testing import CliRunner

    from crlookup.cli import cli

    (small_data / "cards.jsonl.gz").write_bytes(b"not gzip at all")
    run = CliRunner().invoke(cli, ["rule", "702.19"], env={"NO_COLOR": "1"})
    assert run.exit_code == 0 and "702.19 Banding" in run.stdout  # as it was in 2010
    assert run.stderr.splitlines()[-1] == (
        "crlookup: warning: no cards in this library: cards.jsonl.gz: expected a gzip-compressed "
        "JSON Lines file of cards, found 'not gzip at all'")
    run = CliRunner().invoke(cli, ["card", "Giant Spider"], env={"NO_COLOR": "1"})
    assert run.exit_code == 2 and "Traceback" not in run.stderr
    assert run.stderr == ("no cards in this library: cards.jsonl.gz: expected a gzip-compressed "
                          "JSON Lines file of cards, found 'not gzip at all'\n")
