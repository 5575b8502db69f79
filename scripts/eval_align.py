"""How the alignment differs from "same number, same text" on editions close in date.

For each pair, every rule and subrule of the older edition is classed by the naive baseline
(the newer edition has the same number with the same text: unchanged; the same number with
other text: changed; no such number: removed) and by crlookup's alignment; the script counts
where the two disagree and why.

    python scripts/eval_align.py [OLD NEW ...]
"""

from __future__ import annotations

import sys
from collections import Counter

PAIRS = [
    ("en-2013-11-01", "en-2014-02-01"),
    ("en-2014-02-01", "en-2019-01-25"),
    ("en-2019-01-25", "en-2022-11-18"),
    ("en-2022-11-18", "en-2026-08-07"),
]


def main() -> None:
    from crlookup.builder import pipeline as build
    from crlookup.library.alignments import align_editions

    args = sys.argv[1:]
    pairs = list(zip(args[::2], args[1::2])) if args else PAIRS
    lib = build.open_library()
    for old, new in pairs:
        new_text = {r.number: r for r in lib.entries(new) if r.kind in ("rule", "subrule")}
        matches = {m.old: m for m in align_editions(lib, old, new) if m.old}
        reasons = Counter()
        same = 0
        for r in (r for r in lib.entries(old) if r.kind in ("rule", "subrule")):
            b = new_text.get(r.number)
            baseline = (
                "removed"
                if b is None
                else "unchanged"
                if (b.text == r.text and b.examples == r.examples)
                else "changed"
            )
            m = matches[r.number]
            ours = m.kind
            if baseline == ours or (baseline == "changed" and ours == "changed"):
                same += 1
                if ours == "changed":
                    reasons[
                        "agree: changed (of which typography only: "
                        f"{'yes' if m.typography else 'no'})"
                    ] += 1
                continue
            if ours == "moved":
                why = "renumbered: same rule at a new number"
                if m.typography or not (m.words_added or m.words_removed):
                    why += " (same text, or differing only in quotes and spacing)"
            elif ours in ("split", "merged"):
                why = f"{ours}: its text lives on in {m.new}"
            elif ours == "removed" and baseline == "changed":
                why = "number reused for a different rule; the old rule is gone"
            else:
                why = f"baseline {baseline}, alignment {ours}"
            reasons[why] += 1
        total = sum(1 for r in lib.entries(old) if r.kind in ("rule", "subrule"))
        print(
            f"{old} -> {new}: {total} rules and subrules; {total - same} differ from the "
            f"same-number-same-text baseline ({(total - same) / total:.1%})"
        )
        for why, n in reasons.most_common():
            print(f"  {n:5}  {why}")


if __name__ == "__main__":
    main()
