"""The Chinese editions (data/cr-zh-archive.tar.xz): read, paired with their English originals,
searched, asked and shown side by side; and Chinese text as crlookup.core.chinese cuts it.

Expectations about the files are derived independently of the parser: the test decodes each
member as UTF-8 and counts its numbered lines with its own loose pattern.
"""

from __future__ import annotations

import json
import re
import tarfile
from datetime import date
from functools import cache
from pathlib import Path

import pytest
from conftest import one_line, run
from hypothesis import given
from hypothesis import strategies as st

from crlookup.core import chinese, references
from crlookup.core.errors import SourceError
from crlookup.core.model import detect_lang
from crlookup.sources import archive, glossary

pytestmark = pytest.mark.library  # the full library

DATA = Path(__file__).resolve().parent.parent / "data"
ZH = DATA / "cr-zh-archive.tar.xz"


@cache
def members() -> dict[str, bytes]:
    with tarfile.open(ZH) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar if m.isfile()}


@cache
def edition(day: str):
    name = f"MagicCompRules-zh-{day}.txt"
    return archive.read_member(ZH.name, name, members()[name])


def loose_numbers(raw: bytes) -> list[str]:
    """The numbers of the body's numbered lines, by the test's own pattern: after the
    contents (the first "100.1." line), before the glossary heading."""
    lines = raw.decode("utf-8").splitlines()
    start = next(i for i, s in enumerate(lines) if s.startswith("100.1. "))
    end = next(i for i, s in enumerate(lines) if s.strip() == "词汇表" and i > start)
    found = []
    for s in lines[start:end]:
        m = re.match(r"(\d{3}\.\d+[a-z]*)\.?(?=\s|[\u4e00-\u9fff])", s)
        if m:
            found.append(m.group(1))
    return found


# --------------------------------------------------------------------------- the archive


def test_the_archive_holds_19_editions_and_a_term_list():
    names = sorted(members())
    assert len(names) == 20 and "translatedterms-zh.txt" in names
    editions = archive.read(ZH, ZH.read_bytes())
    ids = [e.id for e in editions]
    assert len(ids) == 19 and ids[0] == "zh-2022-06-10" and ids[-1] == "zh-2026-04-17"
    assert all(e.lang == "zh" and e.title == "万智牌完整规则" for e in editions)
    assert any("translatedterms-zh.txt" in n for n in editions[0].notes)


@pytest.mark.parametrize("day", ["2022-06-10", "2024-09-17", "2026-04-17"])
def test_every_numbered_line_is_an_entry(day):
    e = edition(day)
    numbers = [r.number for r in e.rules if r.kind in ("rule", "subrule")]
    assert numbers == loose_numbers(members()[f"MagicCompRules-zh-{day}.txt"])


def test_2026_04_17_counts_and_a_rule():
    e = edition("2026-04-17")
    assert e.date == date(2026, 4, 17) and e.dated == 3
    assert len(e.rules) == 3294 and len(e.glossary) == 730
    rules = {r.number: r for r in e.rules}
    assert rules["702.19"].title == "践踏"
    assert rules["702.19b"].text.startswith("具有践踏的攻击生物之操控者")
    assert len(rules["702.19b"].examples) == 2  # "例如：" lines
    assert rules["509"].title == "宣告阻挡者步骤" and rules["7"].title == "附加规则"
    # a sentence is no title: the rule's text is
    assert rules["100.2"].title == "" and rules["100.2"].text.endswith("。")
    # cross-references in Chinese ("参见规则510", "规则601.2b与规则601.2f-h") are found too
    assert [(r.first, r.last) for r in references.find(rules["702.19a"].text)] == [("510", None)]
    assert [(r.first, r.last) for r in references.find("规则601.2b与规则601.2f-h的规定")] == [
        ("601.2b", None),
        ("601.2f", "601.2h"),
    ]


def test_the_translators_slips_are_read_and_noted():
    old = edition("2022-06-10")
    assert any("no space after 100.6b" in n for n in old.notes)  # "100.6b牌手…"
    assert any("701.42a printed twice" in n for n in old.notes)
    newer = edition("2024-06-07")
    assert any("an example begins '例如，'" in n for n in newer.notes)


def test_the_translators_list_of_provisional_names_is_no_glossary():
    """2022-06-10's glossary is followed by "暂译名称列表" (English names and their provisional
    Chinese): not glued onto the last term, and no false term "Abandon: 终止" holding the
    rest (issue 46)."""
    e = edition("2022-06-10")
    last = e.glossary[-1]
    assert last.term == "改变区域触发" and "暂译" not in last.definition
    assert not [g for g in e.glossary if ":" in g.term or "Abandon" in g.term]
    assert any(n.startswith("line 7999: '暂译名称列表' ends the glossary") for n in e.notes)


def test_stated_dates_and_filed_dates():
    e = edition("2024-02-06")  # states 2024年2月2日, as the English of that date does
    assert e.id == "zh-2024-02-06" and e.date == date(2024, 2, 2)
    assert any("filed as 2024-02-06" in n for n in e.notes)


def test_broken_utf8_names_the_member_and_the_line():
    name = "MagicCompRules-zh-2026-04-17.txt"
    raw = members()[name]
    at = raw.index("践踏属于静止式异能".encode())
    broken = raw[:at] + raw[at : at + 1] + raw[at + 2 :]  # a character cut in half
    with pytest.raises(SourceError) as e:
        archive.read_member(ZH.name, name, broken)
    assert e.value.file == f"{ZH.name}:{name}"
    assert e.value.line == raw[:at].count(b"\n") + 1 and "UTF-8" in e.value.expected


def test_a_member_whose_text_is_in_another_language():
    english = (DATA.parent / "tests" / "data").exists()  # any English text will do
    assert english
    with tarfile.open(DATA / "official-cr-archive.tar.xz") as tar:
        raw = tar.extractfile("MagicCompRules-2026-04-17.txt").read()
    with pytest.raises(SourceError, match="in the language its name says"):
        archive.read_member("x.tar.xz", "MagicCompRules-zh-2026-04-17.txt", raw)


def test_chinese_glossary_terms():
    terms = {g.term: g for g in edition("2026-04-17").glossary}
    walker = terms["鹏洛客（旧译旅法师）"]
    assert walker.headwords == ("鹏洛客", "旅法师")  # the old translation is found too
    shared = next(g for t, g in terms.items() if t.startswith("反击/指示物"))
    assert shared.headwords == ("反击/指示物", "反击", "指示物")  # the remark is no name
    assert terms["埋葬（已废止）"].obsolete
    assert glossary.headwords("操控，操控者") == ("操控，操控者", "操控", "操控者")


# --------------------------------------------------------------------------- words


@given(st.text(alphabet=st.sampled_from("践踏生物死触 deathtouch702.19b，。X")), st.booleans())
def test_tokens_are_pieces_of_the_text(s, characters):
    found = list(chinese.tokens(s, characters))
    assert all(s[a:b] == t for t, _, a, b in found)
    assert [p for _, p, _, _ in found] == sorted(p for _, p, _, _ in found)
    # every Chinese character is in a token
    covered = {i for _, _, a, b in found for i in range(a, b)}
    assert {i for i, c in enumerate(s) if chinese.HAN.match(c)} <= covered
    # the pairs of a run follow each other, position by position, with or without characters
    pairs = [p for t, p, _, _ in found if len(t) == 2 and chinese.HAN.fullmatch(t)]
    assert pairs == [
        p for t, p, _, _ in chinese.tokens(s) if len(t) == 2 and chinese.HAN.fullmatch(t)
    ]


@given(st.text(alphabet=st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF), min_size=1))
def test_a_run_is_its_pairs_and_as_written_its_characters(run_):
    assert [t for t, _, _, _ in chinese.tokens(run_)] == chinese.pairs(run_)
    assert len(chinese.pairs(run_)) == max(1, len(run_) - 1)
    written = [t for t, _, _, _ in chinese.tokens(run_, characters=True)]
    assert sorted(t for t in written if len(t) == 1) == sorted(run_)


@given(st.text() | st.text(alphabet=st.characters(min_codepoint=0x3300, max_codepoint=0xFB10)))
def test_has_chinese_is_whether_the_pattern_finds_a_chinese_character(s):
    assert chinese.has_chinese(s) == (chinese.HAN.search(s) is not None)


def test_mixed_text():
    assert [t for t, _, _, _ in chinese.tokens("deathtouch死触 702.19b 阻挡生物")] == [
        "deathtouch",
        "死触",
        "702.19b",
        "阻挡",
        "挡生",
        "生物",
    ]
    assert detect_lang("deathtouch 死触") == "zh" and detect_lang("смертельное") == "ru"
    assert chinese.words("规则702.19b所述") == ["规", "则", "702.19b", "所", "述"]
    assert chinese.joined(chinese.words("规则702.19b所述")) == "规则702.19b所述"
    assert chinese.joined(chinese.words("see rule 702.19b")) == "see rule 702.19b"


# --------------------------------------------------------------------------- the library


def test_the_library_has_the_19_editions_paired_with_english():
    data = json.loads(run("editions", "--json").output)
    ids = [e["id"] for e in (data["editions"] if isinstance(data, dict) else data)]
    zh = [i for i in ids if i.startswith("zh-")]
    assert len(zh) == 19
    assert all(f"en-{i[3:]}" in ids for i in zh)


def test_rule_parallel_en_zh_has_no_gaps_on_the_same_date():
    data = json.loads(
        run("rule", "702.19", "--parallel", "en,zh", "--edition", "en-2026-04-17", "--json").output
    )
    assert data["editions"] == {"en": "en-2026-04-17", "zh": "zh-2026-04-17"} and data["same_date"]
    assert [p["zh"]["number"] for p in data["pairs"]] == [p["number"] for p in data["pairs"]]
    assert data["pairs"][0]["zh"]["title"] == "践踏"
    assert not any(p["zh"].get("missing") for p in data["pairs"])


def test_search_in_chinese():
    hits = json.loads(run("search", "践踏", "--lang", "zh", "--json").output)["hits"]
    assert hits[0]["number"] == "702.19" and hits[0]["edition"] == "zh-2026-04-17"
    assert hits[1]["kind"] == "glossary" and hits[1]["title"] == "践踏"
    # a glossary term finds its entry
    hits = json.loads(run("search", "传奇规则", "--json").output)["hits"]
    assert hits[0]["kind"] == "glossary" and hits[0]["title"] == "传奇规则"
    # a number keeps to that rule; an English term is read as the translation's
    hits = json.loads(run("search", "702.19", "践踏", "--json").output)["hits"]
    assert hits[0]["number"] == "702.19" and all(h["number"].startswith("702.19") for h in hits)
    found = json.loads(run("search", "deathtouch", "死触", "--json").output)
    assert found["searched"] == "死触 死触" and found["hits"][1]["number"] == "702.2"
    # a word of one character, inside runs of others: 磨 (mill) in 701.17a's text
    numbers = [h["number"] for h in json.loads(run("search", "磨", "--json").output)["hits"]]
    assert "701.17" in numbers or "701.17a" in numbers


def test_a_long_chinese_query_is_counted_by_its_characters():
    """1,000 Chinese characters were refused as "too deeply nested", after the search had
    begun (issue 47): each character counts as a word against the limit of 200."""
    refused = run("search", "践踏" * 500, code=2).error
    assert refused == "a query of at most 200 words (a Chinese character is one), please\n"
    assert json.loads(run("search", "践踏死触" * 50, "--json").output)["hits"]


def test_a_long_question_is_refused_before_anything_is_read(built_home):
    """A question of over 200 words (a Chinese character each) is refused before its lexicon,
    the model or its translation is read: 1,000 Chinese characters were read for 1.35 s and
    answered, 300 English words refused once the lexicon was read (issue 53)."""
    from crlookup import api
    from crlookup.core.errors import QuestionError

    lib = api.open(str(built_home))
    try:
        for question, says in [
            ("威慑的生物能只用一个生物挡吗" * 72, "(a Chinese character is one)"),
            ("block " * 300, "a question of at most 200 words, please"),
        ]:
            with pytest.raises(QuestionError, match=re.escape(says)):
                lib.ask(question)
            assert lib.reader._memo == {}, list(lib.reader._memo)  # nothing read for it
        assert lib.ask("威慑的生物能只用一个生物挡吗" * 14).answers  # (196 of them: read)
    finally:
        lib.close()


def test_the_annotated_mtr_in_chinese_is_searched_too():
    data = json.loads(run("search", "作弊", "--doc", "mtr", "--lang", "zh", "--json").output)
    first = data["hits"][0]
    assert (first["document"], first["number"], first["edition"]) == (
        "mtr",
        "5.1",
        "mtr-zh-2026-02-27",
    )


def test_define_in_chinese():
    data = json.loads(run("define", "死触", "--json").output)
    assert data["edition"] == "zh-2026-04-17"
    assert data["matches"][0]["glossary"]["title"] == "死触"
    # an English term, in the Chinese glossary: the term it was translated by
    data = json.loads(run("define", "deathtouch", "--lang", "zh", "--json").output)
    assert data["matches"][0]["glossary"]["title"] == "死触"
    assert "旅法师" in run("define", "旅法师").output  # the old translation's name


def test_ask_in_chinese():
    data = json.loads(run("ask", "威慑的生物能只用一个生物挡吗", "--json").output)
    assert data["question"] == "威慑的生物能只用一个生物挡吗"
    assert data["read_against"] == "en-2026-04-17"  # the English original of zh-2026-04-17
    assert "menace" in data["read_in_english"]
    first = data["answers"][0]
    assert first["edition"] == "zh-2026-04-17" and first["number"] == "702.111b"
    # the English rules instead, when asked for
    data = json.loads(run("ask", "威慑的生物能只用一个生物挡吗", "--lang", "en", "--json").output)
    assert data["answers"][0]["edition"].startswith("en-")


def test_an_edition_in_an_unknown_language():
    error = one_line(run("rule", "702.19", "--edition", "fr-2026-04-17", code=1).error)
    assert error == "no edition in language 'fr'; nearest: en-2026-04-17, zh-2026-04-17"
    error = one_line(run("search", "trample", "--edition", "fr-latest", code=1).error)
    assert error == "no edition in language 'fr'; nearest: en, pl, ru, zh"
