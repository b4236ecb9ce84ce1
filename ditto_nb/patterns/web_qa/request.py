"""The Web QA request: trusted controller input, never granted by a model (SPEC §3)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ditto_nb.errors import InvalidRequest
from ditto_nb.text import normalize_text
from ditto_nb.web.policy import NetworkPolicy, origin_of


class WebQaRequest(BaseModel):
    """One question with its identity, network policy and budgets.

    Attributes:
        id: task id (a changed question or policy needs a new id).
        tenant: tenant of the principal (Context scope part).
        principal: who asks (Context scope part).
        question: the question (1–2,000 characters).
        allowed_origins: ``https://host[:port]`` origins that may be fetched (normalized).
        reference_urls: pages that must be read and cited like any other (within allowed origins).
        max_queries: search queries the plan may produce (1–3).
        max_pages: pages read, references included (1–6).
        cross_check: every answered claim needs two independent origins.
        allow_partial: tolerate per-source search/read failures (recorded in the report).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    tenant: str = Field(min_length=1, max_length=128, pattern=r"^[^:\s]+$")
    principal: str = Field(min_length=1, max_length=128, pattern=r"^[^:\s]+$")
    question: str = Field(min_length=1, max_length=2000)
    allowed_origins: tuple[str, ...] = Field(min_length=1)
    reference_urls: tuple[str, ...] = ()
    max_queries: int = Field(default=2, ge=1, le=3)
    max_pages: int = Field(default=4, ge=1, le=6)
    cross_check: bool = False
    allow_partial: bool = True

    @field_validator("question")
    @classmethod
    def _question(cls, value: str) -> str:
        text = normalize_text(value)
        if not text:
            raise ValueError("question is empty")
        return text

    @field_validator("allowed_origins", mode="before")
    @classmethod
    def _origins(cls, value: Any) -> tuple[str, ...]:
        return NetworkPolicy(allowed_origins=value).allowed_origins

    @model_validator(mode="after")
    def _references(self) -> WebQaRequest:
        for url in self.reference_urls:
            if origin_of(url) not in self.allowed_origins:
                raise ValueError(f"reference URL {url!r} is outside allowed_origins")
        if len(set(self.reference_urls)) > self.max_pages:
            raise ValueError("more reference_urls than max_pages")
        return self

    @classmethod
    def parse(cls, value: WebQaRequest | Mapping[str, Any]) -> WebQaRequest:
        """Validate a request.

        Args:
            value: a request or a mapping of its fields.

        Returns:
            The validated request.

        Raises:
            InvalidRequest: a field is missing or out of range (the message names it).
        """
        if isinstance(value, WebQaRequest):
            return value
        try:
            return cls.model_validate(dict(value))
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'request'}: {e['msg']}" for e in exc.errors())
            raise InvalidRequest(f"invalid Web QA request: {problems}") from None
        except Exception as exc:  # InvalidURL from origin_of
            raise InvalidRequest(f"invalid Web QA request: {exc}") from None

    @property
    def scope(self) -> str:
        """The Context scope ``web:{tenant}:{principal}:{id}``."""
        return f"web:{self.tenant}:{self.principal}:{self.id}"

    @property
    def namespace(self) -> str:
        """The Memory namespace ``web_qa:{id}``."""
        return f"web_qa:{self.id}"


def default_request(
    allowed_origins: tuple[str, ...] = ("https://en.wikipedia.org",),
    question: str = "When did the Golden Gate Bridge open, and how long is its main span?",
) -> WebQaRequest:
    """An explicit public-data demonstration request (not an authenticated identity).

    Args:
        allowed_origins: origins the demo may read (default: English Wikipedia).
        question: the demo question.

    Returns:
        A :class:`WebQaRequest` with tenant ``demo`` and principal ``analyst``.
    """
    return WebQaRequest(
        id="demo-web-qa",
        tenant="demo",
        principal="analyst",
        question=question,
        allowed_origins=allowed_origins,
        max_queries=2,
        max_pages=4,
        cross_check=False,
        allow_partial=True,
    )


__all__ = ["WebQaRequest", "default_request"]
