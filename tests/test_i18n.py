"""The interface in English, Russian and Polish: language choice, catalogs, translated output."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from crlookup.core import i18n
from crlookup.ui.cli import cli

pytestmark = pytest.mark.library  # the full library

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def fresh_catalog():
    i18n.reset()
    yield
    i18n.reset()


def run(args, **env):
    result = CliRunner().invoke(cli, args, env={"COLUMNS": "80", "NO_COLOR": "1", **env})
    i18n.reset()
    return result


@pytest.mark.parametrize(
    "env, lang",
    [
        ({"CRLOOKUP_LANG": "ru"}, "ru"),
        ({"CRLOOKUP_LANG": "pl", "LANG": "ru_RU.UTF-8"}, "pl"),
        ({"LANG": "ru_RU.UTF-8"}, "ru"),
        ({"LC_MESSAGES": "pl_PL.UTF-8", "LANG": "en_US.UTF-8"}, "pl"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"CRLOOKUP_LANG": "de", "LANG": "ru_RU.UTF-8"}, "en"),
    ],
)
def test_language_choice(monkeypatch, env, lang):
    for var in ("CRLOOKUP_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(var, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    assert i18n.language() == lang


def test_catalogs_complete_and_up_to_date():
    """Every message is translated in ru and pl, and the shipped catalogs match the code."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "catalogs.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    for lang in ("ru", "pl"):
        assert (ROOT / "crlookup" / "locale" / lang / "LC_MESSAGES" / "crlookup.mo").exists()


def test_error_in_russian():
    result = run(["rule", "702.999"], CRLOOKUP_LANG="ru")
    assert result.exit_code == 1
    assert (
        result.stderr == "нет правила 702.999 в en-2026-08-07; ближайшие: 702.99, 702.9, 702.195\n"
    )


def test_error_in_polish():
    result = run(["define", "xyzzyq"], CRLOOKUP_LANG="pl")
    assert result.stderr == "brak terminu ani słowa kluczowego 'xyzzyq' w en-2026-08-07\n"


def test_headings_translated():
    ru = run(["rule", "702.2"], CRLOOKUP_LANG="ru").stdout
    assert "\nСсылается на: 704\nНа него ссылается 1 правило: 120.4a\nВ словаре: Deathtouch\n" in ru
    pl = run(["editions"], CRLOOKUP_LANG="pl").stdout
    assert pl.splitlines()[0].split() == [
        "wydanie",
        "obowiązuje",
        "od",
        "źródło",
        "sekc",
        "zasady",
        "podz",
        "prz",
        "słow",
        "odw",
    ]


def test_dates_in_the_interface_language():
    def row(lang: str, edition: str) -> str:
        out = run(["editions"], CRLOOKUP_LANG=lang, COLUMNS="100").stdout
        return " ".join(
            next(line for line in out.splitlines() if line.startswith(edition + " ")).split()
        )

    assert row("ru", "en-2019-01-25").startswith("en-2019-01-25 25 янв. 2019 г. официальный")
    assert row("en", "en-2019-01-25").startswith("en-2019-01-25 Jan 25, 2019 official")
    assert row("pl", "en-2004-06-01").startswith("en-2004-06-01 1 cze 2004 oficjalne")


def test_help_translated():
    out = run(["rule", "--help"], CRLOOKUP_LANG="ru").stdout
    assert "Показать правило с подправилами, примерами и ссылками." in out
    assert "Вывести JSON для скриптов и ботов." in out


def test_json_is_never_translated():
    out = run(["rule", "702.2", "--json"], CRLOOKUP_LANG="ru").stdout
    assert '"kind": "rule"' in out and '"title": "Deathtouch"' in out


def test_lookups_do_not_import_babel():
    code = (
        "import sys, os; os.environ['CRLOOKUP_LANG'] = 'ru'\n"
        "from crlookup.ui.cli import cli\n"
        "try: cli(['rule', '702.19b', '--json'])\n"
        "except SystemExit: pass\n"
        "assert 'babel' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
