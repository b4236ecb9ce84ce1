"""The two baselines of the wiki benchmark and the scripted stand-in model (harness check).

- ``naive``: the model writes one search query (call 1), the top 3 hits are read, the model
  answers from them in a few words (call 2). No quotes, no checks.
- ``oracle``: the supporting paragraphs are handed to the model, which answers (one call).
- :func:`scripted_responder` / :func:`scripted_dispatch`: rule-based replies for every purpose (kit
  stages, naive, oracle): queries are the gold titles, answers quote sentences holding the gold
  answer. They check the harness, not a model. The dispatch picks the question by the text of the
  prompt, so one scripted server answers a batch of concurrent tasks.

Ditto itself runs through ``ditto_nb.batch.run_batch`` (see ``wiki_ditto.py``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from ditto_nb.errors import DittoError
from ditto_nb.patterns.web_qa.prompts import evidence_lines, purpose_of
from ditto_nb.runtime import INFER_REASONING_SAMPLE, RuntimeConfig
from ditto_nb.sandbox.mediawiki_files import wiki_title
from ditto_nb.web import read_page
from hotpot_eval import normalize_answer
from wiki_rows import score
from wiki_targets import Question, WikiTarget

_NO_ANSWER = {"", "unknown", "insufficient", "insufficient evidence", "not stated", "i dont know", "none", "n a"}
_SENTENCE = re.compile(r"[^.]*\.")
_ANSWER_RULES = ('Answer the question in a few words using the pages. If they do not say, answer "unknown". '
                 'Reply with JSON: {"answer": str}')


class NaiveQuery(BaseModel):
    """The naive baseline's first call."""

    query: str = Field(description="One search query.")


class ShortAnswer(BaseModel):
    """The naive baseline's and the oracle's answer call."""

    answer: str = Field(description="The answer in a few words, or unknown.")


# --- the scripted stand-in (harness check only) ----------------------------------------------------
def scripted_responder(question: Question) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """Rule-based replies to every purpose for one question (see the module docstring)."""

    def reply(request: dict[str, Any]) -> dict[str, Any]:
        purpose = purpose_of(request["messages"])
        user = request["messages"][-1]["content"]
        chunks = [(line.label, line.text) for line in evidence_lines(user)]
        if purpose == "plan":
            return {"normalized_question": question.question, "queries": list(question.gold_titles[:2]),
                    "needs_clarification": False, "clarification": ""}
        if purpose == "select":
            return {"selected": [label for label, _ in chunks], "missing": [], "conflicts": []}
        if purpose in ("answer", "repair"):
            claims = [{"claim": f"The answer is {question.answer}.", "chunk_id": label, "quote": quote.strip()}
                      for label, text in chunks
                      for quote in [next((s for s in _SENTENCE.findall(text) if question.answer in s), "")] if quote]
            return {"status": "answered" if claims else "insufficient-evidence", "answer": question.answer,
                    "claims": claims[:2]}
        if purpose in ("ground", "regrade"):
            count = len(re.findall(r"^\d+\. Claim:", user, re.M))
            return {"verdicts": [{"n": n, "supported": True, "reason": "quoted"} for n in range(1, count + 1)]}
        if purpose == "naive-query":
            return {"query": question.gold_titles[0]}
        if purpose in ("naive-answer", "oracle-answer"):
            return {"answer": question.answer if question.answer in user else "unknown"}
        raise ValueError(f"scripted benchmark model: unexpected purpose {purpose!r}")

    return reply


def scripted_dispatch(questions: list[Question]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """One responder for many questions: the question whose text the prompt holds (the longest such
    question); a prompt holding none (e.g. a grounding call) gets the first question's reply, which
    does not depend on the question for those purposes."""
    replies = [(" ".join(q.question.split()), scripted_responder(q)) for q in questions]
    replies.sort(key=lambda pair: -len(pair[0]))

    def reply(request: dict[str, Any]) -> dict[str, Any]:
        text = " ".join(" ".join(str(m.get("content", "")) for m in request["messages"]).split())
        chosen = next((responder for question, responder in replies if question in text), replies[-1][1])
        return chosen(request)

    return reply


# --- the baselines ---------------------------------------------------------------------------------
async def _short_answer(infer: Any, config: RuntimeConfig, purpose: str, system: str, user: str,
                        schema: type[BaseModel]) -> dict[str, Any]:
    messages = [{"role": "system", "content": f"Task: {purpose}\n{system}"}, {"role": "user", "content": user}]
    output = await infer.execute(INFER_REASONING_SAMPLE, {
        "provider": config.model.provider, "model": config.model.model, "messages": messages,
        "output_schema": schema, "purpose": purpose})
    return dict(output["output"])


async def run_naive(q: Question, target: WikiTarget, config: RuntimeConfig, infer: Any) -> dict[str, Any]:
    """Model writes one query, the top 3 pages are read, model answers (2 calls)."""
    first = await _short_answer(infer, config, "naive-query",
                                'Write one search query for a wiki search engine that finds pages answering the '
                                'question. Reply with JSON: {"query": str}', f"Question: {q.question}", NaiveQuery)
    query = str(first.get("query") or q.question).strip() or q.question
    hits = await target.search.build_provider().search(query, 3)
    texts = []
    for hit in hits[:3]:
        try:
            page = await read_page(hit.url, policy=target.search.page_policy(target.allowed_origins))
            texts.append(f"{hit.title}: " + " ".join(page.paragraphs)[:1500])
        except DittoError:
            continue
    second = await _short_answer(infer, config, "naive-answer", _ANSWER_RULES,
                                 f"Question: {q.question}\nPages:\n" + ("\n".join(texts) or "(none)"), ShortAnswer)
    return {"answer": str(second.get("answer", "")), "query": query, "hits": len(hits)}


async def run_oracle(q: Question, config: RuntimeConfig, infer: Any) -> dict[str, Any]:
    """The gold paragraphs handed to the model (1 call)."""
    pages = "\n".join(f"{title}: {text}" for title, text in q.gold_paragraphs.items())
    out = await _short_answer(infer, config, "oracle-answer", _ANSWER_RULES,
                              f"Question: {q.question}\nPages:\n{pages}", ShortAnswer)
    return {"answer": str(out.get("answer", ""))}


async def run_baseline(system: str, q: Question, target: WikiTarget, config: RuntimeConfig, infer: Any) -> dict[str, Any]:
    """One scored row of ``naive`` or ``oracle`` on one question (pages read counted at the wiki server)."""
    mark, calls_before, started = target.mark(), len(infer.calls), time.perf_counter()
    try:
        row = await (run_naive(q, target, config, infer) if system == "naive" else run_oracle(q, config, infer))
        row["status"] = "insufficient-evidence" if normalize_answer(row["answer"]) in _NO_ANSWER else "answered"
    except DittoError as exc:
        row = {"status": f"failed: {type(exc).__name__}", "answer": ""}
    made = infer.calls[calls_before:]
    read = {wiki_title(t) or t for t in target.titles_since(mark)} if system == "naive" else set(q.gold_titles)
    row |= {"target": target.name, "system": system, "model": config.model.model, "calls": len(made),
            "prompt_tokens": sum(c.prompt_tokens for c in made), "completion_tokens": sum(c.completion_tokens for c in made),
            "seconds": round(time.perf_counter() - started, 2),
            "gold_pages_read": len(set(q.gold_titles) & read), "both_read": set(q.gold_titles) <= read}
    return score(row, q)


__all__ = ["NaiveQuery", "ShortAnswer", "run_baseline", "run_naive", "run_oracle", "scripted_dispatch",
           "scripted_responder"]
