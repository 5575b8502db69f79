"""The flattened text format: an official CR text file with every line break removed.

The one known file is cr-2009-02-01-en-flat.txt, the rules "current as of February 1, 2009"
(pre-Magic 2010 numbering: six chapters, keyword abilities at 502.x, zones at 217.x,
multiplayer at 600.x) as a single 495 KB line. Its layout, all on that line: the title,
"These rules are current as of <date>.", an introduction, "Contents" with every chapter and
section title, the body ("1. The Game 100. General 100.1. These _Magic_ rules ... 100.1a A
two-player game ... Example: ..."), "Glossary" with its terms run together ("Ability Word An
ability word appears ..."), "Credits".

Contract:

* Rules. An entry starts at a number that continues the running sequence: the next subrule
  letter, rule, section or chapter after the last entry, not preceded by "rule", "rules",
  "section", "see", "and", a comma or other running text. Mentions such as "see rule 601.15."
  therefore never become entries. A gap in the numbering is accepted only when the number is
  printed like an entry (rules with a period, subrules without), follows a sentence end, lies
  close to the last number and has its parent; it is noted. Numbers printed the other way
  ("212.1b.", "216.4") are read for what they are and noted. A heading ("1. The Game", "100.
  General") is only taken when a short title without a sentence break leads to its first
  entry; that text is its title. The contents list before the body is skipped. Section 211
  exists only as "211. [This section has been intentionally left blank ...]": the bracketed
  sentence is its title.
* Every "Example:" paragraph becomes an example of the entry it is in; the entry's text is
  what precedes its first example. Paragraph breaks inside a rule are lost in the source and
  are not guessed.
* Glossary, from "Glossary" to "Credits" (the credits are neither rules nor glossary). The
  terms and their definitions are recovered in document order by the best segmentation of the
  text (see `_Glossary`): a term is a short run of capitalised words (with lower-case "of",
  "the", ..., and a final "(Obsolete)" or "(Informal)") that follows the end of the previous
  definition and is followed by a capitalised definition, whose words the definition usually
  repeats ("Absorb Absorb is ...", "Ability Word An ability word ..."), and the terms keep
  the glossary's alphabetical order. No outside vocabulary is used: every term, including
  "Mana Burn" or "Imprinted [quality] card" that no later edition has, comes from the text
  itself. Inside a definition, "Example:" and numbered senses ("1. To counter ...", "2. A
  counter is ...") start a line of their own, as in the official text files. An
  "(Informal)" term is also found without its qualifier ("Cantrip").
* Cleaning: whitespace runs become one space; `_italic_` markers are dropped (`text.clean`),
  and so is the stray "_" that joins a trademark sign to its word ("Oracle_(TM)" ->
  "Oracle(TM)"). The signs themselves are kept as written: "(R)", "(TM)", "(C)".
* Every entry's source is line 1 (the file has one line). Notes and errors give the character
  offset in the decoded text (whitespace runs counted as one). Anything unreadable raises
  `SourceError`, nothing else.

What was repaired or noticed goes to `Edition.notes`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from crlookup.core import numbers
from crlookup.core.errors import NumberError, SourceError
from crlookup.core.model import Edition, GlossaryEntry, Source
from crlookup.core.numbers import RuleNumber
from crlookup.sources import glossary
from crlookup.sources.encoding import decode, split_lines
from crlookup.sources.text import EXAMPLE, clean, effective_date
from crlookup.sources.tree import RuleTree

DEFAULT_TITLE = "Magic: The Gathering Comprehensive Rules"

# ---------------------------------------------------------------------------------------------
# Sniffing and reading


def sniff(data: bytes) -> bool:
    """A Comprehensive Rules document without line breaks in its first few KB."""
    head = data[:8192]
    if b"\n" in head or b"\r" in head or b"\x00" in head:
        return False  # the official files (also UTF-16 ones) have line breaks
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff \t")
    if not text or text[0] in "{[<#":
        return False
    return "Comprehensive Rules" in text[:400] and bool(
        re.search(r"(?:effective|current) as of", text[:3000])
    )


def read(path: Path, data: bytes) -> list[Edition]:
    file = Path(path).name
    raw = decode(data, file)
    lines = split_lines(raw.strip())
    if len(lines) > 1:
        # a document with its line breaks is another format (the official text, most likely)
        raise SourceError(file, 2, "one line of text (a flattened document)", lines[1][:60])
    doc = re.sub(r"\s+", " ", raw).strip()
    day, _dated = effective_date([doc[:4000]], file)
    notes: list[str] = []
    if re.search(r"[^\S ]|  ", raw.strip()):
        notes.append("whitespace runs read as single spaces")

    start, contents = _body_start(doc, file)
    if contents:
        notes.append(f"contents list of {contents} headings skipped")
    gloss = _find_heading(doc, "Glossary", start)
    tree = RuleTree(file)
    _Body(doc, start, len(doc) if gloss is None else gloss, tree).run()
    notes.extend(tree.notes)

    entries: list[GlossaryEntry] = []
    if gloss is None:
        notes.append("no glossary found")
    else:
        g_start = gloss + len("Glossary")
        credits = _find_heading(doc, "Credits", g_start)
        if credits is None:
            notes.append("no credits found: the glossary runs to the end of the file")
        g_end = len(doc) if credits is None else credits
        entries = _read_glossary(doc, g_start, g_end, file, notes)

    m = re.match(r"(.{1,120}?) These rules are", doc)
    title = _clean(m.group(1)) if m else ""
    return [
        Edition(
            lang="en",
            date=day,
            source=file,
            rules=tree.rules(),
            glossary=tuple(entries),
            title=title if title.startswith("Magic") else DEFAULT_TITLE,
            notes=tuple(notes),
        )
    ]


_STRAY_UNDERSCORE = re.compile(r"(?<=\w)_(?=\((?:R|TM|C)\))")


def _clean(text: str) -> str:
    """Italics markers dropped, and the "_" of "Oracle_(TM)"."""
    return _STRAY_UNDERSCORE.sub("", clean(text.strip()))


def _error(file: str, doc: str, pos: int, expected: str) -> SourceError:
    return SourceError(file, 1, f"{expected} (at character {pos})", doc[pos : pos + 60])


def _find_heading(doc: str, word: str, start: int) -> int | None:
    """The first `word` standing alone as a heading: after a sentence end, before a capital."""
    m = re.compile(r"(?:(?<=[.!?\"')\]] )|^)" + word + r"(?= [A-Z\"_(]|$)").search(doc, start)
    return m.start() if m else None


# ---------------------------------------------------------------------------------------------
# The numbered rules

# A number as an entry starts with it: "100.1." "100.1a" "100." "1." (mentions look the same;
# the running sequence tells them apart), and "901.4.All" (no space after a rule's period).
_NUMBER = re.compile(
    r"(?<!\S)(?:(\d{3})\.(\d+)([a-z]*)(\.?)(?= )|(\d{3})\.(\d+)\.(?=[A-Z\"(])"
    r"|(\d{3})\.(?= )|(\d)\.(?= ))"
)
# Words after which a number is a mention, never an entry ("see rule 601.15.").
_MENTION_WORDS = {"rule", "rules", "section", "sections", "see", "and", "or", "to", "of", "in"}
_SENTENCE_END = re.compile(r"[.!?:;][\"'”’)\]]*$|[\"'”’)\]]$")
_TITLE_TEXT = re.compile(r"^[^ ].{0,149}$")
_TITLE_BREAK = re.compile(r"[.!?][\"'”’)\]]* ")


@dataclass(frozen=True)
class _Num:
    start: int  # where the number starts
    end: int  # where the entry's text starts
    number: RuleNumber
    period: bool  # printed with a trailing period ("100.1." rather than "100.1")
    spaced: bool  # followed by a space


def _numbers(doc: str, start: int, end: int) -> list[_Num]:
    out = []
    for m in _NUMBER.finditer(doc, start, end):
        if m.group(1):
            n = RuleNumber(int(m.group(1)), int(m.group(2)), m.group(3))
            period, spaced = bool(m.group(4)), True
        elif m.group(5):
            n = RuleNumber(int(m.group(5)), int(m.group(6)))
            period, spaced = True, False
        else:
            n = RuleNumber(int(m.group(7) or m.group(8)))
            period, spaced = True, True
        if n.section == 0 or 10 <= n.section < 100:
            continue
        out.append(_Num(m.start(), m.end(), n, period, spaced))
    return out


def _context_ok(doc: str, pos: int) -> bool:
    """True if what precedes `pos` lets an entry start there (not "see rule 601.15")."""
    before = doc[max(0, pos - 40) : pos].rstrip()
    if not before:
        return True
    word = before.rsplit(" ", 1)[-1]
    if _SENTENCE_END.search(word):
        return True
    bare = word.strip("\"'“”‘’()[]")
    if bare in _MENTION_WORDS or word.endswith((",", "-", "–", "—")):
        return False
    return bare[:1].isupper() or bare[:1].isdigit()  # the end of a title: "100. General 100.1."


def _successors(last: RuleNumber) -> list[RuleNumber]:
    """The numbers that may directly follow `last` in a document."""
    if last.section < 10:
        return [RuleNumber(last.section * 100)]
    out = []
    if last.rule is not None:
        if last.letters:
            try:
                nxt = numbers.letters_at(numbers.letters_index(last.letters) + 1)
                out.append(RuleNumber(last.section, last.rule, nxt))
            except NumberError:
                pass
        else:
            out.append(RuleNumber(last.section, last.rule, "a"))
    out.append(RuleNumber(last.section, (last.rule or 0) + 1))
    if last.section + 1 < 100 * (last.chapter + 1):
        out.append(RuleNumber(last.section + 1))
    if last.chapter < 9:
        out.append(RuleNumber(last.chapter + 1))
    return out


def _near(last: RuleNumber | None, n: RuleNumber) -> bool:
    """A plausible numbering gap after `last`: a few numbers on, in the same or next section."""
    if last is None:
        return n.kind in ("chapter", "section") or n.rule == 1
    if not last < n:
        return False
    if n.kind == "chapter":
        return n.section <= last.chapter + 2
    if n.kind == "section":
        return n.chapter in (last.chapter, last.chapter + 1) and (
            n.section - max(last.section, 100 * n.chapter) <= 3
        )
    assert n.rule is not None  # neither a chapter nor a section: a rule or subrule
    if n.section != last.section:
        return n.chapter == last.chapter and n.section - last.section <= 3 and n.rule <= 3
    return n.rule - (last.rule or 0) <= 3


class _Body:
    """Picks the entries out of the body's numbers, in one pass, and feeds the tree."""

    def __init__(self, doc: str, start: int, end: int, tree: RuleTree):
        self.doc = doc
        self.end = end
        self.tree = tree
        self.nums = _numbers(doc, start, end)
        self.seen: set[RuleNumber] = set()

    def run(self) -> None:
        last: RuleNumber | None = None
        accepted: list[_Num] = []
        for i, num in enumerate(self.nums):
            if self.fits(i, last, strict=True):
                pass
            elif self.fits(i, last, strict=False):
                self.tree.notes.append(
                    f"character {num.start}: numbering gap, {num.number} follows {last}"
                )
            else:
                continue
            accepted.append(num)
            self.seen.add(num.number)
            last = num.number
        for k, num in enumerate(accepted):
            stop = accepted[k + 1].start if k + 1 < len(accepted) else self.end
            self.add(num, self.doc[num.end : stop].strip())

    def fits(self, i: int, last: RuleNumber | None, strict: bool) -> bool:
        num = self.nums[i]
        n = num.number
        if n in self.seen or not _context_ok(self.doc, num.start):
            return False
        if n.kind in ("chapter", "section"):
            if strict and last is not None and n not in _successors(last):
                return False
            if not strict and not _near(last, n):
                return False
            return self.title_end(i) is not None
        if strict:
            return last is None or n in _successors(last)
        # a gap: printed like an entry, after a sentence end, close to the last number
        well_printed = num.spaced and num.period == (n.kind == "rule")
        after_sentence = _SENTENCE_END.search(self.doc[max(0, num.start - 5) : num.start].rstrip())
        parent = n.parent
        return (
            well_printed
            and after_sentence is not None
            and _near(last, n)
            and (n.kind != "subrule" or parent in self.seen)
        )

    def title_end(self, i: int) -> int | None:
        """Where the title of heading i ends: at the first entry under it."""
        head = self.nums[i]
        for j in range(i + 1, min(i + 6, len(self.nums))):
            nxt = self.nums[j]
            title = self.doc[head.end : nxt.start].strip()
            if not _TITLE_TEXT.match(title) or _TITLE_BREAK.search(title) or EXAMPLE in title:
                return None
            if nxt.number in _successors(head.number) and _context_ok(self.doc, nxt.start):
                return nxt.start
        return None

    def add(self, num: _Num, text: str) -> None:
        n, tree = num.number, self.tree
        number = str(n)
        if n.kind in ("chapter", "section"):
            tree.heading(number, _clean(text), 1)
            if text.startswith("["):
                tree.notes.append(f"{n.kind} {number} has no rules: {text}")
            return
        if n.letters and num.period:
            tree.notes.append(f"character {num.start}: subrule {number} is printed with a period")
        elif not n.letters and not num.period:
            tree.notes.append(f"character {num.start}: rule {number} is printed without its period")
        elif not num.spaced:
            tree.notes.append(f"character {num.start}: no space after {number}.")
        parts = re.split(r"(?:^|(?<= ))" + EXAMPLE + r"(?: |$)", text)
        tree.entry(number, _clean(parts[0]), 1)
        for example in parts[1:]:
            tree.example(_clean(example), 1)


def _body_start(doc: str, file: str) -> tuple[int, int]:
    """Where the body starts (its first heading, past the contents), and the contents' size."""
    rule_numbers = (m for m in _NUMBER.finditer(doc) if m.group(1) or m.group(5))
    first = next((m for m in rule_numbers if _context_ok(doc, m.start())), None)
    if first is None:
        raise SourceError(
            file, 1, "numbered rules such as '100.1. These Magic rules ...'", doc[:60] or None
        )
    section = int(first.group(1) or first.group(5))
    start = first.start()
    # walk back over the section and chapter headings just before the first rule
    for number in (section, section // 100):
        window = max(0, start - 120)
        heads = list(re.finditer(r"(?<!\S)" + str(number) + r"\. ", doc[window:start]))
        if heads:
            start = window + heads[-1].start()
    contents = doc.rfind("Contents", 0, start)
    if contents < 0:
        return start, 0
    return start, len(re.findall(r"(?<!\S)\d{1,3}\. [A-Z\"_]", doc[contents:start]))


# ---------------------------------------------------------------------------------------------
# The glossary
#
# The glossary text is a run of "Term Definition Term Definition ...". `_Glossary` lists every
# place a term could start and end (a run of term-like words followed by a word that can start
# a definition), scores each, and picks the sequence of non-overlapping terms with the best
# total score whose terms keep alphabetical order: strictly by first letter, by the whole term
# with a penalty (the glossary itself puts "Reach" before "Range of Influence" and "Frenzy"
# before "Free-for-All").

# Words that may appear in lower case inside a term ("Flip a Coin", "Win the Game").
_SMALL = {
    "a",
    "an",
    "and",
    "as",
    "at",
    "by",
    "for",
    "from",
    "in",
    "into",
    "of",
    "on",
    "or",
    "out",
    "than",
    "the",
    "to",
    "up",
    "with",
}
_QUALIFIER = re.compile(r"^\((?:Obsolete|Informal)\)$")
_QUALIFIER_ANY = re.compile(r"\((?:Obsolete|Informal)\)")
_FULL_STOP = re.compile(r"[.!?][\"'”’)\]]*$")
_TERM_WORD = re.compile(
    r"^[\"“]?[A-Z0-9][\w'’/-]*[\"”]?,?$|^[\"“][A-Z][\w'’/-]*$|^[\w'’/-]+[\"”],?$"
)
_LOWER_WORD = re.compile(r"^\[?[a-z][\w'’-]*\]?$")
_CAPITAL = re.compile(r"^[\"“]?[A-Z]")
_DEF_START = re.compile(r"^[\"“(\[]*[A-Z]")
# Words a definition (or any sentence) often starts with.
_OPENERS = {
    "A",
    "An",
    "The",
    "See",
    "This",
    "These",
    "To",
    "Some",
    "If",
    "When",
    "Whenever",
    "In",
    "Each",
    "Any",
    "Most",
    "Many",
    "Older",
    "Certain",
    "Every",
    "There",
    "There's",
    "During",
    "Before",
    "Earlier",
    "Use",
    "Whoever",
    "Normally",
    "For",
    "Several",
    "One",
    "Anything",
    "All",
    "Other",
    "Only",
    "Once",
    "However",
    "Although",
    "Its",
    "It",
}
# One-word "terms" that are really the first word of a sentence.
_FUNCTION_WORDS = {
    "A",
    "An",
    "The",
    "This",
    "That",
    "These",
    "Those",
    "It",
    "Its",
    "If",
    "In",
    "On",
    "For",
    "When",
    "Whenever",
    "Some",
    "Each",
    "Any",
    "All",
    "No",
    "As",
}
_SUFFIXES = {"s", "es", "ed", "d", "ing", "er", "ers", "ly"}
_MAX_TERM = 10  # words in a term ("Remove from the Game, Removed, ... (Obsolete)" has 8)
_WINDOW = 250  # options looked back at for the previous term (keeps the search linear)
_ECHO = 40  # words of a definition searched for the term's own words


def _norm_word(w: str) -> str:
    return re.sub(r"[^a-z0-9]", "", w.lower())


def _same_word(term_word: str, word: str) -> bool:
    """Whether `word` repeats `term_word`: "regeneration" ~ "regenerate", "layers" ~ "layer",
    but "and" !~ "an"."""
    if len(term_word) > 5:
        return word.startswith(term_word[:5])
    return word == term_word or (word.startswith(term_word) and word[len(term_word) :] in _SUFFIXES)


def _order_key(term: str) -> str:
    term = _QUALIFIER_ANY.sub(" ", term).lower()
    return re.sub(r"\s+", " ", re.sub(r"[^a-z0-9]+", " ", term)).strip()


def _disorder(a: str, b: str) -> float:
    """The cost of term key `b` following term key `a`: none in order, more the earlier they
    differ, most when `b` is a prefix of `a` ("Grand Melee" then "Grand")."""
    if a <= b:
        return 0.0
    if a.startswith(b + " "):
        return 3.0
    k = next((n for n, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return 3.0 if k < 2 else 1.0


@dataclass(frozen=True)
class _Option:
    i: int  # first word of the term
    j: int  # first word of the definition
    term: str
    key: str
    score: float


class _Glossary:
    def __init__(self, text: str):
        self.words = text.split()

    def segment(self) -> list[_Option]:
        """The best sequence of terms (a chain starts at the first word if a term can)."""
        opts = self.options()
        if not opts:
            return []
        anchored = opts[0].i == 0
        best: list[float] = []
        back: list[int] = []
        for b, o in enumerate(opts):
            top, arg = (o.score if o.i == 0 or not anchored else float("-inf")), -1
            for a in range(b - 1, max(-1, b - 1 - _WINDOW), -1):
                p = opts[a]
                if p.j >= o.i or p.key[:1] > o.key[:1] or p.key == o.key:
                    continue
                v = best[a] + o.score - _disorder(p.key, o.key)
                if v > top:
                    top, arg = v, a
            best.append(top)
            back.append(arg)
        b = max(range(len(opts)), key=best.__getitem__)
        chain = []
        while b >= 0:
            chain.append(opts[b])
            b = back[b]
        return chain[::-1]

    def options(self) -> list[_Option]:
        """Every (term, definition start) with a positive score, in document order."""
        out = []
        words = self.words
        for i, w in enumerate(words):
            if not _CAPITAL.match(w) or not _TERM_WORD.match(w):
                continue
            context = self.context(i)
            lowers = 0
            for j in range(i + 1, min(i + 1 + _MAX_TERM, len(words))):
                last = words[j - 1]
                if j - 1 > i:
                    if _QUALIFIER.match(words[j - 2]) or last in ("The", "A", "An"):
                        break  # a qualifier ends a term; "The" inside one is lower case
                    if _LOWER_WORD.match(last) and last.strip("[]") not in _SMALL:
                        lowers += 1
                    elif not (_TERM_WORD.match(last) or last in _SMALL or _QUALIFIER.match(last)):
                        break
                if last.endswith(",") or last in _SMALL:
                    continue
                if not _DEF_START.match(words[j]) or words[j].endswith(":"):
                    continue
                if any(_QUALIFIER.match(x) for x in words[j : j + 2]):
                    continue  # the qualifier belongs to the term: "Counts As (Obsolete)"
                term = " ".join(words[i:j])
                if (term.count('"') + term.count("“") + term.count("”")) % 2:
                    continue  # '"Absorb N" means ...' is a sentence, not the term '"Absorb'
                score = context + self.score(i, j, lowers)
                if score > 0:
                    out.append(_Option(i, j, term, _order_key(term), score))
        return out

    def context(self, i: int) -> float:
        """What precedes a term: the end of the previous definition."""
        if i == 0:
            return 8.0
        prev = self.words[i - 1]
        if _FULL_STOP.search(prev):
            return 1.0
        if _CAPITAL.match(prev) and not prev.endswith(","):
            return -2.0  # after a list ("... Zombie, Zubera Cumulative Upkeep ...")
        if re.match(r"^\d{3}\.\d+[a-z]*$", prev):
            return -1.0  # after a reference without its period ("See rule 409.1f Toughness ...")
        return -6.0

    def score(self, i: int, j: int, lowers: int) -> float:
        """How much words[i:j] looks like a term whose definition starts at words[j]."""
        words = self.words
        term_words = words[i:j]
        content = [_norm_word(w) for w in term_words if w not in _SMALL and not _QUALIFIER.match(w)]
        content = [c for c in content if c]
        s = 0.0
        # the definition repeats the term's words ("Ability Word An ability word appears ...")
        window = [_norm_word(w) for w in words[j : j + _ECHO]]
        if content:
            hits = sum(any(_same_word(c, x) for x in window) for c in content)
            s += 3.0 * hits / len(content) - 1.5
        # ... or the whole term ('Imprinted [quality] card The phrase "imprinted [quality] card"')
        echoed = False
        if len(content) > 1:
            text = " " + _order_key(" ".join(words[j : j + _ECHO])) + " "
            parts = [_order_key(p) for p in _QUALIFIER_ANY.sub("", " ".join(term_words)).split(",")]
            echoed = any(" " in p and " " + p + " " in text for p in parts)
            if echoed:
                s += 3.0
        if lowers and not echoed:
            return float("-inf")  # '"Fading N" means "This permanent ...': a sentence
        s -= 1.5 * lowers
        # the definition starts like one ("A ...", "The ...", "Absorb is ...")
        first = words[j].strip('"“(')
        second_capital = j + 1 < len(words) and _CAPITAL.match(words[j + 1])
        if (
            first in _OPENERS
            or words[j].startswith(('"', "“"))
            or (content and _same_word(content[0], _norm_word(first.split("-")[0])))
        ):
            s += 1.0
            if first not in _OPENERS and second_capital:
                s -= 2.0  # 'Intervening | "If" Clause Triggered ...': the term goes on
        elif second_capital:
            s -= 4.0  # "Assign | Combat Damage As the ...": the term goes on
        if words[j] == "See" and j + 1 < len(words) and _CAPITAL.match(words[j + 1]):
            s += 3.0  # "APNAP Order See Active Player, Nonactive Player Order."
        if j == i + 1 and words[i] in _FUNCTION_WORDS and words[j] != "See":
            s -= 5.0  # "An Aura spell requires ...": a sentence
        elif words[i] in ("A", "An", "The"):
            s -= 4.0  # "The Grand Melee multiplayer variant ...": a sentence
        if _QUALIFIER.match(words[j - 1]):
            s += 2.0
        s -= 0.5 * max(0, j - i - 3)
        return s


_SENSE = re.compile(r"(?:(?<=[.!?:][\"'”’)] )|(?<=[.!?:] ))(\d)\. (?=[\"“]?[A-Z])")


def _layout(definition: str) -> str:
    """Numbered senses and examples on lines of their own, as in the official text files."""
    senses, want = [], 1
    for m in _SENSE.finditer(definition):
        if int(m.group(1)) == want:
            senses.append(m.start())
            want += 1
    cuts = set(senses) if len(senses) > 1 else set()
    cuts |= {m.start() for m in re.finditer(r"(?<= )" + EXAMPLE + " ", definition)}
    out, last = [], 0
    for cut in sorted(cuts):
        out.append(definition[last:cut].strip())
        last = cut
    out.append(definition[last:].strip())
    return "\n".join(part for part in out if part)


def _read_glossary(
    doc: str, start: int, end: int, file: str, notes: list[str]
) -> list[GlossaryEntry]:
    g = _Glossary(doc[start:end])
    chain = g.segment()
    if not chain:
        if g.words:
            raise _error(file, doc, start, "glossary terms ('Ability Word An ability word ...')")
        return []
    if chain[0].i:
        skipped = " ".join(g.words[: chain[0].i])[:60]
        notes.append(f"glossary: text before the first term ignored: {skipped}")
    entries = []
    for k, o in enumerate(chain):
        stop = len(g.words) if k + 1 == len(chain) else chain[k + 1].i
        definition = " ".join(g.words[o.j : stop])
        if not _FULL_STOP.search(definition):
            notes.append(f"glossary: the definition of {o.term!r} does not end with a period")
        if k and _disorder(chain[k - 1].key, o.key):
            before = chain[k - 1].term
            notes.append(f"glossary: {o.term!r} is out of alphabetical order after {before!r}")
        term = _clean(o.term)
        entries.append(glossary.entry(term, _layout(_clean(definition)), Source(file, 1)))
    notes.append(f"glossary: {len(entries)} terms recovered from the flattened text")
    return entries
