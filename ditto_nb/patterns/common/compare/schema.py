"""Output schema of the ``compare`` model call, shared by Web QA's compare step and deep research's
compared findings (:mod:`ditto_nb.patterns.common.compare.values` reads it)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ditto_nb.patterns.common.output_schema import ANSWER_CHARS, CompactSchema


class SidesOutput(CompactSchema):
    """Output of ``Task: compare``: each side's value of the compared fact, read from its quotes,
    then the answer the two values decide (:mod:`ditto_nb.patterns.common.compare.values`)."""

    first: str = Field(json_schema_extra={"maxLength": ANSWER_CHARS},
                       description="What the first side's quotes say about the compared fact, a few words.")
    second: str = Field(json_schema_extra={"maxLength": ANSWER_CHARS},
                        description="What the second side's quotes say about it, a few words.")
    answer: str = Field(json_schema_extra={"maxLength": ANSWER_CHARS}, description="The short answer, a few words.")
    status: Literal["answered", "insufficient-evidence"] = Field(description="answered or insufficient-evidence.")


__all__ = ["SidesOutput"]
