"""Shared fixtures: every test runs against a library built once into a temporary home.

No test touches the user's real cache: CRLOOKUP_HOME always points at a temp dir.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from crlookup import sources
from crlookup.builder import pipeline as build

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"


def _official() -> Path:
    """The official editions of the shipped archive, each as its own file (as Wizards
    published it), unpacked once per test session into a temporary folder."""
    import atexit
    import tarfile
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="crlookup-official-"))
    atexit.register(shutil.rmtree, folder, True)
    with tarfile.open(DATA / "official-cr-archive.tar.xz") as tar:
        for member in tar:
            if member.isfile() and "/" not in member.name and not member.name.startswith("."):
                (folder / member.name).write_bytes(tar.extractfile(member).read())
    return folder


OFFICIAL = _official()


@pytest.fixture(scope="session")
def built_home(tmp_path_factory) -> Path:
    """A library home with the shipped editions built into it, once per test session: with
    pytest-xdist, the first worker to ask builds it and the others wait for it."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):  # one process
        home = tmp_path_factory.mktemp("crlookup-home")
        build.build(str(home))
        return home
    shared = tmp_path_factory.getbasetemp().parent  # the same folder for every worker
    home, done = shared / "crlookup-home", shared / "crlookup-home.done"
    try:
        os.close(os.open(shared / "crlookup-home.builder", os.O_CREAT | os.O_EXCL))
    except FileExistsError:  # another worker builds it
        deadline = time.monotonic() + 900
        while not done.exists():
            if time.monotonic() > deadline:
                pytest.fail("the worker building the shared library took over 15 minutes")
            time.sleep(0.2)
        if done.read_text() != "built":
            pytest.fail(f"the shared library could not be built: {done.read_text()}")
        return home
    try:
        build.build(str(home))
    except BaseException as e:
        done.write_text(f"{type(e).__name__}: {e}")
        raise
    done.write_text("built")
    return home


@pytest.fixture(scope="session")
def archive_editions():
    """The 120 editions of the shipped archive, parsed once per session as a build reads them."""
    return sources.read(DATA / "official-cr-archive.tar.xz")


@pytest.fixture(autouse=True)
def crlookup_home(built_home, monkeypatch) -> Path:
    monkeypatch.setenv("CRLOOKUP_HOME", str(built_home))
    monkeypatch.delenv("CRLOOKUP_LANG", raising=False)
    return built_home


@pytest.fixture
def private_home(built_home, tmp_path, monkeypatch) -> Path:
    """A copy of the built home that a test may change (ingest, rebuild)."""
    home = tmp_path / "home"
    shutil.copytree(built_home, home, ignore=shutil.ignore_patterns(".lock"))
    monkeypatch.setenv("CRLOOKUP_HOME", str(home))
    return home


SMALL_CARDS = (
    "Giant Spider",
    "Serra Angel",
    "Bonecrusher Giant // Stomp",
    "Kitchen Finks",
    "Fire // Ice",
    "Teferi, Hero of Dominaria",
    "Teferi, Time Raveler",
)


def card_lines(names=SMALL_CARDS) -> list[bytes]:
    """The lines of the shipped card file for these cards, as they are there."""
    import gzip
    import json

    wanted = set(names)
    with gzip.open(DATA / "cards.jsonl.gz", "rb") as f:
        return [line.rstrip(b"\n") for line in f if json.loads(line)["name"] in wanted]


def face_lines(names=SMALL_CARDS) -> list[bytes]:
    """The lines of the shipped faces file for these cards (Bonecrusher Giant // Stomp and
    Fire // Ice of the small cards)."""
    import json

    wanted = set(names)
    with open(DATA / "cards-faces.jsonl", "rb") as f:
        return [line.rstrip(b"\n") for line in f if json.loads(line)["name"] in wanted]


def ruling_lines(names=SMALL_CARDS) -> list[bytes]:
    """The lines of the shipped rulings file given under these cards' names or their faces'
    (Giant Spider's 1, Kitchen Finks' 8, Teferi, Hero of Dominaria's)."""
    import gzip
    import json

    wanted = set(names) | {face for name in names for face in name.split(" // ")}
    with gzip.open(DATA / "cards-rulings.jsonl.gz", "rb") as f:
        return [line.rstrip(b"\n") for line in f if json.loads(line)["card"] in wanted]


@pytest.fixture
def small_data(tmp_path, monkeypatch) -> Path:
    """A data folder with one small edition (section 702 of 2010) and a few real cards, with
    their faces and rulings, made the shipped data: a library of it builds in a second or two.
    Tests change its files."""
    data = write_small_data(tmp_path / "data")
    monkeypatch.setenv("CRLOOKUP_DATA", str(data))  # for the processes a test starts too
    monkeypatch.setenv("CRLOOKUP_HOME", str(tmp_path / "home"))
    return data


def write_small_data(data: Path) -> Path:
    """`small_data`'s folder, written at `data`."""
    import gzip
    import json

    data.mkdir()
    edition = "cr-2010-07-16-en-section702-webpage.txt"
    shutil.copy(DATA / edition, data / edition)
    (data / "cards.jsonl.gz").write_bytes(gzip.compress(b"\n".join(card_lines()) + b"\n"))
    (data / "cards-faces.jsonl").write_bytes(b"\n".join(face_lines()) + b"\n")
    (data / "cards-rulings.jsonl.gz").write_bytes(
        gzip.compress(b"\n".join(ruling_lines()) + b"\n", mtime=0)
    )
    manifest = {
        "sources": [{"file": edition, "format": "webpage", "editions": ["en-2010-07-16"]}],
        "cards": {
            "file": "cards.jsonl.gz",
            "format": "cards",
            "faces": {"file": "cards-faces.jsonl"},
            "rulings": {"file": "cards-rulings.jsonl.gz"},
        },
    }
    (data / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return data


class Run:
    """What a command run by `run` printed, and how it ended."""

    def __init__(self, result):
        self.code = result.exit_code
        self.output = result.stdout
        self.error = result.stderr


def run(*args, code=0) -> Run:
    """`crlookup ARGS` in this process (80 columns, no colour), which must end with `code`
    and never with a traceback."""
    from click.testing import CliRunner

    from crlookup.ui.cli import cli

    result = CliRunner().invoke(cli, list(args), env={"COLUMNS": "80", "NO_COLOR": "1"})
    assert result.exit_code == code, (result.output, result.exception)
    assert "Traceback" not in result.output
    return Run(result)


def one_line(error: str) -> str:
    """An error message that is one line and no traceback, without its newline."""
    assert len(error.strip().splitlines()) == 1 and "Traceback" not in error, error
    return error.strip()


SMALL_ARCHIVE = (
    "MagicCompRules-2003-03-15.txt",
    "MagicCompRules-2003-07-01.txt",
    "MagicCompRules-2004-10-01.txt",
)


def write_archive(path: Path, names) -> None:
    """An archive of official editions like the shipped one, of these members."""
    import tarfile

    with tarfile.open(path, "w:xz") as tar:
        for name in names:
            tar.add(OFFICIAL / name, arcname=name)


@pytest.fixture
def small_archive(small_data) -> Path:
    """`small_data` with an archive of three small official editions (2003-2004) beside the
    2010 page: a library of it builds in a few seconds. Tests change its files."""
    import json

    write_archive(small_data / "official-cr-archive.tar.xz", SMALL_ARCHIVE)
    manifest = json.loads((small_data / "manifest.json").read_text(encoding="utf-8"))
    manifest["sources"].insert(0, {"file": "official-cr-archive.tar.xz", "format": "archive"})
    (small_data / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return small_data


@pytest.fixture(scope="session")
def library(built_home):
    """The shared library, open as `crlookup.open()` opens it (the commands as methods)."""
    from crlookup import api

    lib = api.open(str(built_home))
    yield lib
    lib.close()


def pytest_addoption(parser):
    parser.addoption(
        "--update-golden", action="store_true", help="rewrite golden files instead of comparing"
    )


@pytest.fixture
def golden(request):
    """Compare data with tests/data/<name> (JSON); `pytest --update-golden` rewrites it.

    Golden files are reviewed in the diff like code.
    """
    import json

    def check(name: str, data) -> None:
        path = ROOT / "tests" / "data" / name
        text = json.dumps(data, ensure_ascii=False, indent=1) + "\n"
        if request.config.getoption("--update-golden") or not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            if not request.config.getoption("--update-golden"):
                pytest.fail(f"wrote new golden file {path}; review it and run again")
        assert json.loads(path.read_text(encoding="utf-8")) == data

    return check
