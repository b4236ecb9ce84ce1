"""Coverage decided from the published findings: the report's ``coverage`` call (issue 32).

After the report's findings are judged (quotes, support, review), one model call reads the
topic (question 0), the sub-questions (1..n) and the published findings' statements (1..m) and
names, for each question, the finding that answers it (0 for none) with a short reason. Code keeps
it honest:

- a sub-question is ``covered`` only when the call names a published finding for it and that
  finding can answer it (:func:`answers_question` over its statement, quote and page title: one
  of the sub-question's content words other than its names);
  the row's ``evidence_ids`` are that finding's and its ``reason`` is the call's;
- otherwise it is a ``gap`` whose reason says why (no finding answers it; the named finding does
  not address it; its own finding was withheld, with the withholding reason);
- ``conflict`` rows stay (both sides are quoted in the report);
- the finding named for the topic leads the report (:func:`ditto_nb.patterns.deep_research.published.summary_of`)
  when it can answer the topic by the same guard.

Before this call, coverage counted a finding for the sub-question number the drafter gave it;
hand-read on 15 unseen topics, about 6 of 14 rows were then wrong (a sub-question ``covered`` by a
finding about something else, a ``gap`` beside a finding that answers it).

With no published finding, no call is made. When the model budget is spent (a task planned with
older budgets), coverage falls back to the drafter's numbers
(:func:`~ditto_nb.patterns.deep_research.published.published_coverage`) and says so in each reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ditto_nb.errors import BudgetExceeded
from ditto_nb.evidence.rank import terms
from ditto_nb.patterns.common.report_records import ConclusionItem, CoverageItem, WithheldFinding
from ditto_nb.patterns.common.retrieval import question_entities
from ditto_nb.patterns.deep_research import prompts, schemas
from ditto_nb.patterns.deep_research.coverage import addresses
from ditto_nb.patterns.deep_research.published import published_coverage
from ditto_nb.patterns.deep_research.run_state import Ask, Plan

NO_CALL_LEFT = "decided by the drafter's sub-question numbers (no model call left for the coverage call)"
"""The reason on every row when the coverage call could not be made."""


@dataclass(frozen=True)
class Answers:
    """What the coverage call decided.

    Attributes:
        coverage: one row per sub-question (``index``, ``question``, ``status``, ``evidence_ids``,
            ``gap``, ``next_queries``, ``reason``).
        topic: the 0-based position in the published findings of the one that answers the topic,
            or None.
    """

    coverage: list[CoverageItem]
    topic: int | None


def _text(c: ConclusionItem) -> str:
    return f"{c.get('title', '')} {c['statement']} {c['quote']}"


def answers_question(question: str, c: ConclusionItem) -> bool:
    """Whether finding ``c`` can answer ``question`` (the guard on the coverage call's pick).

    It must share one of the question's content words other than its names (by five-letter
    prefix of :func:`~ditto_nb.evidence.rank.terms`, as
    :func:`~ditto_nb.patterns.deep_research.coverage.addresses` matches them); a question with no
    other content word needs its names. A two-hop answer need not name the first entity
    ("Adriana Trigiani … film director … based in Greenwich Village, New York City" answers "What
    city does the director of 'Big Stone Gap' work in?").
    """
    text = _text(c)
    named = {w for name in question_entities(question) for w in terms(name)}
    wanted = {w[:5] for w in terms(question) if w not in named}
    if not wanted:
        return addresses(question, [text])
    have = set(terms(text))
    return any(t.startswith(w) for w in wanted for t in have)


def decide_coverage(ask: Ask, topic: str, coverage: Sequence[CoverageItem], kept: Sequence[ConclusionItem],
                    withheld: Sequence[WithheldFinding]) -> Plan[Answers]:
    """Coverage and the topic's answer from the published findings (see the module docstring).

    Args:
        ask: the budgeted model call (ledger key ``model:coverage``, purpose ``coverage``).
        topic: the research topic.
        coverage: the last assessment's rows (their order and ``conflict`` statuses are kept).
        kept: the published findings (``statement``, ``quote``, ``evidence_id``, ``title``).
        withheld: the withheld findings (named in a gap when one was drafted for the row).

    Returns:
        The :class:`Answers`.

    Raises:
        Model and worker errors of the call, unchanged (a spent model budget is not an error: the
        drafter's numbers decide, see the module docstring).
    """
    if not kept or not coverage:
        return Answers(_with_reasons(published_coverage(coverage, kept, withheld), ""), None)
    subs = [str(row["question"]) for row in coverage]
    try:
        out = yield from ask("model:coverage", "coverage",
                             prompts.coverage_messages(topic, subs, [str(c["statement"]) for c in kept]),
                             schemas.coverage_output(len(subs) + 1))
    except BudgetExceeded:
        return Answers(_with_reasons(published_coverage(coverage, kept, withheld), NO_CALL_LEFT), None)
    picks: dict[int, tuple[int, str]] = {}
    for item in out.items:
        picks.setdefault(item.q, (item.finding, item.reason.strip()))
    rows = [_row(row, picks.get(int(row["index"]), (0, "")), kept, withheld) for row in coverage]
    n, _why = picks.get(0, (0, ""))
    answer = n - 1 if 1 <= n <= len(kept) and answers_question(topic, kept[n - 1]) else None
    return Answers(rows, answer)


def _row(row: CoverageItem, pick: tuple[int, str], kept: Sequence[ConclusionItem],
         withheld: Sequence[WithheldFinding]) -> CoverageItem:
    """One sub-question's row from the call's pick ``(finding number, reason)``."""
    new = row.copy()
    if row["status"] == "conflict":
        new["reason"] = "sources disagree; both sides are quoted in the report"
        return new
    n, why = pick
    question = str(row["question"])
    if 1 <= n <= len(kept) and answers_question(question, kept[n - 1]):
        c = kept[n - 1]
        new["status"], new["gap"], new["next_queries"] = "covered", "", []
        new["evidence_ids"] = [str(c["evidence_id"])]
        new["reason"] = f"finding {n} answers it" + (f": {why}" if why else "")
        return new
    lost = [w for w in withheld if int(w.get("index", 0) or 0) == row["index"]]
    if 1 <= n <= len(kept):
        reason = f"finding {n} was named for it but does not name what it asks"
    elif lost:
        reason = f"its finding was withheld: {'; '.join(lost[0]['reasons'])}"
    else:
        reason = "no published finding answers it" + (f": {why}" if why else "")
    new["status"], new["gap"], new["reason"] = "gap", reason, reason
    return new


def _with_reasons(rows: Sequence[CoverageItem], note: str) -> list[CoverageItem]:
    """Rows of :func:`published_coverage` with a ``reason`` (``note`` added when given)."""
    out: list[CoverageItem] = []
    for row in rows:
        new = row.copy()
        base = ("sources disagree; both sides are quoted in the report" if row["status"] == "conflict"
                else "a published finding was drafted for it" if row["status"] == "covered"
                else str(row.get("gap") or "no published finding answers it"))
        new["reason"] = f"{base} ({note})" if note else base
        out.append(new)
    return out


__all__ = ["NO_CALL_LEFT", "Answers", "answers_question", "decide_coverage"]
