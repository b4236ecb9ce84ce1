"""Notebook 01's example is a two-hop question: the form and ``ditto-nb ask`` start from the same
budgets (the request model's defaults), and the scripted stand-in answers it as a careful reader
would (the bridge place from the question entity's page, the answer from the bridge's page)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ditto_nb.errors import ConfigError
from ditto_nb.notebook.ask import request_defaults
from ditto_nb.notebook.stand_in import Chunk, asked_type, bridge_lookup, selected_chunks, typed_answer
from ditto_nb.patterns.web_qa import WebQaRequest
from ditto_nb.patterns.web_qa.request import DEFAULT_MAX_PAGES, DEFAULT_MAX_QUERIES
from ditto_nb.sandbox import demo_corpus_path, demo_questions_path, load_corpus, load_hotpotqa_questions

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "01_web_qa.ipynb"
EXAMPLE = load_hotpotqa_questions(demo_questions_path())[0]


def _chunks(*titles: str) -> list[Chunk]:
    """Every paragraph of the demo corpus pages with these titles, labelled C1, C2, ... in order."""
    pages = {p.title: p for p in load_corpus(demo_corpus_path())}
    texts = [(title, p.url, text) for title in titles for p in [pages[title]] for text in p.paragraphs]
    return [Chunk(f"C{i}", title, url.split("/")[2], text) for i, (title, url, text) in enumerate(texts, 1)]


def test_the_budget_defaults_fit_a_two_hop_question() -> None:
    assert request_defaults(WebQaRequest, "max_queries", "max_pages", "cross_check") == {
        "max_queries": DEFAULT_MAX_QUERIES, "max_pages": DEFAULT_MAX_PAGES, "cross_check": False}
    assert (DEFAULT_MAX_QUERIES, DEFAULT_MAX_PAGES) == (2, 6)  # one query and two pages left for the hop
    with pytest.raises(ConfigError, match="no default for 'question'"):
        request_defaults(WebQaRequest, "question")


def test_notebook_01_form_starts_from_the_request_defaults_and_checks_its_example() -> None:
    cells = ["".join(c["source"]) for c in json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
             if c["cell_type"] == "code"]
    form = next(c for c in cells if "AskForm(" in c)
    assert 'request_defaults(WebQaRequest, "max_queries", "max_pages", "cross_check")' in form
    assert '"max_queries": 1' not in form and '"max_pages": 3' not in form
    report = next(c for c in cells if "report = await run_web_qa" in c)
    assert 'report.answer.status == "answered" and example.answer in report.answer.text' in report
    assert (EXAMPLE.answer, EXAMPLE.supporting_titles[-1]) == ("Seine", "Paris")


def test_stand_in_selects_the_entity_page_before_a_decoy_and_looks_up_the_place() -> None:
    shown = _chunks("Paris, Texas", "Eiffel Tower")
    chosen = selected_chunks(EXAMPLE.question, shown)
    assert [c.title for c in chosen[:2]] == ["Eiffel Tower", "Eiffel Tower"]  # the decoy comes after
    assert bridge_lookup(EXAMPLE.question, chosen) == ["Paris"]
    assert asked_type(EXAMPLE.question) == "river" and asked_type("How long is the Seine?") == ""


def test_stand_in_answers_from_the_bridge_page_with_both_steps_quoted() -> None:
    shown = _chunks("Eiffel Tower", "Paris, Texas", "Paris")
    typed = typed_answer(EXAMPLE.question, shown, ["Paris"])
    assert typed is not None and typed.answer == "Seine"
    titles = {c.label: c.title for c in shown}
    assert [titles[label] for label, _ in typed.claims] == ["Eiffel Tower", "Paris"]
    for label, sentence in typed.claims:
        assert sentence in next(c.text for c in shown if c.label == label)  # quotes are exact text
    london = typed_answer("Which river runs through the city in which Big Ben is located?",
                          _chunks("Big Ben", "London"), ["London"])
    assert london is not None and london.answer == "River Thames"
    # without a sentence naming the asked type's name there is no typed answer (the old rule answers)
    assert typed_answer(EXAMPLE.question, _chunks("Eiffel Tower", "Paris, Texas"), ["Paris"]) is None
