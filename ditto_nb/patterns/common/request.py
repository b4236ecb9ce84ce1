"""The request base both patterns extend: identity, origins normalized once, references, budgets.

A request is trusted controller input, never granted by a model (SPEC §3, §4). Both Web QA's
``WebQaRequest`` and deep research's ``ResearchRequest`` extend :class:`TaskRequest`, so the
rules below hold for both:

- ``allowed_origins`` are normalized ONCE, here, by :class:`~ditto_nb.web.policy.NetworkPolicy`
  (``https://en.wikipedia.org`` becomes ``https://en.wikipedia.org:443``, the form
  :func:`~ditto_nb.web.policy.origin_of` gives every URL), so comparing ``origin_of(url)`` with
  them is always right; only ``https`` origins are accepted.
- every ``reference_urls`` entry is an https URL inside ``allowed_origins``, and there are no
  more distinct references than ``max_pages``;
- the question is normalized like quotes are (:func:`ditto_nb.text.normalize_text`);
- tenant and principal contain no ``:`` or whitespace (they are parts of the Context scope).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ditto_nb.errors import InvalidRequest
from ditto_nb.patterns.common.binding import TaskScope
from ditto_nb.patterns.common.binding import fingerprint as canonical_fingerprint
from ditto_nb.text import normalize_text
from ditto_nb.web.policy import NetworkPolicy, origin_of


class TaskRequest(BaseModel):
    """Identity, network policy and the budgets both patterns share.

    Class attributes (set by each pattern):
        NAMESPACE_PREFIX: Memory namespace prefix (``web_qa``, ``research``).
        SCOPE_PREFIX: Context scope prefix (``web``, ``research``).
        LABEL: what error messages call the request (``Web QA``, ``research``).

    Attributes:
        id: task id; one id, one request (a changed question or policy needs a new id).
        tenant: trusted tenant identity (no ``:`` or whitespace).
        principal: trusted principal identity (no ``:`` or whitespace).
        question: the question or topic (1–2,000 characters, whitespace normalized).
        allowed_origins: ``https://host:port`` origins pages may be read from (normalized).
        reference_urls: pages that must be read and cited like any other (inside
            ``allowed_origins``; at most ``max_pages`` distinct).
        max_queries: search queries per plan or round (1–3).
        max_pages: pages read (per task for Web QA, per round for research; 1–6).
        cross_check: every answered claim / covered conclusion needs two independent origins.
        allow_partial: tolerate per-source search/read failures (recorded in the report).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    NAMESPACE_PREFIX: ClassVar[str] = "task"
    SCOPE_PREFIX: ClassVar[str] = "task"
    LABEL: ClassVar[str] = "task"

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

    @field_validator("reference_urls", mode="before")
    @classmethod
    def _as_tuple(cls, value: Any) -> Any:
        return tuple(value) if isinstance(value, list) else value

    @model_validator(mode="after")
    def _references(self) -> Self:
        for url in self.reference_urls:
            if not url.startswith("https://"):
                raise ValueError(f"reference URL must be https: {url!r}")
            if origin_of(url) not in self.allowed_origins:
                raise ValueError(f"reference URL {url!r} is outside allowed_origins")
        if len(set(self.reference_urls)) > self.max_pages:
            raise ValueError("more reference_urls than max_pages")
        return self

    @classmethod
    def parse(cls, value: Self | Mapping[str, Any]) -> Self:
        """Validate a request.

        Args:
            value: a request of this class or a mapping of its fields.

        Returns:
            The validated request.

        Raises:
            InvalidRequest: a field is missing, unknown or outside its documented range (the
                message names it).
        """
        if isinstance(value, cls):
            return value
        try:
            return cls.model_validate(dict(value))
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'request'}: {e['msg']}" for e in exc.errors())
            raise InvalidRequest(f"invalid {cls.LABEL} request: {problems}") from None
        except Exception as exc:  # InvalidURL from origin_of
            raise InvalidRequest(f"invalid {cls.LABEL} request: {exc}") from None

    def fingerprint(self) -> str:
        """SHA-256 (hex) of the canonical JSON of the whole request (the task binding's).

        Returns:
            64 hex characters; equal requests give equal fingerprints.
        """
        return canonical_fingerprint(self.model_dump(mode="json"))

    @property
    def namespace(self) -> str:
        """The Memory namespace ``{NAMESPACE_PREFIX}:{id}``."""
        return f"{self.NAMESPACE_PREFIX}:{self.id}"

    @property
    def context_scope(self) -> str:
        """The Context scope ``{SCOPE_PREFIX}:{tenant}:{principal}:{id}``."""
        return f"{self.SCOPE_PREFIX}:{self.tenant}:{self.principal}:{self.id}"

    @property
    def task_scope(self) -> TaskScope:
        """The task's :class:`~ditto_nb.patterns.common.TaskScope` (namespace and scope)."""
        return TaskScope(namespace=self.namespace, scope=self.context_scope)


__all__ = ["TaskRequest"]
