"""What a research report states once its findings are judged: coverage recomputed from the
published conclusions and the summary composed from them (pure)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ditto_nb.patterns.common.report_records import ComparedAnswer, ConclusionItem, CoverageItem, WithheldFinding


def published_coverage(
    coverage: Sequence[CoverageItem], conclusions: Sequence[ConclusionItem],
    withheld: Sequence[WithheldFinding],
) -> list[CoverageItem]:
    """Coverage consistent with the report: ``covered`` only when a published conclusion cites
    evidence for the sub-question (a finding counts for the sub-question its ``index`` names; one
    naming no planned sub-question counts where the row lists its evidence id); otherwise
    ``gap``. ``conflict`` rows stay (both sides are quoted in the report).

    Args:
        coverage: the last assessment's rows.
        conclusions: the published conclusions.
        withheld: the withheld findings (named in the gap when they were the row's only ones).

    Returns:
        New rows (same keys).
    """
    indexes = {int(row["index"]) for row in coverage}

    def counts(c: ConclusionItem | WithheldFinding, row: CoverageItem) -> bool:
        # A finding counts for the sub-question it names; one naming none counts by evidence id.
        index = int(c.get("index", 0) or 0)
        return index == row["index"] if index in indexes else str(c["evidence_id"]) in row["evidence_ids"]

    rows: list[CoverageItem] = []
    for row in coverage:
        new = row.copy()
        if row["status"] != "conflict":
            cites = [c for c in conclusions if counts(c, row)]
            if cites:
                cited = [str(c["evidence_id"]) for c in cites]
                new["status"], new["gap"], new["next_queries"] = "covered", "", []
                new["evidence_ids"] = list(dict.fromkeys([*cited, *row["evidence_ids"]]))
            else:
                lost = [w for w in withheld if counts(w, row)]
                gap = (f"its finding was withheld: {'; '.join(lost[0]['reasons'])}" if lost
                       else row.get("gap") or "no published conclusion supports it")
                new["status"], new["gap"] = "gap", gap
        rows.append(new)
    return rows


def summary_of(kept: Sequence[ConclusionItem], unknowns: Sequence[str], fixed: str = "",
               answered: int = 0, compared: ComparedAnswer | None = None, compared_note: str = "") -> str:
    """The report's summary, composed by code from what was published (never the model's prose).

    A small model's summary restates withheld findings as fact (measured: "Corliss Archer ... holds
    the post of Lord High Treasurer" beside a withheld finding), so the summary is the published
    findings' statements, then what stays unknown. The topic's answer comes first, quoted, when
    the coverage call named a finding for it, or a chain of two findings, each quoted
    (:mod:`ditto_nb.patterns.deep_research.answers`); otherwise the summary says no finding was
    judged to answer the topic itself. A comparison topic answered side by side
    (:mod:`ditto_nb.patterns.deep_research.compared`) leads with that answer and each side's value
    and quote, and every finding follows it.

    Args:
        kept: the published findings (``statement``, ``quote``), the topic's answer first when
            ``answered``.
        unknowns: the unknowns of the report.
        fixed: a fixed text for reports with no evidence at all (clarification, nothing found).
        answered: how many of the first findings answer the topic together (0: none; 2: a chain).
        compared: the comparison topic's answer side by side, or None.
        compared_note: why a comparison topic has no such answer ("" when it has one).

    Returns:
        ``"Answer: … (quote: "…"). Also established: … Not established: …"``, or ``fixed`` when
        given and nothing was kept.
    """
    if fixed and not kept:
        return fixed
    parts: list[str] = []
    rest = list(kept)
    if compared is not None:  # the comparison's answer leads; every finding follows it
        sides = "; ".join(f"{s['side']}: {s['value'].strip()} (quote: \"{s['quote'].strip()}\")"
                          for s in compared["sides"])
        parts.append(f"Answer: {full_sentence(compared['answer'])} Compared side by side: {full_sentence(sides)}")
    else:
        if compared_note:
            parts.append(f"The comparison is not decided: {full_sentence(compared_note)}")
        if answered and rest:
            lead, rest = rest[:answered], rest[answered:]
            quotes = "; ".join(f"\"{str(c['quote']).strip()}\"" for c in lead)
            parts.append(f"Answer: {' '.join(full_sentence(str(c['statement'])) for c in lead)} (quote: {quotes})")
        elif kept:
            parts.append("No published finding was judged to answer the topic itself.")
    led = compared is not None or (answered > 0 and bool(kept))
    known = " ".join(full_sentence(s) for s in (str(c["statement"]) for c in rest) if s.strip())
    if known:
        parts.append(f"{'Also established' if led else 'Established'}: {known}")
    elif not kept and compared is None:
        parts.append("Nothing could be established from the pages read.")
    if unknowns:
        parts.append(f"Not established: {'; '.join(u.split(':')[0] for u in unknowns)}.")
    return " ".join(parts)


def distinct(kept: Sequence[ConclusionItem]) -> list[ConclusionItem]:
    """One published finding per fact: a finding is dropped when another one quotes the same
    sentence and states every word it states (measured: a repaired draft published "… under the
    name K. A. …", cut where the shown chunk was cut, beside the same statement without the mark).

    Args:
        kept: the findings that passed every check, in order.

    Returns:
        The findings in order, without those another finding restates (of two that state the
        same words, the first stays).
    """
    words = [set(re.findall(r"\w+", str(c["statement"]).lower())) for c in kept]
    out: list[ConclusionItem] = []
    for i, c in enumerate(kept):
        same = [j for j, other in enumerate(kept)
                if j != i and str(other["quote"]).strip() == str(c["quote"]).strip()
                and words[i] <= words[j] and (words[i] < words[j] or j < i)]
        if not same:
            out.append(c)
    return out


def full_sentence(text: str) -> str:
    """``text`` stripped, ending with a full stop unless it ends with one already."""
    s = text.strip()
    return s if s.endswith((".", "!", "?")) else f"{s}."


__all__ = ["distinct", "full_sentence", "published_coverage", "summary_of"]
