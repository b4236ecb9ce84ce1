"""Web QA over an AND search (the sandbox, like MediaWiki): relaxation, second hop, comparisons,
answers that must answer, and claims whose quotes do not carry them (scripted model)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ditto_nb.errors import UngroundedAnswer
from ditto_nb.notebook.memory_view import load_task
from ditto_nb.patterns.common import SearchSetup
from ditto_nb.patterns.web_qa.plan import INSUFFICIENT_TEXT
from ditto_nb.sandbox import SandboxWeb, wiki_url
from ditto_nb.web import MediaWikiProvider
from tests.patterns.web_qa.helpers import Script, chunks_in_prompt, make_request, purpose_of, run_once

MUSEUM = "The Blue Museum is an art museum in Lakeside. It was designed by the architect Mara Quell."
QUELL = "Mara Quell (born 12 March 1931) is a Danish architect. She was born in Aarhus."
VENNICK = "Tor Vennick (born 4 June 1925) is a Norwegian architect known for wooden churches."
LAKESIDE = "Lakeside is a small town on the shore of Lake Mira."

PAGES: list[dict[str, Any]] = [
    {"url": wiki_url("Blue Museum"), "title": "Blue Museum", "paragraphs": [MUSEUM]},
    {"url": wiki_url("Mara Quell"), "title": "Mara Quell", "paragraphs": [QUELL]},
    {"url": wiki_url("Tor Vennick"), "title": "Tor Vennick", "paragraphs": [VENNICK]},
    {"url": wiki_url("Lakeside"), "title": "Lakeside", "paragraphs": [LAKESIDE]},
]


class Recorder:
    """Wrap a Script; keep every request by purpose."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        self.requests.append(request)
        return self.script(request)

    def of(self, purpose: str) -> list[dict[str, Any]]:
        return [r for r in self.requests if purpose_of(r) == purpose]


def claim_for(chunks: list[tuple[str, str, str]], sentence: str, claim: str) -> dict[str, str]:
    label = next(lbl for lbl, _origin, text in chunks if sentence in text)
    return {"chunk_id": label, "quote": sentence, "claim": claim}


@pytest.fixture
def wiki(sandbox_factory: Any) -> SandboxWeb:
    return sandbox_factory(PAGES)  # type: ignore[no-any-return]


def setup(wiki: SandboxWeb) -> SearchSetup:
    return SearchSetup.from_sandbox(wiki, policy_overrides={"retries": 0, "connect_timeout": 2.0, "read_timeout": 5.0})


async def test_zero_hit_query_is_relaxed_to_the_entity(tmp_path: Path, wiki: SandboxWeb, config, scripted_model) -> None:
    wordy = "Blue Museum architect birthplace nationality"
    provider = MediaWikiProvider(wiki.api_url, wiki.policy())
    assert await provider.search(wordy, 5) == []  # every word must match, as on a real wiki
    answer = lambda c: {"status": "answered", "answer": "Lakeside", "claims": [  # noqa: E731
        claim_for(c, "The Blue Museum is an art museum in Lakeside.", "The Blue Museum is in Lakeside.")]}
    recorder = Recorder(Script(queries=[wordy], answer=answer))
    scripted_model.responder = recorder
    request = make_request(wiki, question="In which town is the Blue Museum?", max_queries=1, max_pages=2)
    report = await run_once(tmp_path / "t", request, config, setup(wiki), scripted_model)
    first = report.searches[0]
    assert first.ok and first.hits and first.hits[0]["title"] == "Blue Museum"
    assert report.answer.status == "answered" and report.answer.text == "Lakeside"


async def test_second_hop_follows_the_selection_lookup(tmp_path: Path, wiki: SandboxWeb, config, scripted_model) -> None:
    def select(chunks: list[tuple[str, str, str]]) -> dict[str, Any]:
        return {"selected": [c[0] for c in chunks], "lookup": ["Mara Quell"], "missing": ["where she was born"],
                "conflicts": []}

    def answer(chunks: list[tuple[str, str, str]]) -> dict[str, Any]:
        return {"status": "answered", "answer": "Aarhus", "claims": [
            claim_for(chunks, "It was designed by the architect Mara Quell.", "The Blue Museum was designed by Mara Quell."),
            claim_for(chunks, "She was born in Aarhus.", "Mara Quell was born in Aarhus.")]}

    recorder = Recorder(Script(queries=["Blue Museum architect"], select=select, answer=answer))
    scripted_model.responder = recorder
    request = make_request(wiki, question="Where was the architect of the Blue Museum born?", max_queries=2, max_pages=4)
    report = await run_once(tmp_path / "t", request, config, setup(wiki), scripted_model)
    assert report.queries[-1] == "Mara Quell"  # the hop's query is the bridge entity named by the selection
    assert len(report.queries) <= request.max_queries
    answer_chunks = chunks_in_prompt(recorder.of("answer")[0])
    assert any(QUELL.split(".")[0] in text for _label, _origin, text in answer_chunks)
    assert [purpose_of(r) for r in recorder.requests] == ["plan", "select", "answer", "ground"]
    assert report.answer.status == "answered" and report.answer.text == "Aarhus"
    titles = {c.title for c in report.evidence}
    assert {"Blue Museum", "Mara Quell"} <= titles
    assert report.budget is not None and report.budget.model_calls == 4


async def test_comparison_queries_each_entity_and_needs_both_sides(
    tmp_path: Path, wiki: SandboxWeb, config, scripted_model
) -> None:
    # "both work as architects" is no comparison code decides (an order, nationality or a kind): the repair must
    # add the missing side (test_comparison.py covers the sides code completes; with the compare step on, code
    # quotes the missing side instead: test_rule_layer.py)
    one_side = lambda c: {"status": "answered", "answer": "Yes", "claims": [  # noqa: E731
        claim_for(c, "Mara Quell (born 12 March 1931) is a Danish architect.", "Mara Quell is a Danish architect.")]}
    both = lambda c: {"status": "answered", "answer": "Yes", "claims": [  # noqa: E731
        claim_for(c, "Mara Quell (born 12 March 1931) is a Danish architect.", "Mara Quell is a Danish architect."),
        claim_for(c, "Tor Vennick (born 4 June 1925) is a Norwegian architect known for wooden churches.",
                  "Tor Vennick is a Norwegian architect.")]}
    recorder = Recorder(Script(queries=["Mara Quell Tor Vennick nationality"], answer=one_side, repair=both))
    scripted_model.responder = recorder
    request = make_request(wiki, question="Did Mara Quell and Tor Vennick both work as architects?",
                           max_queries=2, max_pages=4)
    report = await run_once(tmp_path / "t", request, config, setup(wiki), scripted_model, rules_off=["compare-sides"])
    assert report.queries == ["Mara Quell", "Tor Vennick"]
    assert "The question compares Mara Quell and Tor Vennick" in recorder.of("answer")[0]["messages"][-1]["content"]
    repair_prompt = recorder.of("repair")[0]["messages"][-1]["content"]
    assert "no verified claim states the compared fact about Tor Vennick" in repair_prompt
    assert report.answer.status == "answered" and report.answer.text == "Yes"
    assert {c.citations[0].title for c in report.answer.claims} == {"Mara Quell", "Tor Vennick"}


async def test_answer_words_absent_from_quotes_is_repaired_then_not_published(
    tmp_path: Path, wiki: SandboxWeb, config, scripted_model
) -> None:
    wrong = lambda c: {"status": "answered", "answer": "Copenhagen", "claims": [  # noqa: E731
        claim_for(c, "She was born in Aarhus.", "Mara Quell was born in Aarhus.")]}
    recorder = Recorder(Script(queries=["Mara Quell"], answer=wrong, repair=wrong))
    scripted_model.responder = recorder
    request = make_request(wiki, question="Where was Mara Quell born?", max_queries=1, max_pages=2)
    report = await run_once(tmp_path / "t", request, config, setup(wiki), scripted_model)
    repair_prompt = recorder.of("repair")[0]["messages"][-1]["content"]
    assert "Copenhagen" in repair_prompt and "appear(s) in none of its quotes" in repair_prompt
    assert report.answer.status == "insufficient-evidence"
    assert report.answer.text.startswith(INSUFFICIENT_TEXT) and "Copenhagen" not in report.answer.text
    assert report.budget is not None and report.budget.model_calls == 6 and report.budget.pages_limit == 2


async def test_claim_with_a_date_absent_from_its_quote_is_withheld_without_repair_when_the_answer_stands(
    tmp_path: Path, wiki: SandboxWeb, config, scripted_model
) -> None:
    draft = lambda c: {"status": "answered", "answer": "Aarhus", "claims": [  # noqa: E731
        claim_for(c, "She was born in Aarhus.", "Mara Quell was born in Aarhus."),
        claim_for(c, "She was born in Aarhus.", "Mara Quell was born in Aarhus on 1 May 1930.")]}
    recorder = Recorder(Script(queries=["Mara Quell"], answer=draft, repair=draft))
    scripted_model.responder = recorder
    request = make_request(wiki, question="Where was Mara Quell born?", max_queries=1, max_pages=2)
    report = await run_once(tmp_path / "t", request, config, setup(wiki), scripted_model)
    assert recorder.of("repair") == []  # the answer stands on its first claim: no repair call
    assert report.answer.status == "answered" and report.answer.text == "Aarhus" and not report.repaired
    assert [c.claim for c in report.answer.claims] == ["Mara Quell was born in Aarhus."]
    assert report.budget is not None and report.budget.model_calls == 4
    assert report.answer.withheld == []  # the published report carries no withheld claim
    (withheld,) = load_task(tmp_path / "t").withheld  # Memory ``withheld``, shown by show/claims_frame
    assert withheld["claim"] == "Mara Quell was born in Aarhus on 1 May 1930."
    assert any("1930" in reason for reason in withheld["reasons"])


async def test_only_claim_with_a_date_absent_from_its_quote_is_repaired_then_withheld(
    tmp_path: Path, wiki: SandboxWeb, config, scripted_model
) -> None:
    draft = lambda c: {"status": "answered", "answer": "Aarhus", "claims": [  # noqa: E731
        claim_for(c, "She was born in Aarhus.", "Mara Quell was born in Aarhus on 1 May 1930.")]}
    again = lambda c: {"status": "answered", "answer": "Aarhus", "claims": [  # noqa: E731
        claim_for(c, "She was born in Aarhus.", "Mara Quell was born in Aarhus on 1 May 1930."),
        claim_for(c, "She was born in Aarhus.", "Mara Quell was born in Aarhus.")]}
    recorder = Recorder(Script(queries=["Mara Quell"], answer=draft, repair=again))
    scripted_model.responder = recorder
    request = make_request(wiki, question="Where was Mara Quell born?", max_queries=1, max_pages=2)
    report = await run_once(tmp_path / "t", request, config, setup(wiki), scripted_model)
    repair_prompt = recorder.of("repair")[0]["messages"][-1]["content"]
    assert "does not state the number(s) 1, 1930" in repair_prompt
    assert report.answer.status == "answered" and report.answer.text == "Aarhus" and report.repaired
    assert [c.claim for c in report.answer.claims] == ["Mara Quell was born in Aarhus."]
    (withheld,) = load_task(tmp_path / "t").withheld
    assert withheld["claim"] == "Mara Quell was born in Aarhus on 1 May 1930."
    assert any("1930" in reason for reason in withheld["reasons"])


async def test_claim_quoting_a_different_entity_is_rejected(
    tmp_path: Path, wiki: SandboxWeb, config, scripted_model
) -> None:
    other = lambda c: {"status": "answered", "answer": "Norwegian", "claims": [  # noqa: E731
        claim_for(c, "Tor Vennick (born 4 June 1925) is a Norwegian architect known for wooden churches.",
                  "Mara Quell is a Norwegian architect.")]}
    recorder = Recorder(Script(queries=["Mara Quell"], answer=other, repair=other))
    scripted_model.responder = recorder
    request = make_request(wiki, question="What nationality is Mara Quell, the architect Tor Vennick admired?",
                           max_queries=2, max_pages=4)
    with pytest.raises(UngroundedAnswer, match="does not name Mara, Quell"):
        await run_once(tmp_path / "t", request, config, setup(wiki), scripted_model)
    repair_prompt = recorder.of("repair")[0]["messages"][-1]["content"]
    assert "the quote does not name Mara, Quell" in repair_prompt


async def test_claim_without_a_quote_gets_the_sentence_of_its_chunk_that_states_it(
    tmp_path: Path, wiki: SandboxWeb, config, scripted_model
) -> None:
    """The local model's grammar has no quote field: code quotes the cited chunk's sentence that
    states the claim (the answer weighs extra), and that quote is verified and published."""
    def draft(chunks: list[tuple[str, str, str]]) -> dict[str, Any]:
        label = next(lbl for lbl, _origin, text in chunks if "Aarhus" in text)
        return {"status": "answered", "answer": "Aarhus",
                "claims": [{"chunk_id": label, "claim": "Mara Quell was born in Aarhus."}]}
    recorder = Recorder(Script(queries=["Mara Quell"], answer=draft, repair=draft))
    scripted_model.responder = recorder
    request = make_request(wiki, question="Where was Mara Quell born?", max_queries=1, max_pages=2)
    report = await run_once(tmp_path / "t", request, config, setup(wiki), scripted_model)
    assert report.answer.status == "answered" and report.answer.text == "Aarhus" and not report.repaired
    (claim,) = report.answer.claims
    (citation,) = claim.citations
    assert citation.quote == "She was born in Aarhus."
    assert citation.title == "Mara Quell"
    ground_prompt = recorder.of("ground")[0]["messages"][-1]["content"]
    assert '"She was born in Aarhus."' in ground_prompt  # the review judges the picked quote


async def test_a_swapped_chunk_label_is_quoted_from_the_chunk_that_names_the_claim(
    tmp_path: Path, wiki: SandboxWeb, config, scripted_model
) -> None:
    """A small model cites C1 for a fact of C2: the quote comes from the chunk that names the claim's
    names, and the published citation names that chunk's page."""
    def draft(chunks: list[tuple[str, str, str]]) -> dict[str, Any]:
        wrong = next(lbl for lbl, _origin, text in chunks if "Aarhus" not in text)
        return {"status": "answered", "answer": "Aarhus",
                "claims": [{"chunk_id": wrong, "claim": "Mara Quell was born in Aarhus."}]}
    recorder = Recorder(Script(queries=["Mara Quell", "Blue Museum"], answer=draft, repair=draft))
    scripted_model.responder = recorder
    request = make_request(wiki, question="Where was Mara Quell, who designed the Blue Museum, born?",
                           max_queries=2, max_pages=3)
    report = await run_once(tmp_path / "t", request, config, setup(wiki), scripted_model)
    assert report.answer.status == "answered"
    (claim,) = report.answer.claims
    (citation,) = claim.citations
    assert citation.title == "Mara Quell" and "Aarhus" in citation.quote


async def test_second_hop_reads_a_one_word_bridge_the_selection_did_not_name(
    tmp_path: Path, sandbox_factory: Any, config, scripted_model
) -> None:
    """The small model's selection usually names no lookup: code names the bridge, and a
    one-word title ("Halliburton", "Carrefour") counts when the question's words stand before it."""
    web = sandbox_factory([
        {"url": wiki_url("Lumamart"), "title": "Lumamart", "paragraphs": [
            "Lumamart was a hypermarket chain. It was founded in Lyon in 1968. In 1991 the chain was bought by "
            "its rival Vextor for 5 billion francs."]},
        {"url": wiki_url("Vextor"), "title": "Vextor", "paragraphs": [
            "Vextor is a retail group. At the end of 2016 Vextor operated 1,462 hypermarkets."]},
        {"url": wiki_url("Lyon"), "title": "Lyon", "paragraphs": ["Lyon is a city in France with a chain of hills."]},
    ])

    def answer(chunks: list[tuple[str, str, str]]) -> dict[str, Any]:
        return {"status": "answered", "answer": "1,462", "claims": [
            claim_for(chunks, "At the end of 2016 Vextor operated 1,462 hypermarkets.", "Vextor operated 1,462 hypermarkets.")]}

    recorder = Recorder(Script(queries=["Lumamart"], answer=answer))
    scripted_model.responder = recorder
    question = "How many hypermarkets did the chain that bought Lumamart in 1991 operate at the end of 2016?"
    report = await run_once(tmp_path / "t", make_request(web, question=question, max_queries=2, max_pages=4),
                            config, SearchSetup.from_sandbox(web), scripted_model)
    assert report.queries == ["Lumamart", "Vextor"]  # "bought by its rival Vextor": not "Lyon"
    assert report.answer.status == "answered" and report.answer.text == "1,462"
    assert "Vextor" in {c.title for c in report.evidence}


async def test_second_hop_tries_the_next_bridge_name_when_the_first_finds_only_pages_read(
    tmp_path: Path, sandbox_factory: Any, config, scripted_model
) -> None:
    """Seen on the real wiki: the hop searched "Katherine Applegate", whose only hit was the page
    just read, and read nothing. The next bridge name is tried within the same search."""
    web = sandbox_factory([
        {"url": wiki_url("Lumamart"), "title": "Lumamart", "paragraphs": [
            "Lumamart was a hypermarket chain. In 1991 the chain was bought by the hypermarket owner Pia Norden "
            "and merged into her chain Vextor."]},
        {"url": wiki_url("Vextor"), "title": "Vextor", "paragraphs": [
            "Vextor is a retail group. At the end of 2016 Vextor operated 1,462 hypermarkets."]},
    ])

    def answer(chunks: list[tuple[str, str, str]]) -> dict[str, Any]:
        return {"status": "answered", "answer": "1,462", "claims": [
            claim_for(chunks, "At the end of 2016 Vextor operated 1,462 hypermarkets.", "Vextor operated 1,462 hypermarkets.")]}

    recorder = Recorder(Script(queries=["Lumamart"], answer=answer))
    scripted_model.responder = recorder
    question = "How many hypermarkets did the chain that bought Lumamart in 1991 operate at the end of 2016?"
    report = await run_once(tmp_path / "t", make_request(web, question=question, max_queries=2, max_pages=4),
                            config, SearchSetup.from_sandbox(web), scripted_model)
    assert report.queries == ["Lumamart", "Pia Norden"]
    hop = report.searches[-1]
    assert hop.hits[0]["title"] == "Vextor"  # found by the alternate name, in the same search
    assert len(report.queries) <= 2 and report.answer.text == "1,462"
    assert "Vextor" in {c.title for c in report.evidence}


async def test_a_plan_guess_that_finds_no_new_page_gives_way_to_the_pages_name(
    tmp_path: Path, sandbox_factory: Any, config, scripted_model
) -> None:
    """Seen on the real wiki: the plan's guess "Kaiser Ventures Corporation" took the hop and found
    only the page already read. Code's bridge names are the guess's alternates."""
    web = sandbox_factory([
        {"url": wiki_url("Lumamart"), "title": "Lumamart", "paragraphs": [
            "Lumamart was a hypermarket chain. In 1991 the chain was bought by its rival Vextor, a unit of "
            "Norda Holdings."]},
        {"url": wiki_url("Vextor"), "title": "Vextor", "paragraphs": [
            "Vextor is a retail group. At the end of 2016 Vextor operated 1,462 hypermarkets."]},
    ])

    def answer(chunks: list[tuple[str, str, str]]) -> dict[str, Any]:
        return {"status": "answered", "answer": "1,462", "claims": [
            claim_for(chunks, "At the end of 2016 Vextor operated 1,462 hypermarkets.", "Vextor operated 1,462 hypermarkets.")]}

    question = "How many hypermarkets did the chain that bought Lumamart in 1991 operate at the end of 2016?"
    # an invented guess finds nothing; a guess the page names finds only that page: either way the
    # guess keeps the hop's query and code's name "Vextor" is tried as its alternate
    for guess in ("Zorbex Retail", "Norda Holdings"):
        scripted_model.responder = Recorder(Script(queries=["Lumamart", guess], answer=answer))
        report = await run_once(tmp_path / guess, make_request(web, question=question, max_queries=2, max_pages=4),
                                config, SearchSetup.from_sandbox(web), scripted_model)
        assert report.queries == ["Lumamart", guess]
        assert report.searches[-1].hits[0]["title"] == "Vextor"
        assert report.answer.text == "1,462"
