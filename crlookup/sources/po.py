"""The gettext format: a .po catalogue of a Sphinx/reStructuredText edition of the CR.

Layout (data/cr-2013-11-01-pl.po, the CR effective November 1, 2013): a header entry, then
one entry per distinct paragraph of ``comprules.rst``::

    #: ../../comprules.rst:34
    msgid "100.1"
    msgstr ""

    #: ../../comprules.rst:35
    msgid "These *Magic* rules apply to any *Magic* game ..."
    msgstr ""

The English text is in the msgids; a rule number ("100.1a") is one message and its text the
next. gettext keeps each distinct text once, with every place it occurs as a location, so the
document is rebuilt from the locations, not from the order of the messages: the messages are
in order of first occurrence (that order is kept where the line numbers of Sphinx disagree,
as in 810.7b), and every further location of a message is merged in by its line. Before the
"Glossary" heading come the title, the effective date, the introduction and the rules
(chapters "1. Game Concepts", sections "100. General", numbers, texts, continuation
paragraphs, "**Example:**" paragraphs); between "Glossary" and "Credits" the glossary, where
Sphinx gives a term the line of the end of its definition list item, so a term shares its
line with the last paragraph of its definition and follows its earlier paragraphs; the
credits are not read. Definition paragraphs on consecutive lines are reST enumerated list
items ("1.", "2." in the official text) and get their numbers back.

Inline reST becomes clean text: ``*italic*`` and ``**Example:**`` markers are dropped,
``|tap|``, ``|mana_wu|``... become {T}, {W/U}... (adjacent symbols are joined: "{1}{U}"),
``:ref:`100.2a <mtgcr-100-2a>``` becomes its text "100.2a" (so "rule :ref:`702 <mtgcr-702>`.7"
reads "rule 702.7"), ``:term:`Kicker``` and ```Turn Structure <...>``` their text,
```Wizards.com/Locator`_`` the link text, and ``:mtgtip:`Meteor Crater``` the card name,
also recorded as a card mention of the entry.

Contract: ``read`` returns two editions: "en" (the complete English text) and, when the
catalogue translates anything, a partial edition in the catalogue's language (its
``Language:`` header) holding only the entries whose names are translated (the Polish layer:
nine keyword names), whose English entries also get the name in ``translations``. Source lines
are lines of the .po file (the msgid of the rule number, heading or glossary term). The .po
syntax is checked line by line before babel reads it (babel silently mends broken strings):
an unterminated or badly escaped string, a msgid without msgstr, an unknown keyword, a
location without a line number, a duplicate msgid, a catalogue cut short (a message still
refers to lines after its last message), a catalogue without the effective-date sentence or
without numbered rules all raise `SourceError` with the line, and nothing else is raised.
"""

from __future__ import annotations

import codecs
import re
from datetime import date
from pathlib import Path
from typing import NamedTuple

from crlookup.core.errors import SourceError
from crlookup.core.model import Edition, Rule, Source
from crlookup.sources import dates, glossary
from crlookup.sources.encoding import split_lines
from crlookup.sources.tree import RuleTree

# ---------------------------------------------------------------------------------------------
# .po syntax


_KEYWORD = re.compile(r"^(msgctxt|msgid|msgid_plural|msgstr(?:\[\d+\])?)\s+(.*)$")
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
_ESCAPE = re.compile(r"\\(.)")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}
_LOCATION = re.compile(r"^\S+:\d+$")
_CHARSET = re.compile(rb"charset=([A-Za-z0-9_.:-]+)")


class _Entry(NamedTuple):
    msgid: str
    msgstr: str
    line: int  # of the msgid


def _unquote(rest: str, file: str, line: int, raw: str) -> str:
    m = _STRING.fullmatch(rest.strip())
    if not m:
        raise SourceError(file, line, 'a quoted string ("...", ending on the same line)', raw)
    body = m.group(1)
    for e in _ESCAPE.finditer(body):
        if e.group(1) not in _ESCAPES:
            raise SourceError(file, line, 'a string escape \\n, \\t, \\r, \\" or \\\\', raw)
    return _ESCAPE.sub(lambda e: _ESCAPES[e.group(1)], body)


def _decode(data: bytes, file: str) -> str:
    if data.startswith(codecs.BOM_UTF8):
        data = data[3:]
    m = _CHARSET.search(data[:8000])
    codec = m.group(1).decode("ascii").lower() if m else "utf-8"
    if codec == "charset":  # the template placeholder "charset=CHARSET"
        codec = "utf-8"
    try:
        if codecs.lookup(codec).name.startswith(("utf-16", "utf-32")):
            raise LookupError(codec)
    except LookupError:
        line = data[: m.start()].count(b"\n") + 1 if m else 1
        raise SourceError(file, line, "a known ASCII-compatible charset", codec) from None
    try:
        return data.decode(codec)
    except UnicodeDecodeError as e:
        line = len(split_lines(data[: e.start].decode(codec, errors="replace")))
        found = data[e.start : e.start + 4].hex(" ")
        raise SourceError(file, line, f"text in the declared charset {codec}", found) from None


def _check_syntax(lines: list[str], file: str) -> list[_Entry]:
    """Check the .po grammar line by line; return the entries (msgid, msgstr, line)."""
    entries: list[_Entry] = []
    seen: set[tuple[str | None, str]] = set()
    state = "idle"  # idle | ctxt | id | plural | str
    ctxt: str | None = None
    msgid = msgstr = ""
    msgid_line = 0
    target = ""  # which string a continuation line extends

    def finish() -> None:
        nonlocal ctxt
        key = (ctxt, msgid)
        if key in seen:
            raise SourceError(file, msgid_line, "a msgid not already in the catalogue", msgid)
        seen.add(key)
        entries.append(_Entry(msgid, msgstr, msgid_line))
        ctxt = None

    def wanted() -> str:
        if state == "ctxt":
            return "a msgid after the msgctxt"
        return f"a msgstr for the msgid of line {msgid_line}"

    last = 1
    for i, raw in enumerate(lines, 1):
        s = raw.strip()
        if not s:
            continue
        last = i
        if s.startswith("#"):
            if state in ("ctxt", "id", "plural"):
                raise SourceError(file, i, wanted(), raw)
            if state == "str":
                finish()
                state = "idle"
            if s.startswith("#:"):
                for loc in s[2:].split():
                    if not _LOCATION.match(loc):
                        raise SourceError(file, i, "a location such as comprules.rst:123", loc)
            continue
        if s.startswith('"'):
            if state == "idle":
                raise SourceError(file, i, "a keyword (msgid, msgstr) before a string", raw)
            piece = _unquote(s, file, i, raw)
            if target == "msgid":
                msgid += piece
            elif target == "msgstr":
                msgstr += piece
            elif target == "msgctxt":
                ctxt = (ctxt or "") + piece
            continue
        m = _KEYWORD.match(s)
        if not m:
            raise SourceError(
                file, i, "a msgid, msgstr or msgctxt line, a string or a comment", raw
            )
        keyword, rest = m.groups()
        value = _unquote(rest, file, i, raw)
        if keyword in ("msgctxt", "msgid"):
            if state in ("ctxt", "id", "plural") and not (keyword == "msgid" and state == "ctxt"):
                raise SourceError(file, i, wanted(), raw)
            if state == "str":
                finish()
            if keyword == "msgctxt":
                ctxt, state, target = value, "ctxt", "msgctxt"
            else:
                msgid, msgstr, msgid_line, state, target = value, "", i, "id", "msgid"
        elif keyword == "msgid_plural":
            if state != "id":
                raise SourceError(file, i, "msgid_plural right after a msgid", raw)
            state, target = "plural", ""
        elif keyword == "msgstr":
            if state != "id":
                raise SourceError(file, i, "msgstr right after a msgid", raw)
            msgstr, state, target = value, "str", "msgstr"
        else:  # msgstr[n]
            if state not in ("plural", "str"):
                raise SourceError(file, i, "msgstr[n] after a msgid_plural", raw)
            if keyword == "msgstr[0]":
                msgstr = value
            state, target = "str", ("msgstr" if keyword == "msgstr[0]" else "")
    if state in ("ctxt", "id", "plural"):
        raise SourceError(file, last, wanted() + " (the file ends)")
    if state == "str":
        finish()
    return entries


def _catalogue(lines: list[str], file: str):
    """The babel catalogue of the checked lines (obsolete #~ entries left out)."""
    from babel.messages.pofile import PoFileError, read_po

    live = ["" if line.lstrip().startswith("#~") else line for line in lines]
    try:
        return read_po(live, abort_invalid=True)
    except PoFileError as e:
        raise SourceError(file, (e.lineno or 0) + 1, "a gettext catalogue", str(e)) from None
    except Exception as e:  # noqa: BLE001 (babel's own checks: headers, locale, plural forms)
        found = f"{type(e).__name__}: {e}"
        raise SourceError(file, 1, "a gettext catalogue babel can read", found) from None


def sniff(data: bytes) -> bool:
    """A gettext catalogue: msgid and msgstr lines near the top."""
    head = data[:65536]
    if head.startswith(codecs.BOM_UTF8):
        head = head[3:]
    return bool(re.search(rb'(?m)^msgid[ \t]+"', head) and re.search(rb'(?m)^msgstr[ \t]+"', head))


# ---------------------------------------------------------------------------------------------
# reStructuredText to clean text

_SUBSTITUTION = re.compile(r"\|([A-Za-z0-9_]+)\|")
_ADJACENT = re.compile(r"(\|[A-Za-z0-9_]+\|)[ \t]+(?=\|[A-Za-z0-9_]+\|)")
_ROLE = re.compile(r":(ref|term|mtgtip|doc|dfn|abbr):`([^`]*)`")
_INTERPRETED = re.compile(r"`([^`]+)`(?!_)")
_LINK = re.compile(r"`([^`<]+?)\s*(?:<[^>`]*>)?`__?(>?)")
_TARGET = re.compile(r"^(.*?)\s*<[^<>]*>$", re.S)
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
# reST inline markup: a start-string after whitespace or an opening punctuation, not followed by
# whitespace or its own closing character ("(*)" is a literal star), an end-string before
# whitespace or punctuation ("1+*" is a literal star too).
_ITALIC = re.compile(
    r"(?<![^\s\-:/'\"<(\[{])\*(?![\s*)\]}>'\"])(.+?)(?<![\s*])\*(?=$|[\s\-.,:;!?/'\")\]}>])",
    re.S,
)
EXAMPLE = "**Example:**"
_MANA_PAIR = "wubrg"


def symbol(name: str) -> str | None:
    """The CR notation of a reST substitution: tap -> {T}, mana_wu -> {W/U}, mana_2w -> {2/W}."""
    if name == "tap":
        return "{T}"
    if name == "untap":
        return "{Q}"
    if not name.startswith("mana_"):
        return None
    m = name[5:]
    if m == "snow":
        return "{S}"
    if re.fullmatch(r"\d+|[wubrgxyzcps]", m):
        return "{" + m.upper() + "}"
    if re.fullmatch(rf"[{_MANA_PAIR}2][{_MANA_PAIR}]|[{_MANA_PAIR}]p", m):
        return "{" + m[0].upper() + "/" + m[1].upper() + "}"
    return None


def clean(
    text: str, file: str = "", line: int = 0, notes: list[str] | None = None
) -> tuple[str, list[str]]:
    """Clean text and the card names it marks; SourceError for an unknown |substitution|.

    `file` and `line` name the message in errors and notes; a repair is noted in `notes`.
    """
    cards: list[str] = []

    def sub(m: re.Match) -> str:
        s = symbol(m.group(1))
        if s is None:
            raise SourceError(file, line, "a symbol such as |tap| or |mana_u|", m.group())
        return s

    def role(m: re.Match) -> str:
        kind, body = m.groups()
        t = _TARGET.match(body)
        shown = (t.group(1) if t and t.group(1) else body).strip()
        if kind == "mtgtip" and shown and shown not in cards:
            cards.append(shown)
        # ":mtgtip:`Vastwood Gorger `(a 5/6 creature)": the space belongs to the text
        space = body[len(body.rstrip()) :]
        return shown + (" " if space else "")

    def link(m: re.Match) -> str:
        if m.group(2) and notes is not None:  # "`Gatherer.Wizards.com`_>": "<x>" half converted
            notes.append(f"line {line}: stray '>' after the link {m.group(1)} dropped")
        return m.group(1)

    text = _ROLE.sub(role, text)
    text = _LINK.sub(link, text)
    text = _INTERPRETED.sub(lambda m: (_TARGET.match(m.group(1)) or m).group(1), text)
    text = _ADJACENT.sub(r"\1", text)
    text = _SUBSTITUTION.sub(sub, text)
    text = _BOLD.sub(r"\1", text)
    text = _ITALIC.sub(r"\1", text)
    return text.strip(), cards


# ---------------------------------------------------------------------------------------------
# the document


class _Occ(NamedTuple):
    key: tuple[int, int]  # (rank of the .rst file, line in it)
    msg: int  # index of the message in catalogue order
    first: bool  # the message's first location


_RULE_NUMBER = re.compile(r"^([1-9]\d{2}\.\d+[a-z]*)\.?$")
_SECTION = re.compile(r"^([1-9]\d{2})\.\s+(\S.*)$", re.S)
_CHAPTER = re.compile(r"^([1-9])\.\s+(\S.*)$", re.S)


def _is_heading_title(title: str) -> bool:
    return len(title) <= 100 and "\n" not in title and not title.rstrip().endswith(tuple(".!?:"))


def _term_like(text: str) -> bool:
    return len(text) <= 100 and "`" not in text and not text.rstrip().endswith((".", ":"))


class _Message(NamedTuple):
    id: str
    string: str
    line: int


def read(path: Path, data: bytes) -> list[Edition]:
    file = Path(path).name
    text = _decode(data, file)
    lines = split_lines(text)
    entries = _check_syntax(lines, file)
    cat = _catalogue(lines, file)

    live = [e for e in entries if e.msgid]
    if len(live) != len(cat):
        raise SourceError(file, 1, f"{len(live)} messages as written", f"babel read {len(cat)}")
    messages: list[_Message] = []
    located: list[list[tuple[str, int]]] = []
    for m in cat:
        if not m.id or not isinstance(m.id, str):  # the header; plural messages are not CR text
            continue
        string = m.string if isinstance(m.string, str) and not m.fuzzy else ""
        messages.append(_Message(m.id, string, m.lineno or 1))
        places = {(f, n) for f, n in m.locations if isinstance(n, int)}
        located.append(sorted(places, key=lambda p: p[1]))
    header = next((e.msgstr for e in entries if not e.msgid), "")

    ranks: dict[str, int] = {}
    occs: list[_Occ] = []
    for i, locs in enumerate(located):
        for j, (f, n) in enumerate(locs):
            occs.append(_Occ((ranks.setdefault(f, len(ranks)), n), i, j == 0))
    if not occs:
        raise SourceError(file, 1, "messages with source locations (#: comprules.rst:LINE)")
    last_line = max((i for i, line in enumerate(lines, 1) if line.strip()), default=1)
    _check_complete(occs, messages, file, last_line)

    day = _effective_date(occs, messages, file)
    glossary_key = _heading_key(occs, messages, "Glossary")
    credits_key = _heading_key(occs, messages, "Credits")
    if credits_key and glossary_key and credits_key < glossary_key:
        credits_key = None
    end_rules = glossary_key or credits_key
    rules_part = [o for o in occs if end_rules is None or o.key < end_rules]
    gloss_part = (
        [o for o in occs if glossary_key < o.key and (credits_key is None or o.key < credits_key)]
        if glossary_key
        else []
    )

    tree = RuleTree(file)
    notes: list[str] = []
    roles: dict[int, list[tuple[str, str]]] = {}  # message -> [(role, rule number or term)]
    title = _read_rules(_merge(rules_part), messages, tree, roles, file, notes)
    if not any(r.kind in ("rule", "subrule") for r in tree.rules()):
        raise SourceError(file, last_line, 'numbered rules such as msgid "100.1" and its text')
    terms = _read_glossary(gloss_part, messages, roles, file, notes)

    rules = tree.rules()
    lang = _language(header)
    translated = {i: m.string for i, m in enumerate(messages) if m.string}
    editions = []
    if translated:
        if not lang:
            raise SourceError(file, 1, "a Language: header naming the language of the translations")
        rules, terms, local = _translations(
            rules, terms, translated, messages, roles, lang, file, notes
        )
        editions.append(local)
    english = Edition(
        lang="en",
        date=day,
        source=file,
        rules=rules,
        glossary=tuple(terms),
        title=title,
        notes=tuple(tree.notes + notes),
    )
    return [english] + [e._replace(date=day, title=title) for e in editions]


def _check_complete(occs: list[_Occ], messages: list[_Message], file: str, last_line: int) -> None:
    """A catalogue cut at a message boundary still refers to the lines it lost."""
    last_first = max(o.key for o in occs if o.first)
    beyond = [o for o in occs if o.key > last_first]
    if beyond:
        o = max(beyond)
        raise SourceError(
            file,
            last_line,
            f"the rest of the catalogue (the message of line {messages[o.msg].line} also stands at "
            f"source line {o.key[1]}, after the last message)",
        )


def _effective_date(occs: list[_Occ], messages: list[_Message], file: str) -> date:
    for o in sorted(occs):
        msg = messages[o.msg]
        day = dates.stated(msg.id, file, msg.line)
        if day:
            return day
    raise SourceError(
        file, 1, "the sentence 'These rules are effective as of <Month D, YYYY>.' in a msgid"
    )


def _heading_key(occs: list[_Occ], messages: list[_Message], heading: str):
    keys = [o.key for o in occs if messages[o.msg].id.strip() == heading]
    return min(keys) if keys else None


def _merge(part: list[_Occ]) -> list[_Occ]:
    """Document order: first occurrences in catalogue order, later ones merged in by line."""
    firsts = [o for o in part if o.first]  # already in catalogue order
    repeats = sorted((o for o in part if not o.first), key=lambda o: (o.key, o.msg))
    out: list[_Occ] = []
    i = j = 0
    while i < len(firsts) or j < len(repeats):
        if j < len(repeats) and (i == len(firsts) or repeats[j].key < firsts[i].key):
            out.append(repeats[j])
            j += 1
        else:
            out.append(firsts[i])
            i += 1
    return out


def _read_rules(
    seq: list[_Occ],
    messages: list[_Message],
    tree: RuleTree,
    roles: dict,
    file: str,
    notes: list[str],
) -> str:
    """Feed the rules part to the tree; return the document title."""
    title = ""
    pending: tuple[str, int] | None = None  # a rule number waiting for its text
    started = False
    for o in seq:
        msg = messages[o.msg]
        raw = msg.id.strip()
        number = _RULE_NUMBER.match(raw)
        if number:
            if pending:
                notes.append(f"line {pending[1]}: rule {pending[0]} has no text")
                tree.entry(pending[0], "", pending[1])
            pending = (number.group(1), msg.line)
            started = True
            continue
        if raw.startswith(EXAMPLE) and started:
            if pending:
                notes.append(f"line {pending[1]}: rule {pending[0]} has no text")
                tree.entry(pending[0], "", pending[1])
                pending = None
            body, cards = clean(raw[len(EXAMPLE) :], file, msg.line, notes)
            tree.example(body, msg.line)
            _cards(tree, cards)
            continue
        if not pending:
            heading = None
            for pattern in (_SECTION, _CHAPTER):
                h = pattern.match(raw)
                if h and _is_heading_title(h.group(2)) and tree.fits(h.group(1)):
                    heading = h
                    break
            if heading:
                name, cards = clean(heading.group(2), file, msg.line)
                tree.heading(heading.group(1), name, msg.line)
                _cards(tree, cards)
                roles.setdefault(o.msg, []).append(("heading", heading.group(1)))
                started = True
                continue
        body, cards = clean(raw, file, msg.line, notes)
        if not started:
            if not title and "Comprehensive Rules" in body:
                title = body
            continue
        if pending:
            tree.entry(pending[0], body, pending[1])
            roles.setdefault(o.msg, []).append(("rule", pending[0]))
            pending = None
        else:
            tree.continuation(body, msg.line)
        _cards(tree, cards)
    if pending:
        notes.append(f"line {pending[1]}: rule {pending[0]} has no text")
        tree.entry(pending[0], "", pending[1])
    return title or "Magic: The Gathering Comprehensive Rules"


def _cards(tree: RuleTree, cards: list[str]) -> None:
    for name in cards:
        tree.card(name)


def _read_glossary(
    part: list[_Occ], messages: list[_Message], roles: dict, file: str, notes: list[str]
) -> list:
    """Terms and definitions: a term shares its line with its definition's last paragraph."""
    groups: dict[tuple[int, int], list[_Occ]] = {}
    for o in part:
        groups.setdefault(o.key, []).append(o)
    items: list[tuple[_Occ, list[_Occ]]] = []
    pending: list[_Occ] = []
    for key in sorted(groups):
        group = sorted(groups[key], key=lambda o: (not o.first, o.msg))
        if len(group) == 1:
            pending.append(group[0])
            continue
        picked = _pick_term(group, messages)
        rest = [o for o in group if o is not picked]
        items.append((picked, pending + rest))
        pending = []
    if pending:
        last = pending[-1]
        if _term_like(messages[last.msg].id):
            items.append((last, pending[:-1]))
        elif items:
            line = messages[pending[0].msg].line
            notes.append(f"line {line}: glossary paragraphs after the last term joined to it")
            items[-1][1].extend(pending)
        else:
            msg = messages[last.msg]
            raise SourceError(file, msg.line, "a glossary term", msg.id)
    out = []
    for term_occ, paras in items:
        term_msg = messages[term_occ.msg]
        term, _ = clean(term_msg.id, file, term_msg.line)
        texts = []
        numbered = _list_numbers([p.key[1] for p in paras])
        for p, n in zip(paras, numbered):
            body, _ = clean(messages[p.msg].id, file, messages[p.msg].line, notes)
            texts.append(f"{n}. {body}" if n else body)
        if not texts:
            notes.append(f"line {term_msg.line}: glossary term {term!r} has no definition")
        roles.setdefault(term_occ.msg, []).append(("term", term))
        out.append(glossary.entry(term, "\n".join(texts), Source(file, term_msg.line)))
    return out


def _pick_term(group: list[_Occ], messages: list[_Message]) -> _Occ:
    like = [o for o in group if _term_like(messages[o.msg].id)]
    if len(like) == 1:
        return like[0]
    if all(o.first for o in group):
        return min(group, key=lambda o: o.msg)  # the term comes first in the catalogue
    return min(like or group, key=lambda o: (len(messages[o.msg].id), o.msg))


def _list_numbers(lines: list[int]) -> list[int]:
    """Item numbers for paragraphs on consecutive lines (a reST enumerated list), else 0."""
    out = [0] * len(lines)
    i = 0
    while i < len(lines):
        j = i
        while j + 1 < len(lines) and lines[j + 1] == lines[j] + 1:
            j += 1
        if j > i:
            for k in range(i, j + 1):
                out[k] = k - i + 1
        i = j + 1
    return out


def _language(header: str) -> str:
    m = re.search(r"(?m)^Language:[ \t]*([A-Za-z]{2,3})(?:[_-][A-Za-z0-9]+)?[ \t]*$", header)
    return m.group(1).lower() if m else ""


def _translations(rules, terms, translated, messages, roles, lang, file, notes):
    """Attach translated names to the English entries; build the partial translated edition."""
    by_rule: dict[str, tuple[str, int]] = {}
    by_term: dict[str, tuple[str, int]] = {}
    for i, name in translated.items():
        name = name.strip()
        used = roles.get(i, [])
        for role, key in used:
            if role in ("rule", "heading"):
                by_rule[key] = (name, i)
            else:
                by_term[key] = (name, i)
        if not used:
            notes.append(f"line {messages[i].line}: translation {name!r} is not of a name")
    out_rules, local_rules = [], []
    for r in rules:
        if r.number in by_rule:
            name, i = by_rule[r.number]
            if r.kind in ("rule", "subrule") and not r.title:
                notes.append(f"line {messages[i].line}: translation of the text of {r.number}")
            else:
                name = re.sub(rf"^{re.escape(r.number)}\.\s*", "", name)
                english = r.title or r.text
                r = r._replace(translations=(*r.translations, (lang, name)))
                local_rules.append(
                    Rule(
                        number=r.number,
                        kind=r.kind,
                        text="" if r.kind in ("chapter", "section") else name,
                        source=Source(file, messages[i].line),
                        title=name,
                        translations=(("en", english),),
                    )
                )
        out_rules.append(r)
    out_terms, local_terms = [], []
    for g in terms:
        if g.term in by_term:
            name, i = by_term[g.term]
            g = g._replace(translations=(*g.translations, (lang, name)))
            source = Source(file, messages[i].line)
            local_terms.append(glossary.entry(name, "", source, english=g.term))
        out_terms.append(g)
    local = Edition(
        lang=lang,
        date=date.min,
        source=file,
        rules=tuple(local_rules),
        glossary=tuple(local_terms),
        partial=True,
        notes=(f"the {lang} translations of the catalogue: names only",),
    )
    return tuple(out_rules), out_terms, local
