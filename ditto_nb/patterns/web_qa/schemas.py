"""Output schemas of the Web QA model calls (pydantic; the JSON schema is a local model's grammar).

Schemas are flat and compact (no docstring or titles in the JSON schema: they would cost prompt
tokens; base :class:`~ditto_nb.patterns.common.output_schema.CompactSchema`). Length caps
(``maxLength``/``maxItems``) go into the JSON schema only, not into validation (see
:data:`CLAIM_CHARS`; the short answer's cap,
:data:`~ditto_nb.patterns.common.output_schema.ANSWER_CHARS`, is shared with the ``compare`` call's
:class:`~ditto_nb.patterns.common.compare.schema.SidesOutput`). Prompts:
:mod:`ditto_nb.patterns.web_qa.prompts`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from ditto_nb.patterns.common.output_schema import ANSWER_CHARS, CompactSchema

STATUSES = ("answered", "insufficient-evidence", "conflicting-evidence", "needs-clarification")
Status = Literal["answered", "insufficient-evidence", "conflicting-evidence", "needs-clarification"]
CLAIM_CHARS = 120
"""Most characters of one claim sentence. This cap and those below go into the JSON schema only
(so into a local model's output grammar), not into validation: a provider that ignores them (no
grammar) is not failed for a longer value. Generated tokens are the main cost on a CPU (~12
tokens/s for the 1.5B model on 2 cores)."""
MAX_CLAIMS = 4
"""Most claims in one draft (grammar-enforced): a two-step or comparison answer needs two, a
cross-checked one four."""
REASON_CHARS = 60
"""Most characters of one grounding verdict's reason (grammar-enforced)."""


class PlanOutput(CompactSchema):
    """Output of ``Task: plan`` (queries only: the report's normalized question is the question as
    asked, normalized by code — a restatement cost ~30 generated tokens and could drop a hop)."""

    queries: list[str] = Field(max_length=3, description="Short search queries.")
    needs_clarification: bool = Field(default=False, description="True only if the question has no clear meaning.")
    clarification: str = Field(default="", description="What to ask the user, if unclear.")


class ConflictItem(CompactSchema):
    """One disagreement between two chunks."""

    topic: str = Field(description="The fact they disagree on.")
    chunk_a: str = Field(description="Label, e.g. C1.")
    quote_a: str = Field(description="Exact text of chunk_a.")
    chunk_b: str = Field(description="Label, e.g. C2.")
    quote_b: str = Field(description="Exact text of chunk_b.")


class SelectOutput(CompactSchema):
    """Output of ``Task: select``."""

    selected: list[str] = Field(description="Labels of useful chunks.")
    lookup: list[str] = Field(default_factory=list, max_length=3,
                              description="Names the chunks give that must be looked up next.")
    missing: list[str] = Field(default_factory=list, description="Parts of the question no chunk answers.")
    conflicts: list[ConflictItem] = Field(default_factory=list, description="Usually empty.")


class ClaimItem(CompactSchema):
    """One claim and the chunk that states it (repeat a claim with another chunk to add a quote).

    The model does not copy the quote: ``quote`` is not in the JSON schema (so not in a local
    model's grammar), and code picks the sentence of the chunk that states the claim
    (:func:`ditto_nb.patterns.web_qa.evaluate.complete_draft`). A quote a model writes anyway
    (a provider without a grammar, the scripted model) is kept and verified as written.
    """

    chunk_id: str = Field(description="Label of the chunk that states the claim, e.g. C2.")
    claim: str = Field(json_schema_extra={"maxLength": CLAIM_CHARS}, description="Short sentence saying only what that chunk says.")
    quote: SkipJsonSchema[str] = ""


class AnswerOutput(CompactSchema):
    """Output of ``Task: answer`` and ``Task: repair`` (answer first, then its claims, then status).

    The answer comes first (grammar order), as a reader answers from the chunks, and the claims
    then quote what states it; code checks that the answer's words are in those quotes
    (:mod:`ditto_nb.patterns.web_qa.answer_checks`). ``status`` is the model's hint; the published
    status is decided by code (:func:`ditto_nb.patterns.web_qa.evaluate.decide_status`).
    """

    answer: str = Field(json_schema_extra={"maxLength": ANSWER_CHARS}, description="The short answer, a few words.")
    claims: list[ClaimItem] = Field(json_schema_extra={"maxItems": MAX_CLAIMS}, description="One claim per fact.")
    status: Status = Field(description="answered or insufficient-evidence.")


class PlainAnswerOutput(AnswerOutput):
    """``AnswerOutput`` whose grammar excludes ``conflicting-evidence`` and ``needs-clarification``
    (used when the selection found no verified conflict; the plan handles unclear questions)."""

    status: Literal["answered", "insufficient-evidence"] = Field(
        description="answered or insufficient-evidence."
    )


class CompareOutput(CompactSchema):
    """Output of ``Task: answer`` / ``Task: repair`` for a comparison: the same fields as
    :class:`PlainAnswerOutput` in another grammar order, one claim per compared side *first*, then
    the answer, so a small model states both sides' values before it chooses
    (:mod:`ditto_nb.patterns.common.compare.side_by_side`). Read back as :class:`AnswerOutput`."""

    claims: list[ClaimItem] = Field(json_schema_extra={"maxItems": MAX_CLAIMS},
                                    description="One claim per compared side, each from that side's chunk.")
    answer: str = Field(json_schema_extra={"maxLength": ANSWER_CHARS}, description="The short answer, a few words.")
    status: Literal["answered", "insufficient-evidence"] = Field(description="answered or insufficient-evidence.")


class Verdict(CompactSchema):
    """One grounding verdict (reason first, then the decision)."""

    n: int = Field(description="Claim number.")
    reason: str = Field(json_schema_extra={"maxLength": REASON_CHARS}, description="Short reason.")
    supported: bool = Field(description="True if the quote states the claim.")


class GroundOutput(CompactSchema):
    """Output of ``Task: ground`` and ``Task: regrade``."""

    verdicts: list[Verdict] = Field(description="One verdict per claim.")
    fits: bool = Field(default=True, description="True if the answer gives what the question asks for.")


__all__ = [
    "CLAIM_CHARS",
    "MAX_CLAIMS",
    "REASON_CHARS",
    "STATUSES",
    "AnswerOutput",
    "ClaimItem",
    "CompareOutput",
    "ConflictItem",
    "GroundOutput",
    "PlainAnswerOutput",
    "PlanOutput",
    "SelectOutput",
    "Status",
    "Verdict",
]
