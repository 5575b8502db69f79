"""The DokuWiki parser on the annotated MTR (data/tournament/mtr-2026-02-27-annotated/).

Expectations come from outside the parser where they can: entry counts from the raw headings,
annotation counts from the raw `++…|…++` blocks, and the English checked against the MTR of
2025-11-10 in JSON (data/tournament/mtr-2025-11-10/), the previous edition, read with json.load.
Broken folders are copies of the real one with one thing changed.
"""

from __future__ import annotations

import json
import re
import shutil
from datetime import date
from pathlib import Path

import pytest
from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crlookup import sources
from crlookup.core.errors import SourceError
from crlookup.sources import dokuwiki

ROOT = Path(__file__).resolve().parent.parent
TOURNAMENT = ROOT / "data" / "tournament"
FOLDER = TOURNAMENT / "mtr-2026-02-27-annotated"
PREVIOUS = TOURNAMENT / "mtr-2025-11-10"
CHAPTER_FILES = [f"chapter_{n}.md" for n in range(1, 11)]

HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff]")
CJK = re.compile("[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")
MARKUP = re.compile(r"\*\*|\+\+|\[\[|\]\]|\\\\|<BOOKMARK|<WRAP|\{\{|(?<!:)//")


@pytest.fixture(scope="module")
def editions():
    return dokuwiki.read(FOLDER)


@pytest.fixture(scope="module")
def en(editions):
    return {r.number: r for r in editions[0].rules}


@pytest.fixture(scope="module")
def zh(editions):
    return {r.number: r for r in editions[1].rules}


@pytest.fixture
def copy(tmp_path) -> Path:
    """A copy of the real folder, to break."""
    return Path(shutil.copytree(FOLDER, tmp_path / FOLDER.name))


def _raw(name: str) -> str:
    return (FOLDER / name).read_text(encoding="utf-8")


def _fields(rule) -> list[str]:
    return [rule.title, rule.text, *rule.examples]


# --- identity and structure ---------------------------------------------------------------


def test_two_editions_of_the_same_mtr(editions):
    english, chinese = editions
    assert (english.lang, chinese.lang) == ("en", "zh")
    assert english.id == "mtr-2026-02-27" and chinese.id == "mtr-zh-2026-02-27"
    for e in editions:
        assert e.document == "mtr" and e.date == date(2026, 2, 27)
        assert e.source == FOLDER.name and e.glossary == ()
        assert e.partial  # appendices C-F are not in the folder
        assert e.notes[0].startswith("effective date 2026-02-27 from mtr.md")
    assert english.title == "Magic: The Gathering Tournament Rules"
    assert chinese.title == "万智牌比赛规则"


def test_counts_match_the_raw_headings(editions):
    rules = [
        re.findall(r"(?m)^===== MTR (\d+\.\d+) ", _raw(name))
        for name in CHAPTER_FILES  # loose: the parser's own patterns are stricter
    ]
    assert [len(r) for r in rules] == [12, 13, 16, 9, 6, 7, 7, 6, 7, 4]
    for e in editions:
        kinds = [r.kind for r in e.rules]
        assert (kinds.count("section"), kinds.count("rule"), kinds.count("appendix")) == (10, 87, 2)
        assert [r.number for r in e.rules if r.kind == "rule"] == [n for r in rules for n in r]
        assert all(r.title for r in e.rules)


def test_both_editions_have_the_same_numbers_in_the_same_order(editions):
    english, chinese = editions
    assert [(r.number, r.kind) for r in english.rules] == [
        (r.number, r.kind) for r in chinese.rules
    ]
    assert [r.source for r in english.rules] == [r.source for r in chinese.rules]
    numbers = [r.number for r in english.rules]
    assert numbers[:3] == ["1", "1.1", "1.2"] and numbers[-2:] == ["A", "B"]
    assert len(set(numbers)) == len(numbers)


def test_every_chapter_entry_has_as_many_paragraphs_in_both_languages(editions):
    """The Chinese pieces of one English paragraph are joined: the two texts line up."""
    for a, b in zip(*(e.rules for e in editions)):
        if a.kind == "appendix":
            continue
        assert len(a.text.split("\n")) == len(b.text.split("\n")), a.number
        assert len(a.examples) == len(b.examples), a.number
        assert len(a.annotations) == len(b.annotations), a.number


def test_sources_point_at_the_headings(editions):
    for r in editions[0].rules:
        line = _raw(r.source.file).split("\n")[r.source.line - 1]
        assert line.startswith("=====") and (r.number in line or f"附录{r.number}" in line)


# --- entries ------------------------------------------------------------------------------


def test_tiebreakers(en, zh):
    r = en["3.1"]
    assert (r.kind, r.title) == ("rule", "Tiebreakers")
    assert r.text.startswith("The following tiebreakers are used to determine how a player ranks")
    assert "\n1. Match points\n2. Opponents’ match-win percentage\n" in r.text
    assert r.text.endswith("may be used in formats with single-game matches.")
    assert zh["3.1"].title == "同分处理"
    assert "\n1. 对局积分\n2. 对手局胜率\n" in zh["3.1"].text
    assert r.annotations == ("Appendix C is awesome. People should go read it now. We will wait.",)
    assert zh["3.1"].annotations == ("附录C很重要，建议读者现在可以转去阅读。",)


def test_sections(en, zh):
    assert (en["1"].kind, en["1"].title, zh["1"].title) == (
        "section",
        "Tournament Fundamentals",  # the heading's own English
        "比赛基本要素",
    )
    assert (en["2"].title, zh["2"].title) == ("Tournament Mechanics", "比赛的各项机制")
    assert (en["3"].title, zh["3"].title) == ("Tournament Rules", "比赛规则")
    assert (en["10"].title, zh["10"].title) == ("Sanctioning Rules", "认证规则")
    assert all(en[str(n)].text == "" for n in range(1, 11))


def test_appendices(en, zh, editions):
    assert (en["A"].kind, en["A"].title, zh["A"].title) == (
        "appendix",
        "Changes From Previous Versions",
        "与过往版本之间的更动",
    )
    assert (en["B"].title, zh["B"].title) == ("Time Limits", "时间限制")
    assert en["A"].text == en["B"].text == ""  # the source has them in Chinese only
    assert zh["A"].text.startswith(
        "本附录只会反映本份文档与此前一份文档之间的更动。\n2026年2月27日\n"
    )
    assert "• 3.7：添加新系列。" in zh["A"].text
    assert "对局最少时间限制规定为40分钟。" in zh["B"].text
    assert "\n15张牌 | 40秒\n" in zh["B"].text and "\n3 | - | 5秒\n" in zh["B"].text
    assert any("no English text in the source for A, B" in n for n in editions[0].notes)


def test_bilingual_list_items_and_headings_are_split(en, zh):
    assert "\nConstructed Formats\n• Standard\n• pioneer\n• Modern\n" in en["3.2"].text
    assert "\n• Sealed Deck\n• Booster Draft (individual and Two-Headed Giant only)\n" in (
        en["3.2"].text
    )
    assert "\n构组赛制\n• 标准赛\n• 先驱\n• 近代赛\n" in zh["3.2"].text
    assert "\nRegular\nRegular tournaments are focused" in en["1.12"].text
    assert "\n一般级别\n一般的比赛主要是为了娱乐和社交" in zh["1.12"].text
    assert "\n• Secrets of Strixhaven™ April 17, 2026\n" in en["3.7"].text + "\n"
    assert "• Magic: The Gathering®—FINAL FANTASY™\n" in en["6.3"].text
    assert "• 万智牌 – 最终幻想\n" in zh["6.3"].text


@pytest.mark.parametrize(
    "run, english, chinese",
    [
        ("Tiebreakers 同分处理", "Tiebreakers", "同分处理"),
        ("比赛基本要素 Tournament Fundamentals", "Tournament Fundamentals", "比赛基本要素"),
        ("• Core 2019 2019核心系列", "• Core 2019", "• 2019核心系列"),
        (
            "• Magic 2010 core set 万智牌2010核心系列",
            "• Magic 2010 core set",
            "• 万智牌2010核心系列",
        ),
        (
            "• Secrets of Strixhaven™ April 17, 2026 - 斯翠海文的秘密™ 2026年4月17日",
            "• Secrets of Strixhaven™ April 17, 2026",
            "• 斯翠海文的秘密™ 2026年4月17日",
        ),
        ("• 先父觉醒/Abuelo’s Awakening", "• Abuelo’s Awakening", "• 先父觉醒/Abuelo’s Awakening"),
        ("• 龙命连结点Nexus of Fate", "• Nexus of Fate", "• 龙命连结点Nexus of Fate"),
        ("1. 牌手在重置地之前为异狮/Masticore 的维持费用弃掉了一张牌。", "", None),
        ("对于使用EventLink软件运行的赛事", "", "对于使用EventLink软件运行的赛事"),
        ("https://wpn.wizards.com/en/rules-documents。", "", None),
        ("• Chaos Orb", "• Chaos Orb", ""),
        ("...", "", ""),
    ],
)
def test_a_run_is_read_by_its_script(run, english, chinese):
    """The split the parser makes, on runs of the real files (a list item or a heading)."""
    item = run[0] in "•1"
    assert dokuwiki._split(run, item=item, heading=not item) == (
        english,
        run if chinese is None else chinese,
    )


def test_card_names(en, zh):
    assert "\n• Abuelo’s Awakening\n" in en["6.3"].text
    assert "\n• 先父觉醒/Abuelo’s Awakening\n" in zh["6.3"].text
    assert "\n• Proft's Eidetic Memory\n" in en["6.3"].text  # "(2025年11月10日生效)" left out
    assert "\n• 波费的清晰记忆/Proft's Eidetic Memory (2025年11月10日生效)\n" in zh["6.3"].text
    assert "\n• Nexus of Fate\n" in en["6.7"].text  # "龙命连结点Nexus of Fate": no slash
    # a card never printed in Chinese is in both editions, as printed
    assert "\n• Chaos Orb\n" in en["6.5"].text and "\n• Chaos Orb\n" in zh["6.5"].text
    assert "\n• Mox Sapphire\n" in zh["6.5"].text  # before "神秘熔炉/Mystic Forge"
    # alternating English and Chinese items are translations: each in its own edition
    assert "• For individual tournaments, a minimum of four (4) players must participate." in (
        en["10.1"].text
    )
    assert "For individual" not in zh["10.1"].text and "个人赛" not in en["10.1"].text


def test_bold_over_two_lines_and_two_spans_on_a_line(en, zh):
    assert (
        "plus the following cards: Sewers of Estark, Windseeker Centaur, and Nalathni Dragon."
        in (en["6.5"].text)
    )
    assert "\nThe deck and sideboard must each be returned to their original compositions " in (
        en["3.16"].text
    )
    assert en["9.7"].text.startswith("Teams (not players) assemble into random drafting")
    assert zh["9.7"].text.startswith("队伍（而非牌手）会随机分配到各个轮抽圈")


def test_a_translation_split_by_annotations_is_one_paragraph(en, zh):
    assert len(en["2.1"].text.split("\n")) == 2 == len(zh["2.1"].text.split("\n"))
    first = zh["2.1"].text.split("\n")[0]
    assert first.startswith("一局万智牌对局包含有一系列盘数的游戏")
    assert first.endswith("若双方游戏获胜的盘数相同,该局对局结果为平局。")  # the third anchor
    assert len(en["2.1"].annotations) == 5 == len(zh["2.1"].annotations)
    # 1.12: the translation goes on after its annotation block
    assert "该文档可于此处获取：https://wpn.wizards.com/en/rules-documents。" in zh["1.12"].text


def test_examples(en, zh):
    assert len(en["4.3"].examples) == 5 == len(zh["4.3"].examples)
    assert en["4.3"].examples[0] == (
        "A player discards a card to pay for Masticore’s upkeep cost before untapping his or her land."
    )
    assert zh["4.3"].examples[0] == "牌手在重置地之前为异狮/Masticore 的维持费用弃掉了一张牌。"
    assert "Examples" not in en["4.3"].text and "示例" not in zh["4.3"].text
    assert en["4.8"].examples[2] == "A player says “Go. Wait, land, go.”"
    assert [x[:25] for x in en["5.2"].examples] == [
        "Before the semifinals of ",
        "In the finals of a 1-slot",
    ]
    assert zh["5.2"].examples[0].startswith("在一场比赛的半决赛开始前")
    assert "Example:" not in en["5.2"].text and "示例" not in zh["5.2"].text
    # 8.5: the table of picks belongs to the example before it
    assert "\nPlayer 1B—card 1 | Player 1A—card 6 | Player 1C—card 11\n" in en["8.5"].examples[0]
    assert "\n牌手1B—第1张 | 牌手1A—第6张 | 牌手1C—第11张\n" in zh["8.5"].examples[0]
    assert en["8.5"].text.split("\n")[-1].startswith("During card selection, players must")


# --- annotations --------------------------------------------------------------------------


def _raw_commentaries() -> list[str]:
    """The commentary of every `++anchor|commentary++` block (links left out), found with a
    loose pattern."""
    blocks = [b for name in CHAPTER_FILES for b in re.findall(r"\+\+(.*?)\+\+", _raw(name), re.S)]
    return [re.sub(r"\[\[[^\]]*\]\]", "", b).partition("|")[2] for b in blocks]


def test_every_commentary_is_an_annotation(editions):
    raw = _raw_commentaries()
    non_empty = [b for b in raw if re.search(r"\w", b)]
    assert len(raw) == 298 and len(non_empty) == 269
    for e in editions:
        assert sum(len(r.annotations) for r in e.rules) == len(non_empty)


def test_annotations_are_split_by_language(editions):
    english, chinese = editions
    for a, b in zip(english.rules, chinese.rules):
        for x, y in zip(a.annotations, b.annotations):
            if HAN.search(x):  # one commentary has no Chinese: whole in both
                assert x == y and not HAN.search(y)
            assert not HAN.search(x) or x == y, a.number
            assert all(HAN.search(line) for line in y.split("\n")) or x == y, b.number
    whole = [
        (a.number, x)
        for a, b in zip(english.rules, chinese.rules)
        for x, y in zip(a.annotations, b.annotations)
        if x == y
    ]
    assert [n for n, _ in whole] == ["2.1"]
    assert whole[0][1].startswith("The results of the match are recorded for Planeswalker points.")


@pytest.mark.parametrize("lang", [0, 1])
def test_no_annotation_leaks_into_text_title_or_examples(editions, lang):
    rules = editions[lang].rules
    lines = {
        line
        for r in rules
        for a in r.annotations
        for line in a.split("\n")
        if len(line) >= 12  # long enough not to be a phrase the MTR itself may use
    }
    for r in rules:
        for field in _fields(r):
            assert "++" not in field and "|\\" not in field, r.number
            for line in lines:
                assert line not in field, (r.number, line)
    # and a phrase only commentary has, checked by hand
    assert not any("Appendix C is awesome" in f for r in rules for f in _fields(r))
    assert not any("附录C很重要" in f for r in rules for f in _fields(r))


def test_markup_is_gone(editions):
    for e in editions:
        for r in e.rules:
            for field in [*_fields(r), *r.annotations]:
                assert not MARKUP.search(field), (e.lang, r.number, field[:80])
                assert "  " not in field and "\t" not in field, (e.lang, r.number)


def test_english_has_no_chinese_and_chinese_has_chinese(editions):
    english, chinese = editions
    for r in english.rules:
        for field in _fields(r):
            assert not CJK.search(field), (r.number, field[:80])
    for r in chinese.rules:
        for paragraph in [*r.text.split("\n"), r.title, *r.examples]:
            card = re.fullmatch(r"• [A-Z][\w’',. -]+", paragraph)  # "• Chaos Orb"
            assert not paragraph or CJK.search(paragraph) or card, (r.number, paragraph)


# --- against the MTR of 2025-11-10 --------------------------------------------------------


def test_close_to_the_previous_mtr(en):
    """The English is the MTR's: the JSON of the previous edition has the same entries, titles
    and, give or take the changes of one revision, words."""
    words = re.compile(r"[a-z]+(?:['’][a-z]+)*")
    previous = {}
    for n in range(1, 11):
        for r in json.loads((PREVIOUS / f"mtr_section_{n}.json").read_text("utf-8"))["rules"]:
            previous[r["number"]] = r
    assert len(previous) == 87 and set(previous) <= set(en)
    assert all(en[n].title.lower() == r["title"].lower() for n, r in previous.items())
    close = 0
    for n, r in previous.items():
        theirs = set(words.findall(r["content"].lower()))
        ours = set(words.findall(" ".join([en[n].text, *en[n].examples]).lower()))
        close += len(theirs & ours) / len(theirs | ours) > 0.85
    assert close >= 80, close


# --- detection and bad input --------------------------------------------------------------


def test_sniff(tmp_path):
    assert dokuwiki.FOLDER is True
    assert dokuwiki.sniff_folder(FOLDER)
    assert not dokuwiki.sniff_folder(PREVIOUS)
    assert not dokuwiki.sniff_folder(tmp_path)
    assert not dokuwiki.sniff_folder(FOLDER / "chapter_1.md")
    assert not dokuwiki.sniff((FOLDER / "chapter_1.md").read_bytes())
    assert [e.id for e in sources.read(FOLDER, fmt="dokuwiki")] == [
        "mtr-2026-02-27",
        "mtr-zh-2026-02-27",
    ]


def test_a_file_is_not_the_folder():
    with pytest.raises(SourceError) as e:
        dokuwiki.read(FOLDER / "chapter_1.md", (FOLDER / "chapter_1.md").read_bytes())
    assert str(e.value).startswith("chapter_1.md: expected a folder")


def test_not_utf8_names_file_and_line(copy):
    lines = (copy / "chapter_5.md").read_bytes().split(b"\n")
    lines[6] = lines[6][:20] + b"\xff\xfe" + lines[6][20:]
    (copy / "chapter_5.md").write_bytes(b"\n".join(lines))
    with pytest.raises(SourceError) as e:
        dokuwiki.read(copy)
    assert (e.value.file, e.value.line) == ("chapter_5.md", 7)
    assert str(e.value).startswith("chapter_5.md:7: expected UTF-8 text")


def test_chapter_without_rule_headings(copy):
    text = (copy / "chapter_4.md").read_text("utf-8").replace("===== MTR", "===== 规则")
    (copy / "chapter_4.md").write_text(text, "utf-8")
    with pytest.raises(SourceError) as e:
        dokuwiki.read(copy)
    assert str(e.value).startswith("chapter_4.md:1: expected rule headings")


def test_missing_chapter_file(copy):
    (copy / "chapter_7.md").unlink()
    with pytest.raises(SourceError) as e:
        dokuwiki.read(copy)
    assert e.value.file == "chapter_7.md" and "chapter_1.md" in e.value.expected


def test_no_effective_date(copy):
    (copy / "mtr.md").unlink()
    readme = (copy / "README.md").read_text("utf-8").replace("生效日期", "日期")
    (copy / "README.md").write_text(readme, "utf-8")
    # appendix A's latest change is the fallback
    english, _ = dokuwiki.read(copy)
    assert english.date == date(2026, 2, 27)
    assert "the latest change listed in appendix_a.md:5" in english.notes[0]
    appendix = (copy / "appendix_a.md").read_text("utf-8").replace("=== 2026年2月27日 ===", "")
    (copy / "appendix_a.md").write_text(appendix.replace("=== 2025年", "=== "), "utf-8")
    with pytest.raises(SourceError) as e:
        dokuwiki.read(copy)
    assert "expected an effective date" in str(e.value)


def test_readme_date_when_the_cover_is_missing(copy):
    (copy / "mtr.md").unlink()
    english, chinese = dokuwiki.read(copy)
    assert english.date == date(2026, 2, 27) and "README.md:4" in english.notes[0]
    assert chinese.title == "万智牌比赛规则"  # from README.md's heading


def test_impossible_date(copy):
    text = (copy / "mtr.md").read_text("utf-8").replace("2月 27日生效", "2月 30日生效")
    (copy / "mtr.md").write_text(text, "utf-8")
    with pytest.raises(SourceError) as e:
        dokuwiki.read(copy)
    assert str(e.value).startswith("mtr.md:3: expected a real date")


def test_unclosed_annotation(copy):
    text = (copy / "chapter_2.md").read_text("utf-8")
    close = text.rindex("++")  # of the file's last block
    at = text.rindex("++", 0, close)
    (copy / "chapter_2.md").write_text(text[:close] + text[close + 2 :], "utf-8")
    with pytest.raises(SourceError) as e:
        dokuwiki.read(copy)
    assert e.value.file == "chapter_2.md" and "closing '++'" in e.value.expected
    assert e.value.line == text[:at].count("\n") + 1


def test_an_annotation_running_into_the_next_entry(copy):
    text = (copy / "chapter_2.md").read_text("utf-8")
    close = text.rindex("++", 0, text.index("===== MTR 2.2 "))  # of 2.1's last block
    at = text.rindex("++", 0, close)
    (copy / "chapter_2.md").write_text(text[:close] + text[close + 2 :], "utf-8")
    with pytest.raises(SourceError) as e:  # the next "++" is beyond 2.2's heading
        dokuwiki.read(copy)
    assert e.value.file == "chapter_2.md" and e.value.line == text[:at].count("\n") + 1


def test_a_lost_closing_is_not_read_as_text(copy):
    """Without 2.1's first closing "++", the next block's opening closes the first, and its
    closing opens a block in the middle of a line: an error, not commentary read as text."""
    text = (copy / "chapter_2.md").read_text("utf-8")
    at = text.index("++", text.index("===== MTR 2.1 "))
    close = text.index("++", at + 2)
    (copy / "chapter_2.md").write_text(text[:close] + text[close + 2 :], "utf-8")
    with pytest.raises(SourceError) as e:
        dokuwiki.read(copy)
    assert e.value.file == "chapter_2.md" and "start of a line" in e.value.expected
    assert 6 < e.value.line < 24  # within 2.1


def test_an_entry_number_given_twice(copy):
    text = (copy / "chapter_8.md").read_text("utf-8").replace("MTR 8.6 ", "MTR 8.5 ")
    (copy / "chapter_8.md").write_text(text, "utf-8")
    with pytest.raises(SourceError) as e:
        dokuwiki.read(copy)
    assert str(e.value).startswith("chapter_8.md:65: expected a new entry number")


def test_appendix_without_its_heading(copy):
    text = (copy / "appendix_b.md").read_text("utf-8").replace("附录B～", "")
    (copy / "appendix_b.md").write_text(text, "utf-8")
    with pytest.raises(SourceError) as e:
        dokuwiki.read(copy)
    assert str(e.value).startswith("appendix_b.md:1: expected an appendix heading")


# --- any text ------------------------------------------------------------------------------

_MARKUP_PIECES = st.sampled_from(
    [
        "**", "++", "|", "[[", "]]", "\\\\", "\n", "\n\n", "  * ", "  - ", "^ a ^ b ^", "| x |",
        "===== MTR 3.1 Tiebreakers 同分处理 =====", "====== MTR 3. 比赛规则 ======",
        "===== MTR 1.1 Again =====", "=== Sub 小标题 ===", "<BOOKMARK:x>", "{{ :a.png |}}",
        "Example: ", "示例：", "**//Examples//**", "• ", "中文", "English ", "先父觉醒/Abuelo",
    ]
)  # fmt: skip
_TEXT = st.lists(st.one_of(_MARKUP_PIECES, st.text(max_size=15)), max_size=25).map("".join)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    return Path(shutil.copytree(FOLDER, tmp_path_factory.mktemp("fuzz") / FOLDER.name))


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(noise=_TEXT, where=st.floats(0, 1), whole=st.booleans())
def test_any_text_in_a_chapter_gives_editions_or_a_source_error(scratch, noise, where, whole):
    original = _raw("chapter_3.md")
    at = int(where * len(original))
    text = noise if whole else original[:at] + noise + original[at:]
    (scratch / "chapter_3.md").write_text(text, "utf-8", errors="surrogatepass")
    try:
        english, chinese = dokuwiki.read(scratch)
    except SourceError as e:
        assert e.file
        return
    assert [r.number for r in english.rules] == [r.number for r in chinese.rules]
    assert all(isinstance(a, str) for r in english.rules for a in r.annotations)
