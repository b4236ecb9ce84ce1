"""Corpus validation, rendering, importers and the packaged demo data."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from ditto_nb.errors import ConfigError
from ditto_nb.sandbox import (
    SandboxPage,
    demo_corpus_path,
    demo_questions_path,
    import_hotpotqa,
    import_squad,
    load_corpus,
    load_hotpotqa_questions,
    wiki_url,
    write_corpus,
)


def _write_lines(path: Path, rows: Sequence[object]) -> Path:
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf-8")
    return path


def test_invalid_line_is_named(tmp_path: Path) -> None:
    corpus = _write_lines(
        tmp_path / "c.jsonl",
        [{"url": "https://a.test/x", "title": "X", "html": "<p>x</p>"}, {"url": "https://example.com/", "title": "Y", "html": "y"}],
    )
    with pytest.raises(ConfigError, match=r"(?s)c\.jsonl:2:.*under \.test"):
        load_corpus(corpus)


def test_not_json_and_duplicates_are_named(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"url": "https://a.test/", "title": "A", "html": "a"}\n{oops\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"bad\.jsonl:2: not valid JSON"):
        load_corpus(bad)
    dup = _write_lines(tmp_path / "dup.jsonl", [{"url": "https://a.test/", "title": "A", "html": "a"}] * 2)
    with pytest.raises(ConfigError, match=r"dup\.jsonl:2: duplicate url"):
        load_corpus(dup)


def test_page_needs_exactly_one_content_and_valid_charset() -> None:
    with pytest.raises(ValueError):
        SandboxPage(url="https://a.test/", title="A", html="<p>a</p>", paragraphs=["a"])
    with pytest.raises(ValueError):
        SandboxPage(url="https://a.test/", title="A")
    with pytest.raises(ValueError, match="charset"):
        SandboxPage(url="https://a.test/", title="A", html="a", charset="no-such-charset")
    with pytest.raises(ValueError, match="port"):
        SandboxPage(url="https://a.test:8443/", title="A", html="a")


def test_paragraphs_render_escaped_html() -> None:
    page = SandboxPage(url="https://a.test/p", title="Fish & <Chips>", paragraphs=["1 < 2 & 3", "second"])
    html = page.render_html() or ""
    assert 'class="firstHeading">Fish &amp; &lt;Chips&gt;</h1>' in html
    assert "<title>Fish &amp; &lt;Chips&gt; - Sandbox Wiki</title>" in html
    assert "<p>1 &lt; 2 &amp; 3</p>" in html and "<p>second</p>" in html
    assert page.content_type_header() == "text/html; charset=utf-8"


def test_write_then_load_round_trips(tmp_path: Path) -> None:
    pages = [
        SandboxPage(url="https://a.test/1", title="One", paragraphs=["a"], status=404, headers={"x-a": "1"}),
        SandboxPage(url="https://b.test/2", title="Two", html="<p>b</p>", charset="iso-8859-1", gzip=True),
    ]
    assert write_corpus(pages, tmp_path / "out" / "c.jsonl") == 2
    assert load_corpus(tmp_path / "out" / "c.jsonl") == pages


HOTPOT: list[dict[str, Any]] = [
    {
        "_id": "q1",
        "question": "Which river flows through the capital of Freedonia?",
        "answer": "Blue River",
        "type": "bridge",
        "level": "easy",
        "supporting_facts": [["Freedonia", 1], ["Fredville", 0], ["Freedonia", 0]],
        "context": [
            ["Freedonia", ["Freedonia is a country.", " Its capital is Fredville."]],
            ["Fredville", ["Fredville lies on the Blue River."]],
        ],
    },
    {
        "_id": "q2",
        "question": "Is Fredville a city?",
        "answer": "yes",
        "type": "comparison",
        "level": "hard",
        "supporting_facts": [["Fredville", 0]],
        "context": [["Fredville", ["Fredville lies on the Blue River."]], ["Sylvania", ["Sylvania borders Freedonia."]]],
    },
]


def test_import_hotpotqa_one_page_per_title(tmp_path: Path) -> None:
    path = _write_lines(tmp_path / "hotpot.jsonl", HOTPOT)
    pages = import_hotpotqa(path)
    assert [page.title for page in pages] == ["Freedonia", "Fredville", "Sylvania"]
    assert pages[0].url == "https://wiki.test/wiki/Freedonia"
    assert pages[0].paragraphs == ["Freedonia is a country. Its capital is Fredville."]
    # The original JSON-array layout gives the same pages.
    array = tmp_path / "hotpot.json"
    array.write_text(json.dumps(HOTPOT), encoding="utf-8")
    assert import_hotpotqa(array) == pages


def test_load_hotpotqa_questions(tmp_path: Path) -> None:
    questions = load_hotpotqa_questions(_write_lines(tmp_path / "h.jsonl", HOTPOT))
    assert [(q.id, q.answer) for q in questions] == [("q1", "Blue River"), ("q2", "yes")]
    assert questions[0].supporting_titles == ("Freedonia", "Fredville")


def test_hotpotqa_bad_record_is_named(tmp_path: Path) -> None:
    path = _write_lines(tmp_path / "h.jsonl", [HOTPOT[0], {"question": "no id"}])
    with pytest.raises(ConfigError, match=r"h\.jsonl:2"):
        import_hotpotqa(path)


def test_import_squad_one_page_per_article(tmp_path: Path) -> None:
    squad = {
        "version": "1.1",
        "data": [
            {
                "title": "Blue_River",
                "paragraphs": [
                    {"context": "The Blue River is long.", "qas": [{"id": "1", "question": "?", "answers": []}]},
                    {"context": "It flows through Fredville.", "qas": []},
                ],
            },
            {"title": "Sylvania", "paragraphs": [{"context": "Sylvania is small.", "qas": []}]},
        ],
    }
    path = tmp_path / "squad.json"
    path.write_text(json.dumps(squad), encoding="utf-8")
    pages = import_squad(path)
    assert [(p.title, p.url) for p in pages] == [
        ("Blue River", "https://wiki.test/wiki/Blue_River"),
        ("Sylvania", "https://wiki.test/wiki/Sylvania"),
    ]
    assert pages[0].paragraphs == ["The Blue River is long.", "It flows through Fredville."]
    (tmp_path / "bad.json").write_text("{}", encoding="utf-8")
    with pytest.raises(ConfigError, match="SQuAD"):
        import_squad(tmp_path / "bad.json")


def test_wiki_url_quotes_titles() -> None:
    assert wiki_url("Paris, Texas") == "https://wiki.test/wiki/Paris,_Texas"
    assert wiki_url("Café au lait", "w.test") == "https://w.test/wiki/Caf%C3%A9_au_lait"


def test_demo_corpus_supports_its_questions() -> None:
    pages = load_corpus(demo_corpus_path())
    hosts = {page.host for page in pages}
    assert {"wiki.test", "atlas.test", "mirror.test"} <= hosts
    by_title = {page.title: page for page in pages if page.host == "wiki.test"}
    mirror = next(page for page in pages if page.host == "mirror.test")
    assert mirror.paragraphs == by_title[mirror.title].paragraphs
    questions = load_hotpotqa_questions(demo_questions_path())
    assert 3 <= len(questions) <= 5
    for question in questions:
        texts = [" ".join(by_title[title].paragraphs or []) for title in question.supporting_titles]
        # Every supporting title is a page, and the gold answer is stated on one of them.
        assert question.answer in " ".join(texts), question.id
