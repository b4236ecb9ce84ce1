"""Output schemas of the research model calls (pydantic models sent as JSON schema, and the
TypedDicts of their dumps), their length caps and per-purpose token limits.

Written for small local models (Qwen2.5-Coder 1.5B): flat JSON schemas whose fields describe
themselves; titles and class docstrings are dropped from the schema (every token is paid for).
The prompts that use them are in :mod:`ditto_nb.patterns.deep_research.prompts`.
"""

from __future__ import annotations

import functools
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic.config import JsonDict
from pydantic.json_schema import SkipJsonSchema
from typing_extensions import TypedDict

from ditto_nb.patterns.common.compare.schema import SidesOutput
from ditto_nb.patterns.common.report_records import CoverageItem, VerdictItem


def _compact_schema(schema: JsonDict) -> None:
    """Drop titles and the class docstring from a JSON schema: the schema goes into every prompt
    (``schema_instruction``) and small local models pay for each token; field descriptions stay.
    A list property asking for at least one item (``minItems`` ≥ 1) is made required, so a grammar
    cannot leave it out (validation is unchanged)."""
    schema.pop("title", None)
    schema.pop("description", None)
    properties = schema.get("properties", {})
    for name, prop in properties.items() if isinstance(properties, dict) else ():
        if not isinstance(prop, dict):
            continue
        prop.pop("title", None)
        required = schema.get("required", [])
        min_items = prop.get("minItems", 0)
        if isinstance(min_items, int) and min_items >= 1 and isinstance(required, list) and name not in required:
            schema["required"] = [name, *required]


_COMPACT = ConfigDict(json_schema_extra=_compact_schema)


STATEMENT_CHARS = 160
"""A conclusion statement's cap in the output grammar (characters); a statement cut there loses its
last partial word (:func:`ditto_nb.text.uncut`) before it is checked against its quote."""


def _cap(chars: int) -> JsonDict:
    """A string's length cap, in the JSON schema only (so in a local model's output grammar), not
    in validation: output never runs into ``max_tokens`` (``ModelOutputTruncated`` ends a task),
    and a provider without a grammar is not failed for a longer value."""
    return {"maxLength": chars}


def _caps(items: int, chars: int) -> JsonDict:
    """A list's item-count and item-length caps (JSON schema only, see :func:`_cap`)."""
    return {"maxItems": items, "items": {"type": "string", "maxLength": chars}}


class PlanOutput(BaseModel):
    """The research plan (model output)."""

    model_config = _COMPACT

    clear: bool = Field(description="false only if the topic is too vague to research")
    goal: str = Field(default="", description="one sentence", json_schema_extra=_cap(160))
    sub_questions: list[str] = Field(default_factory=list, description="short sub-questions",
                                     json_schema_extra=_caps(3, 110))
    queries: list[str] = Field(default_factory=list, description="one short search query per sub-question",
                               json_schema_extra=_caps(3, 60))
    clarification_questions: list[str] = Field(default_factory=list, description="only when clear is false",
                                               json_schema_extra=_caps(3, 110))


class Assessment(BaseModel):
    """Coverage of one sub-question (model output)."""

    model_config = _COMPACT

    index: int = Field(description="sub-question number")
    status: Literal["covered", "gap", "conflict"] = Field(description="covered, gap or conflict")
    evidence_ids: list[str] = Field(default_factory=list, description="ids like E1 that answer it",
                                    json_schema_extra=_caps(4, 6))
    gap: str = Field(default="", description="missing fact in a few words, empty when covered",
                     json_schema_extra=_cap(90))
    next_queries: list[str] = Field(default_factory=list, description="one short new search query for a gap",
                                    json_schema_extra=_caps(2, 60))


class AssessOutput(BaseModel):
    """Coverage of every sub-question after a round (model output)."""

    model_config = _COMPACT

    items: list[Assessment] = Field(description="one item per sub-question")


class Conclusion(BaseModel):
    """One finding of the report, backed by one exact quote (model output)."""

    model_config = _COMPACT

    index: int = Field(default=1, description="sub-question number")
    statement: str = Field(description="one short sentence", json_schema_extra=_cap(STATEMENT_CHARS))
    chunk_id: str = Field(description="evidence id, e.g. E1", json_schema_extra=_cap(6))
    quote: SkipJsonSchema[str] = ""
    """Not in the schema (so not in a local model's grammar): code quotes the sentence of the named
    evidence item that states the finding (:func:`ditto_nb.patterns.deep_research.synthesis.complete_quotes`).
    A quote a model writes anyway is kept and verified as written."""


class DraftOutput(BaseModel):
    """The report draft (model output)."""

    model_config = _COMPACT

    summary: SkipJsonSchema[str] = ""
    """Not in the schema: the published summary is composed by code from the published findings
    (:func:`ditto_nb.patterns.deep_research.published.summary_of`)."""
    conclusions: list[Conclusion] = Field(default_factory=list, description="findings, one evidence id each",
                                          json_schema_extra={"maxItems": 4})
    unknowns: list[str] = Field(default_factory=list, description="what the evidence does not answer",
                                json_schema_extra=_caps(3, 100))


NOT_STATED = "not stated"
"""The review verdict "the quote does not state this": code drops (withholds) the finding."""


class Verdict(BaseModel):
    """The review's verdict on one finding (model output)."""

    model_config = _COMPACT

    n: int = Field(description="finding number")
    verdict: Literal["supported", "not stated"] = Field(description="not stated: the quote does not state this")
    reason: str = Field(default="", description="a few words", json_schema_extra=_cap(60))


class ReviewOutput(BaseModel):
    """The independent review of a draft (model output): one verdict per finding, then overall."""

    model_config = _COMPACT

    verdicts: list[Verdict] = Field(default_factory=list, description="one per finding")
    ok: bool = Field(description="true if every finding is supported by its quote and gaps are stated")
    problems: list[str] = Field(default_factory=list, description="problems found, empty when ok",
                                json_schema_extra=_caps(3, 100))


Out = TypeVar("Out", bound=BaseModel)


def _exact_verdicts(base: type[Out], count: int, description: str) -> type[Out]:
    """A subclass of ``base`` whose JSON schema asks for exactly ``count`` items in its
    ``verdicts`` list (``minItems`` = ``maxItems``); the item type and validation are ``base``'s."""
    verdicts: Any = Field(default_factory=list, description=description,
                          json_schema_extra={"minItems": count, "maxItems": count})
    item_list: Any = base.model_fields["verdicts"].annotation  # list[Verdict], list[PairVerdict]
    model: type[Out] = create_model(base.__name__, __base__=base, verdicts=(item_list, verdicts))
    return model


@functools.cache
def review_output(findings: int) -> type[ReviewOutput]:
    """:class:`ReviewOutput` whose JSON schema asks for exactly ``findings`` verdicts.

    ``minItems`` = ``maxItems`` = ``findings`` on ``verdicts``, so a grammar-constrained decoder
    (llama.cpp's JSON-schema grammar) cannot skip the per-finding verdicts (the 1.5B model
    answered ``verdicts: []`` with one overall problem, measured on a real wiki); validation stays
    as lenient as :class:`ReviewOutput`'s (a missing verdict is no verdict).

    Args:
        findings: the number of findings shown to the review (≥ 0).

    Returns:
        A subclass of :class:`ReviewOutput` (cached per count).
    """
    return _exact_verdicts(ReviewOutput, findings, "one per finding, in order")


ANSWERS = "answers"
"""The coverage verdict "the finding answers the question" (any other verdict: it does not)."""


class PairVerdict(BaseModel):
    """The ``coverage`` call's verdict on one (question, finding) pair (model output)."""

    model_config = _COMPACT

    n: int = Field(description="pair number")
    verdict: Literal["answers", "does not answer"] = Field(description="answers: the finding states what the question asks")
    reason: str = Field(default="", description="a few words", json_schema_extra=_cap(60))


class CoverageOutput(BaseModel):
    """The ``coverage`` call's output: one :class:`PairVerdict` per pair shown."""

    model_config = _COMPACT

    verdicts: list[PairVerdict] = Field(default_factory=list, description="one per pair, in order")


@functools.cache
def coverage_output(pairs: int) -> type[CoverageOutput]:
    """:class:`CoverageOutput` whose JSON schema asks for exactly ``pairs`` verdicts (as
    :func:`review_output` does; validation stays lenient: a missing verdict is no verdict).

    Args:
        pairs: the (question, finding) pairs shown (≥ 1).

    Returns:
        A subclass of :class:`CoverageOutput` (cached per count).
    """
    return _exact_verdicts(CoverageOutput, pairs, "one per pair, in order")


class PlanDump(TypedDict, total=False):
    """A :class:`PlanOutput` dump (also the checked plan committed to ``stage/plan``)."""

    clear: bool
    goal: str
    sub_questions: list[str]
    queries: list[str]
    clarification_questions: list[str]


class AssessDump(TypedDict):
    """An :class:`AssessOutput` dump."""

    items: list[CoverageItem]


class FindingDump(TypedDict, total=False):
    """A :class:`Conclusion` dump (what the review sees has ``statement`` and ``quote`` only)."""

    index: int
    statement: str
    chunk_id: str
    quote: str


class DraftDump(TypedDict, total=False):
    """A :class:`DraftOutput` dump."""

    summary: str
    conclusions: list[FindingDump]
    unknowns: list[str]


class ReviewDump(TypedDict, total=False):
    """A :class:`ReviewOutput` dump."""

    verdicts: list[VerdictItem]
    ok: bool
    problems: list[str]


MAX_TOKENS: dict[str, int] = {
    "research-plan": 320,
    "assess": 360,
    "report": 640,
    "review": 320,
    "repair": 640,
    "coverage": 320,
    "compare": 160,
}
"""Completion token limit per purpose (tokens). The schemas' length caps (:func:`_cap`) keep a
grammar-bound output below these (a truncated output ends the task with ``ModelOutputTruncated``:
measured, a 200-token plan limit cut a three-sub-question plan)."""

OUTPUT_SCHEMAS: dict[str, type[BaseModel]] = {
    "research-plan": PlanOutput,
    "assess": AssessOutput,
    "report": DraftOutput,
    "review": ReviewOutput,
    "repair": DraftOutput,
    "coverage": CoverageOutput,
    "compare": SidesOutput,
}
"""Output schema per purpose (``compare``: the shared
:class:`~ditto_nb.patterns.common.compare.schema.SidesOutput`, :mod:`~ditto_nb.patterns.deep_research.compared`)."""

__all__ = [
    "ANSWERS",
    "AssessDump",
    "AssessOutput",
    "Assessment",
    "Conclusion",
    "CoverageOutput",
    "DraftDump",
    "DraftOutput",
    "FindingDump",
    "MAX_TOKENS",
    "NOT_STATED",
    "OUTPUT_SCHEMAS",
    "PairVerdict",
    "PlanDump",
    "PlanOutput",
    "ReviewDump",
    "ReviewOutput",
    "STATEMENT_CHARS",
    "Verdict",
    "coverage_output",
    "review_output",
]
