"""The Web QA report (SPEC §3) and its Markdown rendering."""

from __future__ import annotations


from pydantic import BaseModel, ConfigDict, Field

from ditto_nb.evidence import Chunk
from ditto_nb.evidence.citation import Citation
from ditto_nb.patterns.web_qa.schemas import Status
from ditto_nb.patterns.web_qa.stage_models import ReportHit, WebQaReportJson


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ClaimCheck(_Model):
    """Per-claim verification: exact quotes, grounding review and (optional) cross-check."""

    quotes_verified: bool
    grounded: bool
    grounding_reason: str = ""
    cross_check_passed: bool | None = None
    origins: list[str] = Field(default_factory=list)


class Claim(_Model):
    """One claim of the answer with its citations."""

    claim: str
    citations: list[Citation]
    verification: ClaimCheck


class WithheldClaim(_Model):
    """A claim that failed its checks after the one repair: never published as evidence, shown
    to the analyst with the reasons."""

    claim: str
    quote: str = ""
    reasons: list[str] = Field(default_factory=list)


class RuleTrace(_Model):
    """One answer rule that fired (:class:`ditto_nb.patterns.web_qa.rules.RuleFired`): a rewrite
    (``changed``: the answer text changed from ``before`` to ``after``) or a check's problem (``note``)."""

    rule: str
    phase: str
    round: str = "answer"
    changed: bool = False
    before: str = ""
    after: str = ""
    note: str = ""


class Answer(_Model):
    """The answer: one of the four statuses, its text, claims, withheld claims and the answer
    rules that fired on its drafts, in order."""

    status: Status
    text: str
    claims: list[Claim] = Field(default_factory=list)
    withheld: list[WithheldClaim] = Field(default_factory=list)
    rules: list[RuleTrace] = Field(default_factory=list)


class BudgetUse(_Model):
    """What the run used of its budgets (so an early ``insufficient-evidence`` shows what was left)."""

    model_calls: int = 0
    model_calls_limit: int = 6
    queries: int = 0
    queries_limit: int = 0
    pages: int = 0
    pages_limit: int = 0


class ConflictReport(_Model):
    """Two sources that disagree; both quotes are shown and no winner is picked."""

    topic: str
    sides: list[Citation]


class OmittedChunk(_Model):
    """A chunk of a read page that no model call was shown, and why.

    ``reason``: ``mirror`` (same text as a kept chunk), ``no-match`` (shares no word with the
    question or queries), ``rank-budget`` (below the selection call's BM25 cut), ``not-selected``
    (the selection call did not pick it) or ``answer-budget`` (selected, but below the answer
    call's cut). ``score`` is the BM25 score as text ("" when not ranked).
    """

    chunk_id: str
    reason: str
    score: str = ""


class Selection(_Model):
    """What the selection stage kept, found missing and found conflicting, and what was omitted."""

    selected: list[str]
    missing: list[str] = Field(default_factory=list)
    conflicts: list[ConflictReport] = Field(default_factory=list)
    omitted: list[OmittedChunk] = Field(default_factory=list)


class SearchRecord(_Model):
    """One query's search result (hits are discovery metadata only)."""

    query: str
    ok: bool
    hits: list[ReportHit] = Field(default_factory=list)
    failure: str | None = None


class Failure(_Model):
    """A source that failed (search or page read)."""

    stage: str
    source: str
    failure: str
    error: str = ""


class Omitted(_Model):
    """A discovered URL that was not read, and why (``page-budget``, ``origin-not-allowed``)."""

    url: str
    reason: str


class WebQaReport(_Model):
    """The published Web QA report.

    Attributes:
        task_id: the request id.
        question: the question as asked (normalized whitespace).
        normalized_question: the plan's restatement.
        queries: the query plan.
        searches: per-query results.
        selection: selected chunk ids, missing facets and conflicts.
        evidence: the selected chunks (URL, title, fetched_at, sha256, paragraph index, text).
        answer: status, text and claims with per-claim verification.
        failures: failed sources (visible even when answered).
        omitted_urls: discovered URLs not read (page budget / origin).
        repaired: True when the one repair was used.
        budget: budgets used and their limits (None in reports written before this field).
        generated_at: UTC ISO-8601 time the report was generated.
    """

    task_id: str
    question: str
    normalized_question: str
    queries: list[str]
    searches: list[SearchRecord]
    selection: Selection
    evidence: list[Chunk]
    answer: Answer
    failures: list[Failure] = Field(default_factory=list)
    omitted_urls: list[Omitted] = Field(default_factory=list)
    repaired: bool = False
    budget: BudgetUse | None = None
    generated_at: str


def _cite(citation: Citation) -> str:
    return (
        f'"{citation.quote}" — [{citation.title or citation.final_url}]({citation.final_url}), '
        f"paragraph {citation.paragraph_index} [{citation.start}:{citation.end}], "
        f"retrieved {citation.fetched_at}, sha256 {citation.sha256[:12]}"
    )


def render_markdown(report: WebQaReport) -> str:
    """Render the report as Markdown (the shared form; JSON is the machine form).

    Args:
        report: the report.

    Returns:
        Markdown text ending with a newline.
    """
    lines = [
        f"# {report.question}",
        "",
        f"**Status:** {report.answer.status}",
        "",
        report.answer.text,
        "",
    ]
    if report.answer.claims:
        lines += ["## Claims", ""]
        for n, claim in enumerate(report.answer.claims, 1):
            check = claim.verification
            cross = "" if check.cross_check_passed is None else f", cross-check {'passed' if check.cross_check_passed else 'failed'}"
            lines.append(f"{n}. {claim.claim} (quotes verified: {check.quotes_verified}, grounded: {check.grounded}{cross})")
            lines += [f"   - {_cite(c)}" for c in claim.citations]
        lines.append("")
    if report.answer.withheld:
        lines += ["## Withheld claims (failed the checks; not evidence)", ""]
        lines += [f"- {w.claim} — {'; '.join(w.reasons)}" for w in report.answer.withheld] + [""]
    budget = report.budget
    if budget is not None and report.answer.status == "insufficient-evidence":
        lines += ["## Budget left", "",
                  f"- model calls: {budget.model_calls} of {budget.model_calls_limit} used",
                  f"- queries: {budget.queries} of {budget.queries_limit} used",
                  f"- pages: {budget.pages} of {budget.pages_limit} read", ""]
    if report.selection.conflicts:
        lines += ["## Conflicts (unresolved)", ""]
        for conflict in report.selection.conflicts:
            lines.append(f"- {conflict.topic}")
            lines += [f"   - {_cite(c)}" for c in conflict.sides]
        lines.append("")
    if report.selection.missing:
        lines += ["## Missing", ""] + [f"- {item}" for item in report.selection.missing] + [""]
    lines += ["## Query plan", ""] + [f"- {q}" for q in report.queries] + [""]
    if report.failures:
        lines += ["## Failures", ""] + [f"- {f.stage}: {f.source} — {f.failure}" for f in report.failures] + [""]
    if report.omitted_urls:
        lines += ["## Omitted URLs", ""] + [f"- {o.url} ({o.reason})" for o in report.omitted_urls] + [""]
    lines += [f"_Generated {report.generated_at}; task {report.task_id}._", ""]
    return "\n".join(lines)


def published_report(report: WebQaReportJson) -> WebQaReportJson:
    """The report as published (``report.json``/``report.md``): without ``answer.withheld``, and
    with the answer rules that fired named but without the draft texts they saw (``before``,
    ``note``; ``after`` only for a rewrite of an ``answered`` answer, where it is the answer).

    Withheld claims and unverified drafts never reach the published files (issue 9): they stay in the task's Memory
    (``withheld``, with ``quote_found``/``grounded``/``reason``) and in the report stage's value
    returned by :func:`~ditto_nb.patterns.web_qa.app.run_web_qa`, and are shown by ``ditto-nb show``,
    ``claims_frame`` (status ``rejected``) and the notebooks.
    ``export_json`` writes this form too.
    """
    answer = report["answer"].copy()
    answer.pop("withheld", None)
    published = answer.get("status") == "answered"
    if "rules" not in answer:  # a report written before the rule layer publishes as it was
        return {**report, "answer": answer}
    answer["rules"] = [{**fired, "before": "", "note": "",
                        "after": fired["after"] if published and fired["phase"] == "rewrite" else ""}
                       for fired in answer.get("rules") or []]
    return {**report, "answer": answer}


__all__ = [
    "Answer",
    "BudgetUse",
    "Citation",
    "Claim",
    "ClaimCheck",
    "ConflictReport",
    "Failure",
    "Omitted",
    "SearchRecord",
    "Selection",
    "WebQaReport",
    "WithheldClaim",
    "published_report",
    "render_markdown",
]
