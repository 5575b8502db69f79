"""Shared fixtures: every test runs against a library built once into a temporary home.

No test touches the user's real cache: CRLOOKUP_HOME always points at a temp dir.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from crlookup import store

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"


@pytest.fixture(scope="session")
def built_home(tmp_path_factory) -> Path:
    """A library home with the shipped editions built into it (once per test session)."""
    home = tmp_path_factory.mktemp("crlookup-home")
    store.build(str(home))
    return home


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


@pytest.fixture(scope="session")
def library(built_home):
    lib = store.open_library(str(built_home))
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
