"""The Markdown parser on the Russian translation (data/cr-2019-01-25-ru.md).

Expectations are derived independently of the parser: the test reads the raw lines itself,
counts numbered lines, example labels and Cyrillic-lettered numbers with its own loose
patterns, rebuilds the glossary's term list from the English edition of the same date, and
cleans the Markdown with its own replacements to check that every text came from the file.
"""

from __future__ import annotations

import codecs
import contextlib
import re
from collections import Counter
from datetime import date
from pathlib import Path

import pytest
from conftest import OFFICIAL, examples
from hypothesis import given, settings
from hypothesis import strategies as st

from crlookup.core import numbers
from crlookup.core import references as refs
from crlookup.core.errors import SourceError
from crlookup.sources import markdown, text

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
NAME = "cr-2019-01-25-ru.md"
ENGLISH = "MagicCompRules-2019-01-25.txt"
CUT = ROOT / "tests" / "data" / "markdown" / "cut.md"

# Numbers of the English edition that the translation leaves out (it has none of its own).
MISSING = {
    "117.7a", "117.7b", "117.7c", "117.7d", "117.7e", "117.7f", "212.1d", "212.1e", "212.1f",
    "302.4a", "302.4b", "302.4c", "302.5", "302.6", "302.7", "406.8", "513.2", "606.3", "606.4",
    "606.5", "700.2g", "701.33e", "701.33f", "701.33g", "701.38d", "702.36d", "702.36e",
    "702.36f", "702.36g", "903.11h",
}  # fmt: skip
# Terms of the English glossary (2019-01-25) that the translation has no entry for.
UNTRANSLATED_TERMS = {"Adapt", "Afterlife", "Riot", "Spectacle"}


def raw_lines() -> list[str]:
    return (DATA / NAME).read_bytes().decode("utf-8").split("\n")


def parts() -> tuple[list[str], list[str]]:
    """The body (from "# 1. Основы игры") and the glossary, as raw lines."""
    lines = raw_lines()
    start = lines.index("# 1. Основы игры")
    end = lines.index("## Словарь терминов")
    return lines[start:end], lines[end + 1 :]


def loose_clean(line: str) -> str:
    """The documented cleaning, done the simple way: enough for this one file."""
    s = re.sub(r"^#+\s*", "", line.strip())
    s = re.sub(r" ?\$([^$]*)\$ ?", lambda m: m.group(1).replace("\\{", "{").replace("\\}", "}"), s)
    s = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", s)
    s = s.replace("\\*", "\0").replace("*", "").replace("\0", "*")
    s = s.replace("\\_", "_").rstrip("\\")
    return s.strip()


@pytest.fixture(scope="module")
def edition():
    [e] = markdown.read(DATA / NAME, (DATA / NAME).read_bytes())
    return e


@pytest.fixture(scope="module")
def by_number(edition):
    return {r.number: r for r in edition.rules}


@pytest.fixture(scope="module")
def by_english(edition):
    return {g.english: g for g in edition.glossary}


@pytest.fixture(scope="module")
def english():
    [e] = text.read(OFFICIAL / ENGLISH, (OFFICIAL / ENGLISH).read_bytes())
    return e


def test_identity(edition):
    assert edition.id == "ru-2019-01-25"
    assert edition.lang == "ru" and edition.date == date(2019, 1, 25) and not edition.partial
    assert edition.title == "Полные правила Magic: The Gathering"
    assert edition.source == NAME


def test_counts_match_the_numbered_lines(edition):
    body, _ = parts()
    want = Counter()
    for line in body:
        s = re.sub(r"^[#\s]*", "", line)
        if re.match(r"^\d{3}\.\d+[a-zа-я]+\s", s):
            want["subrule"] += 1
        elif re.match(r"^\d{3}\.\d+\.?\s", s):
            want["rule"] += 1
        elif re.match(r"^\d\.\s", s):
            want["chapter"] += 1
        # one rule is printed inside the example before it: "... Чародей. 302.4. Сила ..."
        want["rule"] += len(re.findall(r"\. \d{3}\.\d+\. [А-Я]", s))
        if re.match(r"^\**Пример:", s):
            want["example"] += 1
    got = Counter(r.kind for r in edition.rules)
    kinds = ("rule", "subrule", "chapter")
    assert [got[k] for k in kinds] == [want[k] for k in kinds] == [933, 1365, 9]
    assert sum(len(r.examples) for r in edition.rules) == want["example"] == 242


def test_sections_from_the_body_and_the_contents(edition, by_number):
    lines = raw_lines()
    contents = {
        m.group(1): m.group(2)
        for line in lines[: lines.index("# 1. Основы игры")]
        if (m := re.match(r"^\s*- (\d{3})\. (.*)$", line))
    }
    body, _ = parts()
    in_body = {m.group(1) for line in body if (m := re.match(r"^[#\s]*(\d{3})\.? \D", line))}
    sections = {r.number for r in edition.rules if r.kind == "section"}
    assert sections == set(contents) | in_body
    assert len(sections) == 130
    # three sections have no heading in the body: the contents gives their titles
    assert set(contents) - in_body == {"118", "202", "203"}
    assert by_number["118"].title == "Количество жизни" and by_number["118"].source.line == 53
    assert by_number["202"].title == "Мана-стоимость и цвет"
    order = [r.number for r in edition.rules]
    assert order.index("118") == order.index("118.1") - 1
    assert any("118 has no heading in the body" in n for n in edition.notes)
    # titles from the body, without their trailing period
    assert by_number["117"].title == "Стоимости"  # a plain line, not a heading
    assert by_number["600"].title == "Общие понятия"  # "600. Общие понятия."
    assert by_number["7"].title == "Дополнительные правила"


def test_cyrillic_letters_in_numbers(edition, by_number):
    body, _ = parts()
    cyrillic = [
        m.group(1) for line in body if (m := re.match(r"^[#\s]*(\d{3}\.\d+[асеорхук])\s", line))
    ]
    assert len(cyrillic) == 19
    for number in cyrillic:
        latin = number.translate(numbers.HOMOGLYPHS)
        assert latin in by_number, number
        assert by_number[latin].kind == "subrule"
    assert by_number["105.2c"].text == "Бесцветный объект не имеет цвета."
    assert by_number["702.102e"].text.startswith("Если Аура с даром прикреплена")
    assert all(re.fullmatch(r"[0-9a-z.]+", r.number) for r in edition.rules)


def test_rules_without_a_heading(by_number):
    """702.103-702.105 are plain lines, not headings; their subrules follow them."""
    for rule, letters in (("702.103", "ab"), ("702.104", "ab"), ("702.105", "abcdef")):
        assert by_number[rule].kind == "rule"
        for letter in letters:
            assert by_number[rule + letter].kind == "subrule"
    assert by_number["702.103"].title == "Дань"
    assert by_number["702.104"].title == "Свержение (неоф.) (Англ: Dethrone)"
    assert by_number["702.104"].translations == (("en", "Dethrone"),)


def test_rule_swallowed_by_an_example_is_split_out(edition, by_number):
    assert by_number["302.3"].examples == (
        (
            "«Существо — Гоблин Чародей» означает, что карта это существо с подтипами Гоблин и "
            "Чародей."
        ),
    )
    assert by_number["302.4"].text == (
        "Сила и выносливость являются характеристиками, которые есть только у существ."
    )
    assert by_number["302.4"].source.line == 1405
    assert any("302.4 split out" in n for n in edition.notes)


def test_latex_becomes_cr_notation(edition, by_number):
    for r in edition.rules:
        for piece in (r.text, r.title, *r.examples):
            assert "$" not in piece and "\\" not in piece, r.number
    assert by_number["106.6"].examples[0].startswith("Хранилище маны игрока содержит {R}{G}, кото")
    assert "«{T}: Добавьте одну ману любого цвета" in by_number["106.7"].examples[0]
    assert by_number["107.4e"].examples == (
        "стоимость {G/W}{G/W} может быть оплачена с помощью {G}{G}, {G}{W} или {W}{W}.",
    )
    assert "удаляется N +1/+1 и N -1/-1 жетонов" in by_number["121.3"].text
    assert "«{Z},{T}: Удвойте" in "\n".join(t for r in edition.rules for t in (r.text, *r.examples))
    assert by_number["208.2"].text.endswith("включающие звёздочку (*).")  # "\*" is an asterisk


def test_three_example_styles(by_number):
    # ***Пример:** ...*
    assert by_number["101.2"].examples[0].startswith("Если один эффект гласит: «Вы можете")
    # *Пример: ...*
    assert by_number["106.5"].examples[0].startswith("Meteor Crater имеет способность")
    # **Пример:** ...
    assert by_number["106.6"].examples[0].startswith("Хранилище маны")
    # *Пример:* ...
    assert by_number["112.12"].examples[0].startswith("способность Мурагандских Петроглифов")
    # **Пример:** *... *Card* ...*
    assert by_number["706.3"].examples[0].startswith("Vesuvan Doppelganger имеет текст")


def test_markup_is_gone_and_letters_are_kept(edition, by_number):
    for r in edition.rules:
        for piece in (r.text, r.title, *r.examples):
            assert not re.search(r"\*\*|(?<!\()\*(?![.)])|^#|\]\(", piece), (r.number, piece[:80])
            assert not piece.startswith("Пример"), r.number
    assert by_number["702.9"].title == "Полёт"  # "ё" is not rewritten
    assert "Летучая_Мышь" in by_number["205.3m"].text  # an escaped underscore is text
    assert "Wizards.com/Locator для поиска турниров" in by_number["100.6b"].text
    assert "(смотрите правило 116, «Временные рамки и приоритет»)" in by_number["510.3"].text


def test_every_text_occurs_in_the_source(edition):
    cleaned = [loose_clean(line) for line in raw_lines()]
    by_line = "\n".join(cleaned)
    # a page break splits a glossary sentence into paragraphs: the parser joins them with a space
    joined = " ".join(c for c in cleaned if c)
    for r in edition.rules:
        for piece in [*r.text.split("\n"), r.title, *r.examples]:
            assert piece in by_line, (r.number, piece[:80])
    for g in edition.glossary:
        assert g.term in joined and g.english in by_line
        for piece in g.definition.split("\n"):
            assert piece in by_line or piece in joined, (g.term, piece[:80])


def test_lines_point_at_the_entry(edition):
    lines = raw_lines()
    for r in edition.rules:
        line = lines[r.source.line - 1]
        number = re.sub(r"^[-#*\s]*", "", line).translate(numbers.HOMOGLYPHS)
        if r.number == "302.4":
            assert " 302.4. " in line
        else:
            assert number.startswith(r.number), (r.number, line[:40])
    for g in edition.glossary:
        assert g.english.split(" (")[0] in lines[g.source.line - 1]


def test_numbering_matches_the_english_edition(edition, english):
    ours = {r.number for r in edition.rules}
    theirs = {r.number for r in english.rules}
    assert ours - theirs == set()
    assert theirs - ours == MISSING  # 30 numbers, all rules and subrules
    assert len(theirs) - len(ours) == 30
    # the same rules are names (702.19 Пробивной удар / Trample)
    assert {r.number for r in edition.rules if r.kind == "rule" and r.title} == {
        r.number for r in english.rules if r.kind == "rule" and r.title
    }


def test_glossary_terms_are_the_english_glossary(edition, english):
    def norm(term: str) -> str:
        return re.sub(r"\s*\(Obsolete\)$", "", term).replace("“", '"').replace("”", '"').lower()

    ours = Counter(norm(g.english) for g in edition.glossary)
    theirs = Counter(norm(g.term) for g in english.glossary if g.term not in UNTRANSLATED_TERMS)
    # one spelling differs: "Typescycling" for "Typecycling"
    ours["typecycling"] += ours.pop("typescycling")
    assert ours == theirs
    assert len(edition.glossary) == len(english.glossary) - 4 == 550
    # and the bold lines of the file name them too
    _, gloss = parts()
    bold = {
        re.sub(r" \(Obsolete\)$", "", m.group(1).strip())
        for line in gloss
        if (m := re.match(r"^[#\s]*\*\*([A-Za-z][^*]*)\*\*", line))
    }
    terms = {re.sub(r" \(Obsolete\)$", "", g.english) for g in edition.glossary}
    assert len(bold) > 450
    assert bold - terms <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZ") | {"X-Z"}


def test_glossary_entries(by_english):
    g = by_english["Ability"]
    assert g.term == "Способность" and g.headwords == ("Способность",)
    assert g.definition.startswith("1. Текст на объекте")
    assert "\n2. Активируемая или срабатывающая способность в стеке." in g.definition
    assert not g.unofficial and not g.obsolete
    # a term split over two lines; a comma inside «quotes» does not split it
    g = by_english["Active Player, Nonactive Player Order"]
    assert g.term == "Порядок «Активный игрок, Неактивный игрок»" and g.headwords == (g.term,)
    assert by_english["APNAP Order"].see == "Порядок «Активный игрок, Неактивный игрок»"
    g = by_english["Counter"]
    assert g.headwords == ("Отменить, Жетон", "Отменить", "Жетон")
    # page breaks inside a sentence are joined
    assert by_english["Champion, Championed"].definition.endswith(
        "позволяет одному существу временно заменить другое. За перманент «заступились» другим "
        "перманентом, если последний изгоняет первый в результате способности заступника. "
        "Смотрите правило 702.71 «Заступник»."
    )
    assert by_english["Effect"].definition.endswith("Смотрите правило 609 «Эффекты».")
    # obsolete terms, marked in either language
    g = by_english["At End of Turn (Obsolete)"]
    assert g.term == "В конце хода (устарело)" and g.obsolete and g.headwords == ("В конце хода",)
    assert by_english["EDH"].obsolete
    # the terms X and Y, after the letter heading "X-Z"
    assert by_english["Y"].see == "X"
    assert by_english["X"].definition.startswith("Переменная для числа")
    # trailing period of the term dropped: "Отказаться."
    assert by_english["Abandon"].term == "Отказаться"


def test_unofficial_terms(edition, by_english):
    """The body marks "Ярость (неоф.) (англ. Rampage)"; the glossary entry is unofficial."""
    g = by_english["Rampage"]
    assert g.term == "Ярость" and g.unofficial
    assert by_english["Banding, “Bands with Other”"].unofficial
    assert by_english["World"].unofficial  # "супертип Мировой (неоф.) (англ. world)"
    assert by_english["Phenomenon"].unofficial  # marked as "(англ. Phenomena)"
    assert not by_english["Trample"].unofficial
    # no Russian term in the glossary: the body's unofficial name
    assert by_english["Assist"].term == "Помощь" and by_english["Assist"].unofficial
    assert by_english["Double Agenda"].term == "Двойное заявление"
    # no Russian term anywhere: the English term stays the term
    assert by_english["Assemble"].term == "Assemble" and not by_english["Assemble"].unofficial
    assert sum(g.unofficial for g in edition.glossary) == 38


def test_cross_references_resolve(edition):
    linked = refs.link(edition)
    rules = {r.number: r for r in linked.rules}
    assert rules["207.2c"].number == "207.2c"
    ability_word = next(g for g in linked.glossary if g.english == "Ability Word")
    assert [r.targets for r in ability_word.refs] == [("207.2c",)]  # "правило 207.2с"
    unresolved = {x.first for r in linked.rules for x in r.refs if not x.resolved}
    # rules the translation leaves out, and its own slips: "правилах 601.1b и 601.1f–h" (601.2b,
    # 601.2f–h in English), "114.6a" (114.7a), "114.8b" (114.9b)
    assert unresolved - MISSING == {"601.1b", "601.1f", "114.6a", "114.8b"}
    assert unresolved & MISSING == {"302.6", "702.36e"}


def test_fixture_is_cut_from_the_real_file():
    cut = CUT.read_bytes().decode("utf-8").split("\n")[:-1]
    source = iter(raw_lines())
    assert all(any(line == s for s in source) for line in cut)


def test_fixture_golden(golden):
    [e] = markdown.read(CUT, CUT.read_bytes())
    golden(
        "markdown/cut.golden.json",
        {
            "id": e.id,
            "title": e.title,
            "notes": list(e.notes),
            "rules": [r.to_dict(e.id) for r in e.rules],
            "glossary": [g.to_dict(e.id) for g in e.glossary],
        },
    )


def test_fixture_reencoded_reads_the_same():
    data = CUT.read_bytes()
    [a] = markdown.read(CUT, data)
    body = data.decode("utf-8")
    for variant in (
        codecs.BOM_UTF8 + data,
        body.replace("\n", "\r\n").encode("utf-8"),
        codecs.BOM_UTF16_LE + body.encode("utf-16-le"),
    ):
        [b] = markdown.read(CUT, variant)
        assert a.rules == b.rules and a.glossary == b.glossary


def test_sniff():
    assert markdown.sniff((DATA / NAME).read_bytes())
    assert markdown.sniff(CUT.read_bytes())
    for other in (p for p in DATA.rglob("*") if p.is_file()):  # the tournament folder too
        if other.name != NAME:
            assert not markdown.sniff(other.read_bytes()), other.name
    assert not markdown.sniff(b"# Notes\n\n## Something\n\n100.1. x\n")


DATED = "(от 25 января 2019)\n\n"


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "expected numbered rules"),
        ("# Полные правила\n\nНичего нет.\n", "expected numbered rules"),
        ("# Полные правила\n\n100.1. Правило.\n", "expected the date of the rules"),
        ("(от 30 февраля 2019)\n\n100.1. Правило.\n", "expected a real date"),
        (DATED + "# 1. Основы\n\n**Пример:** x\n", "expected numbered rules"),
        (DATED + "100.1. y\n\n## 101. Общие\n\n**Пример:** x\n", "expected an example after"),
        (DATED + "100.1. x\n\n## Словарь терминов\n\nТекст\n", "expected an English glossary"),
        (
            DATED + "100.1. x\n\n## Словарь терминов\n\n**Ability**\n\n**Absorb**\n\nПоглощение\n",
            "expected the Russian term and definition of the glossary term 'Ability'",
        ),
        (DATED + "100.1. x\x00\n", "expected text"),
    ],
)
def test_bad_input_raises_source_error(text, message):
    with pytest.raises(SourceError) as e:
        markdown.read(Path("bad.md"), text.encode())
    assert str(e.value).startswith("bad.md")
    assert message in str(e.value)


def test_wrong_encoding_raises_source_error():
    data = CUT.read_bytes().decode("utf-8").encode("cp1251", errors="replace")
    with pytest.raises(SourceError) as e:
        markdown.read(Path("bad.md"), data)
    assert "expected valid UTF-8" in str(e.value)


def test_truncated_file_keeps_what_it_has():
    data = (DATA / NAME).read_bytes()
    cut = data[: data.index(b"\n702.19b")]
    [e] = markdown.read(Path("cut.md"), cut)
    assert e.rules[-1].number == "702.19a" and e.glossary == ()


@settings(max_examples=examples(300), deadline=None)
@given(st.binary(max_size=500))
def test_arbitrary_bytes_parse_or_raise_source_error(data):
    with contextlib.suppress(SourceError):
        markdown.read(Path("fuzz.md"), data)
    markdown.sniff(data)


LINES = [
    "# 1. Основы", "## 100. Общие", "100. Общие", "117. Стоимости", "- 118. Жизнь", "1. список",
    "100.1. Текст.", "100.1a Sub", "100.1а Кир", "100.1б x", "**Пример:** e", "***Пример:** e*",
    "*Пример: e*", "*Пример:* e", "продолжение", "", "## Словарь терминов", "### А", "## **B**",
    "**Ability**", "Способность", "Текст.", "Смотрите правило", "602 «Активация».", "**X**",
    "## **X-Z**", "(от 25 января 2019)", "$\\{R\\}$", "$", "\\", "[a](b)", "_x_", "#", "**",
    "100.2. Это. 100.3. Следующее", "702.19. Trample", "999.9zz x", "100.1. Дубль",
]  # fmt: skip


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.sampled_from(LINES), max_size=40))
def test_arbitrary_line_sequences_parse_or_raise_source_error(lines):
    data = ("## Полные правила\n(от 25 января 2019)\n" + "\n".join(lines)).encode()
    try:
        [e] = markdown.read(Path("fuzz.md"), data)
    except SourceError:
        return
    found = [r.number for r in e.rules]
    assert len(found) == len(set(found))
    assert all(re.fullmatch(r"[0-9a-z.]+", n) for n in found)


@settings(max_examples=examples(100), deadline=None)
@given(st.data())
def test_slices_of_the_real_file_parse_or_raise_source_error(data):
    lines = CUT.read_bytes().split(b"\n")
    start = data.draw(st.integers(0, len(lines)))
    end = data.draw(st.integers(start, len(lines)))
    dropped = data.draw(st.sets(st.integers(start, end), max_size=5))
    piece = b"\n".join(lines[i] for i in range(start, end) if i not in dropped)
    with contextlib.suppress(SourceError):
        markdown.read(Path("slice.md"), lines[4] + b"\n" + piece)
