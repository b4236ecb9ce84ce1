"""Reusable helpers for Web QA tests: a corpus, a scripted responder, task setup."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ditto_nb.patterns.common import SearchSetup
from ditto_nb.patterns.web_qa import WebQaRequest, open_web_qa, run_web_qa
from ditto_nb.patterns.web_qa.prompts import evidence_lines
from ditto_nb.patterns.web_qa.prompts import purpose_of as prompt_purpose
from ditto_nb.runtime.config import RuntimeConfig
from ditto_nb.sandbox import SandboxWeb
from ditto_nb.testing.scripted_model import ScriptedModel

BRIDGE_A = "The Golden Gate Bridge opened to traffic on May 27, 1937. Its main span is 1,280 meters long."
BRIDGE_B = "Engineers report the bridge main span is 1,280 meters long, a record when it opened in 1937."

CORPUS: list[dict[str, Any]] = [
    {"url": "https://alpha.test/wiki/Golden_Gate_Bridge", "title": "Golden Gate Bridge",
     "paragraphs": [BRIDGE_A, "The bridge is painted International Orange."]},
    {"url": "https://beta.test/bridges/golden-gate", "title": "Golden Gate Bridge facts",
     "paragraphs": [BRIDGE_B, "Fog often covers the bridge towers."]},
]



def chunks_in_prompt(request: dict[str, Any]) -> list[tuple[str, str, str]]:
    """``(label, host, text)`` of every chunk line in the last user message."""
    return [(line.label, line.host, line.text) for line in evidence_lines(request["messages"][-1]["content"])]


def purpose_of(request: dict[str, Any]) -> str:
    """The ``Task: <purpose>`` of a model request."""
    return str(request.get("purpose") or prompt_purpose(request["messages"]))


def claims_in_prompt(request: dict[str, Any]) -> int:
    return len(re.findall(r"^\d+\. Claim:", request["messages"][-1]["content"], re.M))


@dataclass
class Script:
    """A scripted responder: one function per purpose; defaults answer with real quotes.

    ``answer(chunks) -> dict`` receives the chunk lines of the prompt and returns the draft;
    ``compare(user message) -> dict`` answers ``Task: compare`` (a script without one fails the
    test when the step is called).
    """

    queries: list[str] = field(default_factory=lambda: ["Golden Gate Bridge"])
    plan: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    select: Callable[[list[tuple[str, str, str]]], dict[str, Any]] | None = None
    answer: Callable[[list[tuple[str, str, str]]], dict[str, Any]] | None = None
    repair: Callable[[list[tuple[str, str, str]]], dict[str, Any]] | None = None
    ground: Callable[[int], dict[str, Any]] | None = None
    compare: Callable[[str], dict[str, Any]] | None = None
    seen: list[str] = field(default_factory=list)

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        purpose = purpose_of(request)
        self.seen.append(purpose)
        chunks = chunks_in_prompt(request)
        if purpose == "plan":
            return self.plan(request) if self.plan else {
                "normalized_question": "When did the Golden Gate Bridge open and how long is its span?",
                "queries": self.queries, "needs_clarification": False, "clarification": ""}
        if purpose == "select":
            return self.select(chunks) if self.select else {
                "selected": [c[0] for c in chunks], "missing": [], "conflicts": []}
        if purpose == "answer":
            return self.answer(chunks) if self.answer else default_answer(chunks)
        if purpose == "repair":
            return self.repair(chunks) if self.repair else default_answer(chunks)
        if purpose in ("ground", "regrade"):
            n = claims_in_prompt(request)
            return self.ground(n) if self.ground else {
                "verdicts": [{"n": i, "supported": True, "reason": "quote matches"} for i in range(1, n + 1)]}
        if purpose == "compare" and self.compare:
            return self.compare(str(request["messages"][-1]["content"]))
        raise AssertionError(f"unexpected purpose {purpose}")


def quote_with(chunks: list[tuple[str, str, str]], needle: str) -> list[tuple[str, str]]:
    """``(label, quote)`` of chunks whose text contains ``needle`` (the quote is the needle)."""
    return [(label, needle) for label, _origin, text in chunks if needle in text]


def default_answer(chunks: list[tuple[str, str, str]]) -> dict[str, Any]:
    """Answer with one claim per chunk that mentions '1,280 meters long' (real quotes)."""
    claims = [{"claim": "The main span is 1,280 meters long.", "chunk_id": label, "quote": quote}
              for label, quote in quote_with(chunks, "1,280 meters long")]
    return {"status": "answered" if claims else "insufficient-evidence",
            "answer": "The main span is 1,280 meters long.", "claims": claims}


def make_request(web: SandboxWeb, task_id: str = "t1", **changes: Any) -> WebQaRequest:
    fields: dict[str, Any] = {
        "id": task_id, "tenant": "acme", "principal": "ana",
        "question": "When did the Golden Gate Bridge open and how long is its main span?",
        "allowed_origins": list(web.allowed_origins), "max_queries": 2, "max_pages": 4,
        "cross_check": False, "allow_partial": True,
    }
    fields.update(changes)
    return WebQaRequest.parse(fields)


def model_input(request: WebQaRequest, model: ScriptedModel) -> dict[str, Any]:
    return {"request": request, "model": {"provider": "scripted", "model": model.model_name}}


async def run_once(
    directory: Path, request: WebQaRequest, config: RuntimeConfig, search: SearchSetup, model: ScriptedModel,
    **kwargs: Any,
) -> Any:
    """Open the app, run once (with ``kwargs`` for run_web_qa), close."""
    app = await open_web_qa(directory, request, config, search)
    try:
        return await run_web_qa(app.runtime, model_input(request, model), **kwargs)
    finally:
        await app.close()


def strip_times(value: Any) -> Any:
    """Drop timestamp fields (``generated_at``, ``fetched_at``) recursively."""
    if isinstance(value, dict):
        return {k: strip_times(v) for k, v in value.items() if k not in ("generated_at", "fetched_at")}
    if isinstance(value, list):
        return [strip_times(v) for v in value]
    return value


def dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True)
