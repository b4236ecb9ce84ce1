"""Test helpers for deep research: a per-purpose scripted responder and a run harness.

The responder is the scripted model (the only fake): it reads the prompt it receives (the
evidence lines ``[E1] (origin) text``) and answers by rules, so what it says depends on what the
pipeline really found on the sandbox web.
"""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ditto_nb.patterns.common import SearchSetup
from ditto_nb.patterns.deep_research import ResearchRequest, open_research, run_research
from ditto_nb.patterns.tasks import create_task
from ditto_nb.runtime.config import RuntimeConfig
from ditto_nb.testing.scripted_coverage import PAIR, coverage_reply

EVIDENCE_LINE = re.compile(r"^\[(E\d+)\] \((\S+)\) (.*)$", re.M)


def evidence_lines(text: str) -> list[tuple[str, str, str]]:
    """``[(id, origin, text)]`` of the evidence block of a prompt."""
    return EVIDENCE_LINE.findall(text)


@dataclass
class Rule:
    """How the scripted model treats one sub-question.

    Attributes:
        question: the sub-question text.
        fact: regex; an evidence line matching it answers the sub-question (the match is quoted).
        next_query: builds the next query from the prompt's evidence lines (None: no query).
        conflict: when two origins match ``fact`` with different text, report a conflict.
    """

    question: str
    fact: str
    next_query: Callable[[list[tuple[str, str, str]]], str | None] | None = None
    conflict: bool = False


@dataclass
class Script:
    """Per-purpose responder for ``ScriptedModel.responder``."""

    rules: list[Rule]
    queries: list[str]
    clear: bool = True
    purposes: list[str] = field(default_factory=list)
    compare_answer: str = ""
    """What the ``compare`` call answers ("" declines)."""

    def __call__(self, request: dict[str, Any]) -> dict[str, Any] | None:
        messages = request["messages"]
        purpose = messages[0]["content"].splitlines()[0].removeprefix("Task: ").strip()
        self.purposes.append(purpose)
        user = messages[-1]["content"]
        lines = evidence_lines(user)
        if purpose == "research-plan":
            if not self.clear:
                return {"clear": False, "goal": "", "sub_questions": [], "queries": [],
                        "clarification_questions": ["Which market and which years do you mean?"]}
            return {"clear": True, "goal": "Answer the sub-questions", "sub_questions": [r.question for r in self.rules],
                    "queries": self.queries, "clarification_questions": []}
        if purpose == "assess":
            items = []
            for index, rule in enumerate(self.rules, start=1):
                hits = [(eid, origin, text) for eid, origin, text in lines if re.search(rule.fact, text)]
                origins = {origin for _, origin, _ in hits}
                if hits and rule.conflict and len(origins) > 1:
                    items.append({"index": index, "status": "conflict", "evidence_ids": [h[0] for h in hits],
                                  "gap": "sources disagree", "next_queries": []})
                elif hits:
                    items.append({"index": index, "status": "covered", "evidence_ids": [hits[0][0]], "gap": "",
                                  "next_queries": []})
                else:
                    query = rule.next_query(lines) if rule.next_query else None
                    items.append({"index": index, "status": "gap", "evidence_ids": [],
                                  "gap": f"no evidence for: {rule.question}", "next_queries": [query] if query else []})
            return {"items": items}
        if purpose in ("report", "repair"):
            conclusions = []
            for index, rule in enumerate(self.rules, start=1):
                for eid, _origin, text in lines:
                    match = re.search(rule.fact, text)
                    if match:
                        conclusions.append({"index": index, "statement": match.group(0)[:1].upper() + match.group(0)[1:] + ".",
                                            "chunk_id": eid, "quote": match.group(0)})
            return {"summary": "What the evidence shows, and what stays open.", "conclusions": conclusions,
                    "unknowns": []}
        if purpose == "review":
            return {"ok": True, "problems": []}
        if purpose == "coverage":
            return self._coverage(user)
        if purpose == "compare":  # each side's quotes as its value; the answer as scripted
            values = [" ".join(re.findall(r'"([^"]*)"', line)) for line in re.findall(r"^\d+\. .*$", user, re.M)]
            values += [""] * (2 - len(values))
            return {"first": values[0][:100], "second": values[1][:100], "answer": self.compare_answer,
                    "status": "answered" if self.compare_answer else "insufficient-evidence"}
        return None


    def _coverage(self, user: str) -> dict[str, Any]:
        """A pair's finding answers its question when the question's rule's fact matches it (the
        topic's rule: the last one, the chain's end); other questions: the lexical stand-in."""
        by_question = {rule.question: rule for rule in self.rules}
        verdicts = []
        for item, (_n, question, finding) in zip(coverage_reply(user)["verdicts"], PAIR.findall(user)):
            rule = by_question.get(question, self.rules[-1] if self.rules else None)
            if rule is not None:
                hit = bool(re.search(rule.fact, finding, re.I))
                item = {**item, "verdict": "answers" if hit else "does not answer",
                        "reason": "states it" if hit else "does not state it"}
            verdicts.append(item)
        return {"verdicts": verdicts}


def make_request(web: Any, **budgets: Any) -> ResearchRequest:
    """A request over every origin of the sandbox ``web`` with a unique id."""
    data: dict[str, Any] = {
        "id": f"t-{uuid.uuid4().hex[:12]}", "tenant": "acme", "principal": "ana",
        "question": budgets.pop("question", "Zarnow Bridge: who designed it and where was the designer born?"),
        "research_type": "industry", "allowed_origins": list(web.allowed_origins),
        "max_queries": 2, "max_pages": 2, "max_rounds": 3, "max_searches": 6, "max_read_pages": 8,
        "max_model_calls": 12, "research_seconds": 600,
    }
    data.update(budgets)
    return ResearchRequest.model_validate(data)


async def run_once(
    web: Any, config: RuntimeConfig, directory: Path, request: ResearchRequest, stop_after: str | None = None
) -> Any:
    """Create/open the task, run it once, close it."""
    await create_task(directory, request)
    app = await open_research(directory, request, config, SearchSetup.from_sandbox(web))
    try:
        return await run_research(app.runtime, {"request": request, "model": {"provider": "scripted",
                                                                              "model": "scripted"}},
                                  stop_after=stop_after)  # type: ignore[arg-type]
    finally:
        await app.close()


def run(web: Any, config: RuntimeConfig, directory: Path, request: ResearchRequest, stop_after: str | None = None) -> Any:
    """Sync wrapper of :func:`run_once`."""
    return asyncio.run(run_once(web, config, directory, request, stop_after))


def wiki(title: str, *paragraphs: str) -> dict[str, Any]:
    """A sandbox wiki page."""
    return {"url": f"https://wiki.test/wiki/{title.replace(' ', '_')}", "title": title, "paragraphs": list(paragraphs)}


def bridge_corpus() -> list[dict[str, Any]]:
    """A two-hop corpus: the bridge page names its designer; the designer's page holds the birthplace."""
    return [
        wiki("Zarnow Bridge", "The Zarnow Bridge is a steel arch bridge over the Lenne river.",
             "The Zarnow Bridge was designed by engineer Ilse Marrek and completed in 1931."),
        wiki("Ilse Marrek", "Ilse Marrek was born in Kessendorf in 1897.",
             "Marrek studied civil engineering in Hanover."),
        wiki("Lenne river", "The Lenne is a river in Westphalia with many bridges."),
    ]


def designer_query(lines: list[tuple[str, str, str]]) -> str | None:
    """The bridge hop: name the designer found in round one's evidence."""
    for _eid, _origin, text in lines:
        match = re.search(r"designed by engineer ([A-Z]\w+ [A-Z]\w+)", text)
        if match:
            return f"{match.group(1)} birthplace"
    return None


def bridge_script() -> Script:
    """Sub-question 1 is answered in round one; 2 needs the designer's own page."""
    return Script(
        rules=[Rule("Who designed the Zarnow Bridge?", r"designed by engineer [A-Z]\w+ [A-Z]\w+"),
               Rule("Where was the designer born?", r"was born in \w+", next_query=designer_query)],
        queries=["Zarnow Bridge"],
    )
