"""The bridge step (real sandbox search, scripted model): a single question's draft that answers
with the in-between entity, blocked by the rules, is asked again about that entity from its own
page instead of being repaired; switched off, the repair runs as before."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ditto_nb.patterns.common import SearchSetup
from ditto_nb.patterns.web_qa.bridge_step import bridge_chunks, bridge_page
from ditto_nb.patterns.web_qa.rules import DraftAnswer, LayerResult, RuleContext
from ditto_nb.patterns.web_qa.prompts import without_sentences
from ditto_nb.sandbox import wiki_url
from tests.patterns.web_qa.helpers import Script, make_request, run_once
from tests.patterns.web_qa.test_retrieval_flow import Recorder, claim_for

HARBOR = "Harbor Lights is a 1952 film in which Mara Velde plays the lighthouse keeper Ona Brisk."
VELDE = ("Mara Velde was an American actress of the 1950s. She later served as Ambassador to Ghana "
         "from 1974 to 1976.")
QUESTION = "What government position was held by the actress who played Ona Brisk in Harbor Lights?"
PAGES = [
    {"url": wiki_url("Harbor Lights (film)"), "title": "Harbor Lights (film)", "paragraphs": [HARBOR]},
    {"url": wiki_url("Mara Velde"), "title": "Mara Velde", "paragraphs": [VELDE]},
]


def _bridged_draft(chunks: list[tuple[str, str, str]]) -> dict[str, Any]:
    """The 1.5B model's habit: the in-between entity as the answer."""
    return {"status": "answered", "answer": "Mara Velde",
            "claims": [claim_for(chunks, HARBOR, "Mara Velde plays Ona Brisk in Harbor Lights.")]}


def _position(chunks: list[tuple[str, str, str]]) -> dict[str, Any]:
    return {"status": "answered", "answer": "Ambassador to Ghana", "claims": [
        claim_for(chunks, "She later served as Ambassador to Ghana from 1974 to 1976.",
                  "Mara Velde served as Ambassador to Ghana.")]}


async def _run(tmp_path: Path, sandbox_factory: Any, config: Any, scripted_model: Any, script: Script,
               **kwargs: Any) -> Any:
    web = sandbox_factory(PAGES)
    request = make_request(web, question=QUESTION, max_queries=2, max_pages=4)
    return await run_once(tmp_path / "t", request, config, SearchSetup.from_sandbox(web), scripted_model, **kwargs)


async def test_a_blocked_answer_naming_a_page_read_is_asked_again_about_it(
        tmp_path: Path, sandbox_factory: Any, config: Any, scripted_model: Any) -> None:
    script = Script(queries=["Harbor Lights"], answer=_bridged_draft, bridge=_position)
    recorder = Recorder(script)
    scripted_model.responder = recorder
    report = await _run(tmp_path, sandbox_factory, config, scripted_model, script)
    assert report.answer.status == "answered" and report.answer.text == "Ambassador to Ghana"
    assert "repair" not in script.seen and script.seen.count("bridge") == 1
    step = next(r for r in report.answer.rules if r.rule == "bridge-step")
    assert step.round == "bridge" and step.after == "Ambassador to Ghana" and step.changed  # before: not published
    assert any(r.rule == "described-bridge" and r.round == "answer" for r in report.answer.rules)
    # the bridge call saw the entity's own page first, then the chunk that named it
    user = str(recorder.of("bridge")[0]["messages"][-1]["content"])
    assert user.index("Ambassador to Ghana") < user.index("lighthouse keeper")
    assert "asks for a fact about Mara Velde" in user
    quotes = [c.quote for claim in report.answer.claims for c in claim.citations]
    assert any("Ambassador to Ghana" in q for q in quotes)


async def test_the_entity_again_declines_and_the_step_switched_off_repairs(
        tmp_path: Path, sandbox_factory: Any, config: Any, scripted_model: Any) -> None:
    again = Script(queries=["Harbor Lights"], answer=_bridged_draft, bridge=_bridged_draft)
    scripted_model.responder = again
    report = await _run(tmp_path / "again", sandbox_factory, config, scripted_model, again)
    assert report.answer.status == "insufficient-evidence" and "repair" not in again.seen

    off = Script(queries=["Harbor Lights"], answer=_bridged_draft, repair=_position)
    scripted_model.responder = off
    report = await _run(tmp_path / "off", sandbox_factory, config, scripted_model, off, rules_off=["bridge-step"])
    assert "bridge" not in off.seen and "repair" in off.seen
    assert all(r.rule != "bridge-step" for r in report.answer.rules)


def test_bridge_chunks_put_the_entity_page_first_then_the_chunks_naming_it() -> None:
    page = {"url": wiki_url("Mara Velde"), "title": "Mara Velde", "paragraphs": [VELDE], "sha256": "ab" * 32,
            "final_url": wiki_url("Mara Velde")}
    evidence = [{"chunk_id": "h1", "url": wiki_url("Harbor Lights (film)"), "text": HARBOR},
                {"chunk_id": "x1", "url": wiki_url("Other"), "text": "An unrelated paragraph."}]
    chunks = bridge_chunks(QUESTION, page, evidence)  # type: ignore[arg-type]
    assert [c["text"] for c in chunks] == [VELDE, HARBOR]


def test_the_sentences_that_led_to_the_entity_are_not_shown() -> None:
    first = "Mara Velde was an American actress of the 1950s."
    assert without_sentences(VELDE, [first]) == "… She later served as Ambassador to Ghana from 1974 to 1976."
    assert without_sentences(VELDE, ["an American actress"]) == without_sentences(VELDE, [first])  # a part of it
    assert without_sentences(VELDE, []) == VELDE
    assert without_sentences(first, [first]) == first  # never everything: the text stays whole
    three = f"{first} She sang. She later served as Ambassador to Ghana."
    assert without_sentences(three, ["She sang."]) == f"{first} … She later served as Ambassador to Ghana."


async def test_the_bridge_call_does_not_see_what_the_first_draft_quoted_from_the_entity_page(
        tmp_path: Path, sandbox_factory: Any, config: Any, scripted_model: Any) -> None:
    def actress(chunks: list[tuple[str, str, str]]) -> dict[str, Any]:
        return {"status": "answered", "answer": "Mara Velde", "claims": [
            claim_for(chunks, HARBOR, "Mara Velde plays Ona Brisk in Harbor Lights."),
            claim_for(chunks, "Mara Velde was an American actress of the 1950s.", "Mara Velde was an actress.")]}

    script = Script(queries=["Harbor Lights"], answer=actress, bridge=_position)
    recorder = Recorder(script)
    scripted_model.responder = recorder
    report = await _run(tmp_path, sandbox_factory, config, scripted_model, script)
    user = str(recorder.of("bridge")[0]["messages"][-1]["content"])
    assert "American actress of the 1950s" not in user and "… She later served as Ambassador to Ghana" in user
    assert "lighthouse keeper" in user  # the chunk that named her is shown whole
    assert report.answer.text == "Ambassador to Ghana"


def test_only_a_wrong_entity_problem_sends_a_draft_to_the_bridge_step() -> None:
    page = {"url": wiki_url("Mara Velde"), "title": "Mara Velde", "sha256": "ab" * 32, "paragraphs": [VELDE]}
    context = RuleContext(question=QUESTION)

    def layer(rule: str, answer: str = "Mara Velde", status: str = "answered") -> LayerResult:
        fired: list[Any] = [{"rule": rule, "phase": "check", "round": "answer", "changed": False,
                             "before": answer, "after": answer, "note": "answer: …"}]
        return LayerResult(DraftAnswer(text=answer, status=status, claims=[]), ["answer: …"], fired)

    pages: list[Any] = [page]
    assert bridge_page(context, layer("described-bridge"), pages, frozenset()) == page
    assert bridge_page(context, layer("tied-years"), pages, frozenset()) == page
    assert bridge_page(context, layer("answer-quoted"), pages, frozenset()) is None  # the repair mends claims
    assert bridge_page(context, layer("described-bridge", "Ona Brisk"), pages, frozenset()) is None  # no such page
    assert bridge_page(context, layer("described-bridge"), pages, frozenset({"bridge-step"})) is None
    two = RuleContext(question="Who was born first, Mara Velde or Ona Brisk?", compared=("Mara Velde", "Ona Brisk"))
    assert bridge_page(two, layer("described-bridge"), pages, frozenset()) is None  # a comparison never bridges
