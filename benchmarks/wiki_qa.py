"""Web QA on a wiki, side by side: ditto, a naive baseline and an oracle (``web_qa.py --mediawiki``).

Per question and system: the answer, exact match and "gold contained in the answer" (SQuAD v1.1
normalization; containment is over whole tokens, so gold ``no`` is not found in ``not known``),
wrong-but-answered, insufficient, failed, whether both supporting pages were served to the
system (measured at the wiki server; for the oracle, given by construction), model calls, prompt and completion tokens, seconds.

- ``ditto``: the kit's Web QA (create, open, run, close), request budgets as given.
- ``naive``: the model writes one search query (call 1), the top 3 hits are read, the model
  answers from them in a few words (call 2). No quotes, no checks.
- ``oracle``: the supporting paragraphs are handed to the model, which answers (one call).

For ``ditto`` every published quote is also checked against a fresh read of its page
(``quote exceptions`` counts quotes not found; the target is 0). Rows are appended to a JSONL
file as they complete, so an interrupted run keeps what it measured.
"""

from __future__ import annotations

from ditto_nb.patterns.web_qa.prompts import evidence_lines, purpose_of
import collections

import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import BaseModel, Field

from ditto_nb.errors import DittoError
from ditto_nb.patterns.web_qa import WebQaReport, WebQaRequest, create_task, open_web_qa, run_web_qa
from ditto_nb.runtime import INFER_REASONING_SAMPLE, RuntimeConfig
from ditto_nb.sandbox.mediawiki_files import wiki_title
from ditto_nb.text import normalize_text
from ditto_nb.web import read_page
from wiki_targets import Question, WikiTarget

SYSTEMS = ("ditto", "naive", "oracle")
_NO_ANSWER = {"", "unknown", "insufficient", "insufficient evidence", "not stated", "i dont know", "none", "n a"}
_SENTENCE = re.compile(r"[^.]*\.")


def normalize_answer(text: str) -> str:
    """SQuAD v1.1 normalization: lower-case, no punctuation, no articles a/an/the, single spaces."""
    import string

    text = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    return " ".join(re.sub(r"\b(a|an|the)\b", " ", text).split())


def contains(answer: str, gold: str) -> bool:
    """True when the normalized gold appears in the normalized answer as whole tokens."""
    g, a = normalize_answer(gold), normalize_answer(answer)
    return bool(g) and f" {g} " in f" {a} "


def _titles(names: list[str]) -> set[str]:
    return {wiki_title(name) or name for name in names}


class NaiveQuery(BaseModel):
    """The naive baseline's first call."""

    query: str = Field(description="One search query.")


class ShortAnswer(BaseModel):
    """The naive baseline's and the oracle's answer call."""

    answer: str = Field(description="The answer in a few words, or unknown.")


# --- the scripted stand-in (harness check only) ----------------------------------------------------
def scripted_responder(question: Question) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """Rule-based replies for every purpose (kit stages, naive, oracle): queries are the gold titles,
    answers quote sentences holding the gold answer. It checks the harness, not a model."""

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


# --- the three systems -----------------------------------------------------------------------------
async def _short_answer(infer: Any, config: RuntimeConfig, purpose: str, system: str, user: str,
                        schema: type[BaseModel]) -> dict[str, Any]:
    messages = [{"role": "system", "content": f"Task: {purpose}\n{system}"}, {"role": "user", "content": user}]
    output = await infer.execute(INFER_REASONING_SAMPLE, {
        "provider": config.model.provider, "model": config.model.model, "messages": messages,
        "output_schema": schema, "purpose": purpose})
    return dict(output["output"])


async def run_ditto(q: Question, target: WikiTarget, config: RuntimeConfig, directory: Path,
                    budgets: dict[str, int]) -> dict[str, Any]:
    """One Web QA task; returns the row fields (status, answer, calls, tokens, quote exceptions)."""
    request = WebQaRequest.parse({"id": f"bench-{q.id}-{time.monotonic_ns()}", "tenant": "bench",
                                  "principal": "bench", "question": q.question,
                                  "allowed_origins": list(target.allowed_origins), **budgets})
    await create_task(directory, request, target.search)
    app = await open_web_qa(directory, request, config, target.search)
    row: dict[str, Any] = {}
    try:
        model = {"provider": config.model.provider, "model": config.model.model}
        try:
            report = await run_web_qa(app.runtime, {"request": request, "model": model})
            assert isinstance(report, WebQaReport)
            row |= {"status": report.answer.status, "answer": report.answer.text,
                    "quote_exceptions": await _quote_exceptions(report, target)}
        except DittoError as exc:
            row |= {"status": f"failed: {type(exc).__name__}", "answer": "", "quote_exceptions": 0}
        calls = list(app.infer.calls)
    finally:
        await app.close()
    return row | {"calls": len(calls), "prompt_tokens": sum(c.prompt_tokens for c in calls),
                  "completion_tokens": sum(c.completion_tokens for c in calls),
                  "by_purpose": [[c.purpose or "?", c.prompt_tokens, c.completion_tokens, round(c.seconds, 2)]
                                 for c in calls]}


async def _quote_exceptions(report: WebQaReport, target: WikiTarget) -> int:
    """Published quotes not found on a fresh read of their page."""
    missing = 0
    policy = target.search.page_policy(target.allowed_origins)
    for claim in report.answer.claims:
        for citation in claim.citations:
            try:
                page = await read_page(citation.final_url, policy=policy)
                text = normalize_text(" ".join(page.paragraphs))
            except DittoError:
                text = ""
            missing += normalize_text(citation.quote) not in text
    return missing


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
    second = await _short_answer(infer, config, "naive-answer",
                                 'Answer the question in a few words using the pages. If they do not say, answer '
                                 '"unknown". Reply with JSON: {"answer": str}',
                                 f"Question: {q.question}\nPages:\n" + ("\n".join(texts) or "(none)"), ShortAnswer)
    return {"answer": str(second.get("answer", "")), "query": query, "hits": len(hits)}


async def run_oracle(q: Question, config: RuntimeConfig, infer: Any) -> dict[str, Any]:
    """The gold paragraphs handed to the model (1 call)."""
    pages = "\n".join(f"{title}: {text}" for title, text in q.gold_paragraphs.items())
    out = await _short_answer(infer, config, "oracle-answer",
                              'Answer the question in a few words using the pages. If they do not say, answer '
                              '"unknown". Reply with JSON: {"answer": str}',
                              f"Question: {q.question}\nPages:\n{pages}", ShortAnswer)
    return {"answer": str(out.get("answer", ""))}


async def run_question(q: Question, target: WikiTarget, config: RuntimeConfig, infer: Any, directory: Path,
                       budgets: dict[str, int], systems: tuple[str, ...] = SYSTEMS) -> list[dict[str, Any]]:
    """Run the systems (default all three) on one question; one row per system."""
    rows = []
    for system in systems:
        mark, calls_before, started = target.mark(), len(infer.calls), time.perf_counter()
        try:
            if system == "ditto":
                row = await run_ditto(q, target, config, directory / q.id, budgets)
            else:
                row = await (run_naive(q, target, config, infer) if system == "naive" else run_oracle(q, config, infer))
                made = infer.calls[calls_before:]
                row |= {"calls": len(made), "prompt_tokens": sum(c.prompt_tokens for c in made),
                        "completion_tokens": sum(c.completion_tokens for c in made)}
                no_answer = normalize_answer(row["answer"]) in _NO_ANSWER
                row["status"] = "insufficient-evidence" if no_answer else "answered"
        except DittoError as exc:
            row = {"status": f"failed: {type(exc).__name__}", "answer": "", "calls": len(infer.calls) - calls_before,
                   "prompt_tokens": 0, "completion_tokens": 0}
        read = _titles(target.titles_since(mark)) if system != "oracle" else set(q.gold_titles)
        answer = row["answer"] if row["status"] == "answered" else ""
        rows.append(row | {
            "target": target.name, "system": system, "id": q.id, "kind": q.kind, "gold": q.answer,
            "seconds": round(time.perf_counter() - started, 2),
            "em": normalize_answer(answer) == normalize_answer(q.answer) if answer else False,
            "contained": contains(answer, q.answer),
            "gold_pages_read": len(set(q.gold_titles) & read), "both_read": set(q.gold_titles) <= read,
        })
    return rows


def by_purpose(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Ditto's model calls per purpose (plan, select, answer, ground, repair, regrade): calls per
    question, mean prompt / completion tokens per call and mean seconds per call."""
    calls = [(r["target"], *c) for r in rows if r.get("system") == "ditto" for c in r.get("by_purpose") or []]
    if not calls:
        return pd.DataFrame()
    frame = pd.DataFrame(calls, columns=["target", "purpose", "prompt", "completion", "seconds"])
    questions = collections.Counter(r["target"] for r in rows if r.get("system") == "ditto")
    out = frame.groupby(["target", "purpose"], sort=False).agg(
        calls=("prompt", "size"), prompt_tok=("prompt", "mean"), completion_tok=("completion", "mean"),
        s_per_call=("seconds", "mean"), s_total=("seconds", "sum")).reset_index()
    out["calls / q"] = [round(c / questions[t], 2) for t, c in zip(out["target"], out["calls"])]
    out["s / q"] = [round(s / questions[t], 1) for t, s in zip(out["target"], out["s_total"])]
    return out.drop(columns=["s_total"]).round(1)


def summarize(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """One summary row per (target, system, kind) plus the 'all' kind."""
    frame = pd.DataFrame(rows)
    frame = pd.concat([frame, frame.assign(kind="all")])
    out = []
    for (target, system, kind), group in frame.groupby(["target", "system", "kind"], sort=False):
        status = group["status"].astype(str)
        answered = status == "answered"
        out.append({
            "target": target, "system": system, "kind": kind, "questions": len(group),
            "correct (EM)": int(group["em"].sum()), "correct (contained)": int(group["contained"].sum()),
            "wrong but answered": int((answered & ~group["contained"]).sum()),
            "insufficient": int((status == "insufficient-evidence").sum()),
            "failed": int(status.str.startswith("failed").sum()),
            "both pages read": int(group["both_read"].sum()),
            "calls / q": round(group["calls"].mean(), 2), "max calls": int(group["calls"].max()),
            "prompt tok / q": round(group["prompt_tokens"].mean()), "completion tok / q": round(group["completion_tokens"].mean()),
            "s / q": round(group["seconds"].mean(), 1),
            "quote exceptions": int(group.get("quote_exceptions", pd.Series(dtype=float)).fillna(0).sum()),
        })
    return pd.DataFrame(out)


async def wiki_benchmark(
    target_names: list[str], questions: list[Question], sources: list[Path], model_profile: str,
    redis_url: str | None, root: Path, folder: Path, budgets: dict[str, int], out: Path,
    systems: tuple[str, ...] = SYSTEMS,
) -> dict[str, pd.DataFrame]:
    """Run every question on every target with the three systems; return the per-question and summary tables.

    Args:
        target_names: ``mediawiki`` and/or ``sandbox-and``.
        questions: the questions (see :func:`wiki_targets.load_questions`).
        sources: HotpotQA files whose context paragraphs make up the wiki.
        model_profile: ``scripted`` (harness check) or a local profile (``local``, ``local-small``).
        redis_url: Redis for the Context Worker.
        root: scratch folder (task folders, sandbox index).
        folder: the MediaWiki's output folder.
        budgets: Web QA request budgets (``max_queries``, ``max_pages``).
        out: JSONL file the rows are appended to as they complete.
        systems: which of ``ditto``, ``naive``, ``oracle`` to run (all three for the README table).
    """
    import contextlib
    import os

    from ditto_nb.runtime import ModelSelection, load_runtime_config
    from ditto_nb.testing import ScriptedModel, scripted_runtime_config
    from ditto_nb.workers import create_infer_worker
    from wiki_targets import open_mediawiki, open_sandbox_and, wiki_pages

    pages = wiki_pages(sources)
    rows: list[dict[str, Any]] = []
    with contextlib.ExitStack() as stack:
        targets = []
        for name in target_names:
            target = open_mediawiki(folder, pages) if name == "mediawiki" else open_sandbox_and(pages, root / "sandbox")
            stack.callback(target.close)
            targets.append(target)
        scripted: ScriptedModel | None = None
        if model_profile == "scripted":
            scripted = stack.enter_context(ScriptedModel())
            config = scripted_runtime_config(scripted, redis_url=redis_url)
            infer = create_infer_worker(config, os.environ)
        else:
            from ditto_nb.local_model import ensure_local_provider

            base = load_runtime_config(os.environ)
            config = base.model_copy(update={
                "model": ModelSelection(provider=model_profile, model=base.providers[model_profile].model or model_profile),
                "context": base.context.model_copy(update={"redis_url": redis_url}),
            })
            infer = create_infer_worker(config, os.environ, {model_profile: ensure_local_provider(config, model_profile)})
        try:
            for target in targets:
                for n, q in enumerate(questions, start=1):
                    if scripted is not None:
                        scripted.responder = scripted_responder(q)
                    done = await run_question(q, target, config, infer, root / target.name, budgets, systems)
                    append_rows(out, done)
                    rows += done
                    shown = "  ".join(f"{r['system']}: {r['status']} {'OK' if r['contained'] else '--'} {r['seconds']}s"
                                      for r in done)
                    print(f"[{target.name} {n}/{len(questions)}] {q.kind:10} {shown}", flush=True)
        finally:
            close = getattr(infer, "close", None)
            if close is not None:
                await close()
    frame = pd.DataFrame(rows)
    columns = ["target", "system", "id", "kind", "status", "contained", "em", "both_read", "calls",
               "prompt_tokens", "completion_tokens", "seconds", "gold", "answer"]
    notes = "; ".join(f"{t.name}: {t.note}" for t in targets)
    return {
        f"(w1) per question, model {model_profile}": frame[columns].assign(answer=frame["answer"].str.slice(0, 60)),
        f"(w2) summary, model {model_profile} ({notes}); rows in {out}": summarize(rows),
        f"(w3) ditto's model calls per purpose, model {model_profile}": by_purpose(rows),
    }


def append_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    """Append rows to a JSONL file (one object a line)."""
    with path.open("a", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")


__all__ = ["SYSTEMS", "append_rows", "contains", "normalize_answer", "run_question", "scripted_responder", "summarize",
           "wiki_benchmark"]
