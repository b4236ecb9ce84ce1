"""Deep research over a wiki built from HotpotQA (``deep_research.py --mediawiki``).

Each question becomes a research topic (request defaults: the kit's own budgets). Per topic:
stop reason, rounds, model calls, seconds, conclusions published / withheld, the share of
published conclusions that pass a lexical support check against their own quote, whether the
gold answer appears in the summary (SQuAD-normalized, whole tokens), and the sub-questions marked
``covered`` while also listed as unknown (a contradiction; the target is 0).

The lexical support check is ``ditto_nb.evidence.support.check_support`` (:func:`lexical_support`
below), the check the kit itself enforces before publishing, so the benchmark measures what the
kit enforces.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from ditto_nb.errors import DittoError
from ditto_nb.evidence.support import check_support
from ditto_nb.patterns.common.retrieval import question_entities
from ditto_nb.patterns.deep_research import ResearchReport, ResearchRequest, open_research, run_research
from ditto_nb.patterns.deep_research.answers import states_asked_kind
from ditto_nb.patterns.tasks import create_task
from ditto_nb.runtime.config import RuntimeConfig
from hotpot_eval import contains, is_yes_no, normalize_answer
from wiki_rows import append_rows, read_rows
from wiki_targets import Question, WikiTarget

_WORDS = re.compile(r"[a-z0-9]+")
_FUNCTION = frozenset(
    "a an and are as at be by did do does for from has have how in into is it its of on or the their there this "
    "to was were what when where which who whom whose why with".split())


def _content(text: str) -> set[str]:
    return {w for w in _WORDS.findall(text.lower()) if w not in _FUNCTION}


def _ask(question: str) -> tuple[frozenset[str], set[str]]:
    """A sub-question's named entities (lower case) and its other content words."""
    names = frozenset(n.lower() for n in question_entities(question))
    return names, _content(question) - {w for n in names for w in _content(n)}


def duplicate_pairs(sub_questions: list[str]) -> int:
    """Pairs of sub-questions that ask the same thing, by the benchmark's own measure: the same
    named entities and other content words overlapping by half or more (Jaccard)."""
    asks = [_ask(s) for s in sub_questions]
    return sum(1 for i in range(len(asks)) for j in range(i + 1, len(asks))
               if asks[i][0] == asks[j][0] and asks[i][1] and asks[j][1]
               and len(asks[i][1] & asks[j][1]) / len(asks[i][1] | asks[j][1]) >= 0.5)


def coverage_contradictions(report: ResearchReport) -> int:
    """Coverage rows a published conclusion contradicts, by a crude automated check: a ``gap`` row
    whose named entities (at least one) all appear in one published statement together with half
    of its other content words and the kind of answer it asks when a sentence shows it by its form
    (:func:`~ditto_nb.patterns.deep_research.answers.states_asked_kind`: a year for "When", a
    country for "Which country", a number for "How many"); a ``covered`` row no published statement
    shares a word with.

    The asked kind was added on 2026-12-07: over every stored research row it drops one flagged
    pair, "In which country was the album … released?" beside "Poison released their album … in
    2000" (no country; not a contradiction by hand), and keeps the 15 others."""
    statements = [c.statement for c in report.conclusions]
    bad = 0
    for row in report.coverage:
        question = str(row.get("question", ""))
        names = question_entities(question)
        rest = _content(question) - {w for n in names for w in _content(n)}
        if row.get("status") == "gap" and names:
            bad += any(all(n.lower() in s.lower() for n in names)
                       and len(rest & _content(s)) * 2 >= len(rest) and states_asked_kind(question, s)
                       for s in statements)
        elif row.get("status") == "covered":
            bad += not any(_content(question) & _content(s) for s in statements)
    return bad


_ANSWER_LINE = re.compile(r"Answer: (.*?)(?: Compared side by side:| \(quote:|$)", re.S)


def answer_line(summary: str) -> str:
    """What the summary gives as the topic's answer: the text after ``Answer:`` up to its quote or
    its sides ("" when the summary has no ``Answer:``)."""
    found = _ANSWER_LINE.search(summary)
    return found.group(1).strip() if found else ""


def gold_in_answer(summary: str, gold: str) -> bool:
    """The strict measure: the gold in the summary's answer line (a comparison's summary names both
    sides, so the gold side is in it whichever side it answers)."""
    return contains(answer_line(summary), gold)


def unfollowed_lead(report: ResearchReport, reached: bool) -> bool:
    """``no-progress`` with rounds left, the topic's answer not reached, and a published statement
    naming an entity the topic does not name and no round searched for."""
    if (reached or report.stop_reason != "no-progress"
            or len(report.rounds) >= report.budgets["rounds"]["limit"]):
        return False
    asked = " ".join(q for r in report.rounds for q in r.get("queries") or []).lower()
    topic = report.question.lower()
    return any(name.lower() not in topic and name.lower() not in asked
               for c in report.conclusions for name in question_entities(c.statement))


def lexical_support(report: ResearchReport, conclusion: Any) -> bool:
    """Whether a published conclusion passes the kit's own support check
    (:func:`ditto_nb.evidence.support.check_support`: numbers, dates and names in the quote's
    sentence or page title, and most content words), over the cited chunk's paragraph."""
    chunk: Any = next((c for c in report.cited_chunks if c.get("id") == conclusion.evidence_id), {})
    return check_support(conclusion.statement, conclusion.quote, paragraph=str(chunk.get("text", "")),
                         title=conclusion.title).ok


def scripted_research(question: Question, fallback: Callable[[dict[str, Any]], dict[str, Any]]
                      ) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The benchmark's rule-based research model with the gold titles as the plan's queries."""

    def reply(request: dict[str, Any]) -> dict[str, Any]:
        purpose = request["messages"][0]["content"].splitlines()[0].removeprefix("Task: ")
        if purpose == "research-plan":
            return {"clear": True, "goal": question.question, "sub_questions": [question.question],
                    "queries": list(question.gold_titles), "clarification_questions": []}
        return fallback(request)

    return reply


async def research_topic(q: Question, target: WikiTarget, config: RuntimeConfig, model: dict[str, str],
                         directory: Path) -> dict[str, Any]:
    """Run one topic; return its row."""
    request = {"id": f"bench-{q.id}", "tenant": "bench", "principal": "bench", "question": q.question,
               "allowed_origins": list(target.allowed_origins)}
    parsed = await create_task(directory, ResearchRequest.parse(request), target.search)
    mark, started = target.mark(), time.perf_counter()
    app = await open_research(directory, parsed, config, target.search)
    row: dict[str, Any] = {"id": q.id, "kind": q.kind, "gold": q.answer}
    try:
        report = await run_research(app.runtime, {"request": parsed, "model": model})
        assert isinstance(report, ResearchReport)
        supported = [lexical_support(report, c) for c in report.conclusions]
        covered = {int(item.get("index", 0)) for item in report.coverage if item.get("status") == "covered"}
        unknown_text = " ".join(report.unknowns).lower()
        contradictions = sum(1 for i in covered if 0 < i <= len(report.sub_questions)
                             and report.sub_questions[i - 1].lower()[:40] in unknown_text)
        withheld = getattr(report, "withheld", None)
        if is_yes_no(q.answer):  # only a derived yes/no answers a yes/no topic ("No published …" is not "no")
            reached = report.compared is not None and normalize_answer(report.compared["answer"]) == normalize_answer(q.answer)
        else:
            reached = contains(report.summary, q.answer) or normalize_answer(q.answer) in normalize_answer(
                " ".join(c.statement for c in report.conclusions))
        row |= {"stop_reason": report.stop_reason, "rounds": len(report.rounds),
                "calls": report.budgets.get("model", {}).get("used"),
                "searches": report.budgets.get("search", {}).get("used"),
                "reads": report.budgets.get("read", {}).get("used"),
                "published": len(report.conclusions), "withheld": len(withheld) if withheld is not None else None,
                "supported": sum(supported), "covered_and_unknown": contradictions,
                "gold_in_summary": reached,
                "gold_in_answer": reached if is_yes_no(q.answer) else gold_in_answer(report.summary, q.answer),
                "coverage_contradictions": coverage_contradictions(report),
                "duplicate_subs": duplicate_pairs(list(report.sub_questions)),
                "unfollowed_lead": unfollowed_lead(report, bool(reached)),
                # for reading the run by hand (left out of the printed tables)
                "compared": report.compared["answer"] if report.compared else None,
                "report": {"sub_questions": list(report.sub_questions), "summary": report.summary,
                           "coverage": [{"question": r.get("question"), "status": r.get("status"), "gap": r.get("gap"),
                                         "reason": r.get("reason", "")}
                                        for r in report.coverage],
                           "review": {"repaired": report.review.get("repaired"), "ok": report.review.get("ok"),
                                      "from_repair": report.review.get("from_repair")},
                           "conclusions": [{"statement": c.statement, "quote": c.quote, "title": c.title}
                                           for c in report.conclusions],
                           "withheld": [{"statement": w.get("statement"), "reasons": w.get("reasons")}
                                        for w in (withheld or [])],
                           "rounds": [{"queries": r.get("queries"), "reads": r.get("reads"),
                                       "new_evidence": r.get("new_evidence"), "assessed": r.get("assessed"),
                                       "next_queries": r.get("next_queries"), "stop_reason": r.get("stop_reason")}
                                      for r in report.rounds],
                           "budgets": report.budgets}}
    except DittoError as exc:
        row |= {"stop_reason": f"failed: {type(exc).__name__}", "published": 0, "supported": 0}
    finally:
        # [purpose, prompt tokens, completion tokens, seconds] per model call made in this run
        row["by_purpose"] = [[c.purpose or "?", c.prompt_tokens, c.completion_tokens, round(c.seconds, 3)]
                             for c in app.infer.calls]
        await app.close()
    read = set(target.titles_since(mark))
    row |= {"seconds": round(time.perf_counter() - started, 1), "pages_read": len(read),
            "gold_pages_read": len(set(q.gold_titles) & read)}
    return row


async def research_benchmark(target: WikiTarget, questions: list[Question], config: RuntimeConfig,
                             model: dict[str, str], root: Path, out: Path,
                             responder: Callable[[Question], None] | None = None) -> dict[str, pd.DataFrame]:
    """Run every topic on ``target``; return the per-topic and summary tables (rows also appended to
    ``out``; a topic whose row ``out`` already holds is not run again, so an interrupted run resumes)."""
    done = {str(row.get("id")): row for row in (read_rows(out) if out.exists() else [])}
    rows = []
    for n, q in enumerate(questions, start=1):
        if q.id in done:
            rows.append(done[q.id])
            continue
        if responder is not None:
            responder(q)
        row = await research_topic(q, target, config, model, root / f"topic-{n}")
        append_rows(out, [row])
        rows.append(row)
        print(f"[{target.name} {n}/{len(questions)}] {row['stop_reason']} published {row.get('published')} "
              f"supported {row.get('supported')} {row['seconds']} s", flush=True)
    frame = pd.DataFrame([{k: v for k, v in row.items() if k != "report"} for row in rows])
    published = int(frame["published"].fillna(0).sum())
    summary = pd.DataFrame([{
        "topics": len(frame), "read pages and published": int(((frame["pages_read"] > 0) & (frame["published"] > 0)).sum()),
        "conclusions published": published,
        "withheld": frame["withheld"].sum() if "withheld" in frame and frame["withheld"].notna().any() else "n/a",
        "lexically supported": f"{int(frame['supported'].fillna(0).sum())} of {published}",
        "covered-vs-unknown contradictions": int(frame.get("covered_and_unknown", pd.Series(dtype=float)).fillna(0).sum()),
        "gold in summary": int(frame.get("gold_in_summary", pd.Series(dtype=bool)).fillna(False).astype(bool).sum()),
        "gold in the answer line": int(frame.get("gold_in_answer", pd.Series(dtype=bool)).fillna(False).astype(bool).sum()),
        "coverage contradictions (automated)": int(frame.get("coverage_contradictions", pd.Series(dtype=float)).fillna(0).sum()),
        "duplicate sub-questions": int(frame.get("duplicate_subs", pd.Series(dtype=float)).fillna(0).sum()),
        "no-progress with an unfollowed lead": int(frame.get("unfollowed_lead", pd.Series(dtype=bool)).fillna(False).astype(bool).sum()),
        "s / topic": round(frame["seconds"].mean(), 1),
        "stop reasons": frame["stop_reason"].value_counts().to_dict(),
    }])
    tables = {"per topic": frame, f"summary ({target.note}); rows in {out}": summary}
    if frame["kind"].nunique() > 1:
        tables["per kind (answer reached = gold in the summary or a conclusion)"] = frame.groupby("kind").agg(
            topics=("id", "count"), answer_reached=("gold_in_summary", "sum"), in_answer_line=("gold_in_answer", "sum"),
            published=("published", "sum"), seconds=("seconds", "mean")).reset_index()
    return tables


__all__ = ["answer_line", "gold_in_answer", "lexical_support", "research_benchmark", "research_topic", "scripted_research"]
