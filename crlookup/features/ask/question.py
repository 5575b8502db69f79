"""Reading a question against an edition's lexicon: its words, the terms, rules and cards it names.

A rule written by number ("702.19b") names that rule; words are read as the lexicon's are
(analyzer.py: case-folded, stemmed, question boilerplate and stop words dropped), misspelled
words are read as the nearest word the edition uses (crlookup.spelling; not a card's name,
capitalised inside a sentence), number words also look for digits, and players' phrases are
read as the rules' words for them (the lexicon's thesaurus: "blink", "summoning sick", "cast ...
this turn"). Then every term the question names is recognised, longest first ("first strike"
before "strike"); of two terms with one name, a keyword action and a thing ("counter", "exile"),
the word's form and the word before it choose ("countered", "you exile"; "counters", "from
exile").

The cards a question names are read too (named.py, with the library's cards; "Can my Giant
Spider block his Serra Angel?" turns on reach and flying): each card's layout and keywords
join the question's terms as strongly as terms it names itself, its types and the rules terms of
its text (crlookup.card_rules) less, its Oracle words as words worth CARD_WORDS; a card's
evidence counts only for entries the question's own words and terms reach (retrieve.py), and its
reasons name the card ("Giant Spider (card): reach → 702.17b").
"""

from __future__ import annotations

import re

from crlookup.core.errors import MAX_WORDS, CardsUnavailable, QuestionError
from crlookup.core.i18n import _
from crlookup.core.model import fold
from crlookup.core.numbers import WRITTEN, read_lookalikes
from crlookup.core.words import bases
from crlookup.features.ask.analyzer import NUMBER_WORDS, Analyzer
from crlookup.features.ask.cited import written
from crlookup.features.ask.lexicon import EXPANSION, GAP, MAX_TERM_WORDS, SIGNED, Lexicon
from crlookup.features.ask.named import named_in
from crlookup.features.ask.records import Question, Word
from crlookup.library.reader import Library

NUMBER = 0.5  # a number written as a word ("one turn" is seldom about the number 1)
# a card the question names (crlookup.cards): the rules behind it (crlookup.card_rules) join the
# question's terms, each kind weighted against a term the question names itself (1.0): its
# keywords, its card types, the rules terms and symbols of its text; and its text's words
CARD_LINKS = {"layout": 1.0, "keyword": 1.0, "type": 0.2, "term": 0.5, "symbol": 0.5}
CARD_WORDS = 0.3  # a word of a named card's Oracle text, against 1 for a word of the question
MAX_GAP = 4  # a GAP of the thesaurus ("cast ... this turn"): up to 4 words between
# a signed number names a loyalty ability (the thesaurus's SIGNED), not one of power, toughness,
# life or a cost ("-3 toughness", "go to -1", "+1/+1"): not after NOT_LOYALTY's words, nor before
# a word starting as its stems do
_SIGNED = re.compile(
    r"(?<![\w/+\-−–*])[+\-−–]\d+(?:['’]?(?:d|ed)\b)?"  # "+1", "−3", "+1'd"
    r"(?!\s*/|\s*[+\-−–]?\d|[\w%]|[.,]\d)"
)  # not "+1/+1", "+13+13", "+1.5"
NOT_LOYALTY = {
    "en": (
        {
            "to",
            "at",
            "gets",
            "get",
            "got",
            "gain",
            "gains",
            "gained",
            "give",
            "gives",
            "gave",
            "with",
            "by",
            "is",
            "are",
            "be",
            "was",
            "of",
            "than",
            "go",
            "goes",
            "went",
        },
        (
            "toughness",
            "power",
            "life",
            "mana",
            "damage",
            "card",
            "cost",
            "counter",
            "token",
            "creature",
        ),
    ),
    "ru": (
        {"до", "на", "получает", "получил", "получило", "дает", "даёт", "с", "от"},
        ("выносл", "сил", "жизн", "ман", "урон", "карт", "стоим", "жетон", "фишк", "существ"),
    ),
}
_NAME_WORD = re.compile(r"[^\W\d_]+")


def _phrase_at(key: tuple[str, ...], stems: list[str], j: int) -> list[int] | None:
    """Where the words of the phrase `key` that starts at `j` are (a GAP skips up to MAX_GAP
    words, which are not the phrase's)."""
    parts: list[list[str]] = [[]]
    for s in key:
        if s == GAP:
            parts.append([])
        else:
            parts[-1].append(s)
    at = j
    where: list[int] = []
    for k, part in enumerate(parts):
        starts = [at] if k == 0 else range(at, min(at + MAX_GAP, len(stems)) + 1)
        start = next((x for x in starts if stems[x : x + len(part)] == part), None)
        if start is None:
            return None
        where += range(start, start + len(part))
        at = start + len(part)
    return where


def _loyalty(an: Analyzer, text: str) -> dict[tuple[int, ...], str]:
    """The signed numbers of `text` that name loyalty abilities ("I +1'd Teferi", "his -3"):
    where their words are among `an.words(text)`, and each as written."""
    before_words, after_stems = NOT_LOYALTY[an.lang]
    out = {}
    for m in _SIGNED.finditer(text):
        before = an.words(text[: m.start()])
        after = an.words(text[m.end() :])
        if (
            text[: m.start()].rstrip().endswith("/")  # "+2 / +2"
            or (before[-1:] and before[-1] in before_words)
            or (after[:1] and after[0].startswith(after_stems))
        ):
            continue
        at = len(before)
        out[tuple(range(at, at + len(an.words(m.group()))))] = m.group()
    return out


def checked(text: str) -> str:
    """A question as it is read: printable, its spaces single; QuestionError if it is empty or
    has more than MAX_WORDS words, a Chinese character each (checked before anything is read:
    1,000 Chinese characters were read for seconds, and answered: issue 53)."""
    from crlookup.core.chinese import has_chinese, words

    text = " ".join("".join(c if c.isprintable() else " " for c in text).split())
    if not text:
        raise QuestionError(_("the question is empty"))
    if len(words(text)) > MAX_WORDS:
        if has_chinese(text):
            message = _("a question of at most {count} words (a Chinese character is one), please")
        else:
            message = _("a question of at most {count} words, please")
        raise QuestionError(message.format(count=MAX_WORDS))
    return text


def understand(lex: Lexicon, text: str, lib: Library | None = None) -> Question:
    """Read `text` against the lexicon: words, corrections, numbers and recognised terms; with
    the library, the cards it names too (if the library has cards)."""
    an = lex.analyzer
    text = checked(text)
    # a rule or subrule written by number is named, not searched for; its digits are no words
    latin = read_lookalikes(text)
    written = [n for n in WRITTEN.findall(latin) if "." in n]
    rules = tuple(n for n in dict.fromkeys(written) if n in lex.numbers)
    words_text = (  # the text read for words
        WRITTEN.sub(lambda m: " " if "." in m.group(1) else m.group(), latin) if written else text
    )
    named_cards = _named_cards(lex, lib, words_text) if lib is not None else []
    for mention, _cards in named_cards:  # a card's name is no question words but the rules'
        shown = _NAME_WORD.sub(  # ("Clone", "Fog": the card and what it does)
            lambda m: m.group() if fold(m.group()) in lex.vocab else " " * len(m.group()),
            mention.typed,
        )
        words_text = words_text[: mention.start] + shown + words_text[mention.end :]
    numbers_ = NUMBER_WORDS[an.lang]
    phrasebook = lex.phrasebook
    slang = {w for key in phrasebook for w in key}
    tokens: list[Word] = []  # every word, stop words included (players' phrases have them)
    digits: list[Word] = []  # "three" is also looked for as "3" ("Two-Headed Giant" stays)
    names = an.names(words_text)
    for typed in an.words(words_text):
        read = typed
        if typed in numbers_:
            digits.append(Word(typed, numbers_[typed], numbers_[typed], NUMBER))
        elif (
            typed not in an.stop
            and not typed.isdigit()
            and len(typed) >= 4
            and typed not in names
            and not _known(lex, typed)
            and an.stem(typed) not in slang
        ):
            read = _nearest(lex, typed) or typed
        tokens.append(Word(typed, read, an.stem(read)))
    signed = phrasebook.get((SIGNED,))
    loyalty = _loyalty(an, words_text) if signed else {}
    taken_by_sign = {p for at in loyalty for p in at}  # "+1'd" is no number 1
    kept = [
        p
        for p, w in enumerate(tokens)
        if w.typed not in an.stop and w.read not in an.stop and p not in taken_by_sign
    ]
    words = [tokens[p] for p in kept]
    sequences = [(words, kept)]  # the question's words, then the rules' words for each phrase
    phrases: list[tuple[int, str, str]] = []
    stems = [w.stem for w in tokens]
    taken = [False] * len(stems)
    # players' phrases, longest first, a phrase with a gap as long as it reaches ("cast ...
    # this turn"); the words in its gap are not its own: "cast Llanowar Elves this turn" names
    # the card too. A phrase is its own words, inflected, not others with their stems
    # ("unblocked" is not "unblockable", "activated" not "active")
    gapped = [(key, meant) for key, meant in phrasebook.items() if GAP in key]
    found: list[tuple[list[int], tuple]] = []
    for j in range(len(stems)):
        for n in range(min(6, len(stems) - j), 0, -1):
            meant = phrasebook.get(tuple(stems[j : j + n]))
            if meant is not None and any(
                an.inflected([w.read for w in tokens[j : j + n]], list(form), ing=True)
                for form in meant[3]
            ):
                found.append((list(range(j, j + n)), meant))
        found += [
            (at, gap_meant)
            for key, gap_meant in gapped
            if key[0] == stems[j] and (at := _phrase_at(key, stems, j)) is not None
        ]
    if signed:  # (loyalty is empty without it)
        found += [(list(at), signed) for at in loyalty]
    for at, meant in sorted(found, key=lambda f: (f[0][0] - f[0][-1], f[0][0])):
        if any(taken[p] for p in at):
            continue
        for p in at:
            taken[p] = True
        j = at[0]
        said = loyalty.get(tuple(at)) or " ".join(w.typed for w in tokens[j : at[-1] + 1])
        phrases.append((j, said, meant[0]))
        extra = [Word(said, w, s, EXPANSION, said) for w, s in zip(meant[1], meant[2])]
        sequences.append((extra, [j] * len(extra)))
    terms: list[tuple[int, int, str]] = []  # (where in the question, term, the words naming it)
    inferred: set[int] = set()  # terms named only by the rules' words for a player's phrase
    for seq_number, (seq_words, where) in enumerate(sequences):
        seq = [w.stem for w in seq_words]
        taken = [False] * len(seq)
        for n in range(MAX_TERM_WORDS, 0, -1):  # longest first: "first strike" before "strike"
            for j in range(len(seq) - n + 1):
                if any(taken[j : j + n]):
                    continue
                before = tokens[where[j] - 1].typed if not seq_number and where[j] else ""
                card = not seq_number and all(w.typed in names for w in seq_words[j : j + n])
                k = _named(
                    lex,
                    lex.term_index.get(tuple(seq[j : j + n])),
                    seq_words[j : j + n],
                    before,
                    card,
                )
                if k is not None:
                    taken[j : j + n] = [True] * n
                    if k not in (t for _p, t, _named in terms):
                        named = " ".join(w.read for w in seq_words[j : j + n])  # as read
                        terms.append((where[j], k, named))
                        if seq_number:
                            inferred.add(k)
    all_words = words + [w for extra, _where in sequences[1:] for w in extra]
    found_numbers = tuple(w.read for w in words + digits if w.read.isdigit())
    all_words += digits
    card_terms, card_words, card_rulings = _card_evidence(
        lex, lib, named_cards, {k for _p, k, _n in terms}
    )
    return Question(
        text,
        lex.lang,
        tuple(all_words + card_words),
        tuple((k, named) for _p, k, named in sorted(terms)),
        tuple((said, meant) for _p, said, meant in sorted(phrases)),
        found_numbers,
        frozenset(inferred),
        rules,
        tuple((m.typed, card.name) for m, found in named_cards for card in found[:1]),
        tuple(card_terms),
        tuple(card_rulings),
    )


def _named_cards(lex: Lexicon, lib: Library, text: str) -> list[tuple]:
    """The cards `text` names (named.py), each mention with the cards it is read as: one, or for a short name that fits several ("Thalia") the one whose text
    shares the most words with the question, else all of them (what they share counts)."""
    try:
        cards = lib.cards()
    except CardsUnavailable:
        return []
    an = lex.analyzer
    written_words = written("en")

    def rules(word: str) -> bool:
        return (
            word in lex.vocab or word in an.stop or word.isdigit() or word in NUMBER_WORDS[an.lang]
        )

    def known(word: str) -> bool:
        return rules(word) or any(b in lex.vocab or b in written_words for b in bases(word))

    def term(name: str) -> bool:
        words = name.split()
        ks = lex.term_index.get(tuple(an.stem(w) for w in words if w not in an.stop), ())
        return any(
            len(n.split()) == len(words) and an.inflected(words, an.words(n))
            for k in ks
            for n in lex.terms[k].names
        )

    asked = set(an.stems(text))
    out = []
    for mention in named_in(cards, text, known=known, rules=rules, term=term):
        found = [cards.get(i) for i in mention.cards]
        if len(found) > 1:
            overlap = [len(asked & set(an.stems(" ".join(f.text for f in c.faces)))) for c in found]
            if overlap.count(max(overlap)) == 1:
                found = [found[overlap.index(max(overlap))]]
        out.append((mention, found))
    return out


def _card_evidence(
    lex: Lexicon, lib: Library | None, named_cards: list[tuple], named: set[int]
) -> tuple[list, list[Word], list]:
    """What the named cards bring to the question: their rules as the lexicon's terms
    (crlookup.card_rules; for cards one name may mean, the rules all of them have), weighted
    by kind, unless the question names the term itself; the words of their Oracle text; and
    the official rulings of each card named for certain, with the rules they apply (in the
    newest English edition's numbers, so only against that edition)."""
    if not named_cards:
        return [], [], []
    assert lib is not None  # cards are named only where there is a library to find them in
    from crlookup.features import card_rules

    an = lex.analyzer
    by_number = lex.term_numbers
    terms: dict[int, tuple[int, str, str, float, str]] = {}
    words: list[Word] = []
    rulings: list[tuple[str, str, str, tuple[str, ...]]] = []
    rulings_apply = (
        lex.lang == "en"
        and lib.cards().rulings_unavailable is None
        and lex.edition == lib.edition().id
    )
    for mention, found in named_cards:
        linked = [card_rules.links(lib, lex.edition, card) for card in found]
        shared = set.intersection(*({link.number for link in links} for links in linked))
        card = found[0].name if len(found) == 1 else mention.typed
        for link in linked[0]:
            weight = CARD_LINKS.get(link.kind, 0.0)
            k = by_number.get(link.number)
            if (
                not weight
                or k is None
                or k in named
                or link.number not in shared
                or (link.kind == "type" and not link.glossary)
            ):  # "Spider": a list of types
                continue
            if k not in terms or terms[k][3] < weight:
                terms[k] = (k, card, link.name, weight, link.kind)
        if len(found) == 1 and rulings_apply:
            for r in card_rules.rulings(lib, found[0]):
                if r.rules:
                    rulings.append((found[0].name, r.date, r.text, tuple(r.rules)))
        if len(found) == 1:
            own = {fold(n) for f in found[0].faces for n in (f.name, found[0].name)}
            text = fold(" ".join(f.text for f in found[0].faces))
            for name in own:
                text = text.replace(name, " ")
            for w in dict.fromkeys(an.words(text)):
                if w not in an.stop:
                    words.append(Word(card, w, an.stem(w), CARD_WORDS, card=card))
    return list(terms.values()), words, rulings


def _named(
    lex: Lexicon,
    ks: tuple[int, ...] | None,
    words: list[Word],
    before: str = "",
    card: bool = False,
) -> int | None:
    """Of the terms with these stems, the one the words name: "commander" is Commander, not
    the command zone; "phase" is Phase, not Phasing; "countered", "I counter" the keyword
    action Counter, "counters", "a +1/+1 counter" Counters (`before`: the word typed before
    them); else the first that names a rule ("blocking" is Block), unless the words are part
    of a card's name (`card`: "Evolving Wilds" is no Evolve)."""
    if not ks:
        return None
    an = lex.analyzer
    typed = [w.read for w in words]
    named = [
        k for k in ks if any(an.inflected(typed, an.words(name)) for name in lex.terms[k].names)
    ]
    actions = [k for k in named if lex.terms[k].kind == "701"]
    if actions and len(actions) < len(named):  # a verb's, or a noun's?
        verb = an.verb(typed[-1], before)
        if verb is not None:
            return (actions if verb else [k for k in named if k not in actions])[0]
    if named or card:
        return next(iter(named), None)
    # none by its own words: a rule's term that the words derive from ("blocking" is Block),
    # not a glossary entry that names no rule ("unblocked" is no "Unblockable", obsolete)
    return next((k for k in ks if lex.terms[k].number), None)


def _known(lex: Lexicon, word: str) -> bool:
    """A word of the rules, or one players write: no typo to correct ("sure" is no "surge")."""
    return word in lex.vocab or lex.analyzer.stem(word) in lex.postings or word in written(lex.lang)


def _nearest(lex: Lexicon, word: str) -> str | None:
    from crlookup.core.spelling import nearest

    # typos ("deathtuch", "tramlpe", "libary") score 86-95; "shrink" as "shrine" 83
    return nearest(word, lex.vocab, 85)
