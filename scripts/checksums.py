"""Record the size and SHA-256 of every file shipped in data/ (data/checksums.json), against
which crlookup checks them when it reads one and in `doctor` (crlookup.library.shipped): run
after changing any of them. --check says which differ from the record (the suite runs it).

    python scripts/checksums.py [--check]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data"
sys.path.insert(0, str(DATA.parent))

from crlookup.library.shipped import RECORD, sha256


def files() -> dict[str, dict]:
    """{name under data/: {"size", "sha256"}} of every file there but the record."""
    out = {}
    for path in sorted(DATA.rglob("*")):
        name = path.relative_to(DATA).as_posix()
        if path.is_file() and name != RECORD and "__pycache__" not in name:
            out[name] = {"size": os.path.getsize(path), "sha256": sha256(str(path))}
    return out


def differences() -> list[str]:
    """The files whose record is missing, stale or of a file no longer there."""
    try:
        recorded = json.loads((DATA / RECORD).read_text(encoding="utf-8"))["files"]
    except (OSError, ValueError, KeyError):
        return [f"{RECORD}: missing or unreadable"]
    now = files()
    return [
        name for name in sorted(set(now) | set(recorded)) if now.get(name) != recorded.get(name)
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="say what differs; write nothing")
    args = ap.parse_args()
    if args.check:
        wrong = differences()
        for name in wrong:
            print(f"{name}: not as data/{RECORD} records it; run scripts/checksums.py")
        return 1 if wrong else 0
    record = {"about": "The size and SHA-256 of every file in data/, checked when one is read "
              "and by `crlookup doctor` (scripts/checksums.py writes this).", "files": files()}  # fmt: skip
    (DATA / RECORD).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(f"data/{RECORD}: {len(record['files'])} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
