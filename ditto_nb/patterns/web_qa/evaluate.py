"""Pure checks of an answer draft, and the published status (no I/O).

A claim is valid when every citation verified as an exact quote of a selected chunk (against the
full stored paragraph), the grounding review supports it, and (``cross_check``, status
``answered``) it has two independent origins. A draft is valid when all its claims are valid.

The status is decided by code (:func:`decide_status`); the model's status is only a hint:
``conflicting-evidence`` needs a verified conflict (both sides' quotes verified), a draft without
valid claims is ``insufficient-evidence`` (or ``conflicting-evidence`` when a verified conflict
exists), and ``answered`` needs at least one valid claim.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ditto_nb.evidence import Chunk, QuoteCheck, QuoteLocation, crosscheck
from ditto_nb.patterns.web_qa.prompts import resolve_label
from ditto_nb.text import normalize_text


@dataclass
class Evaluation:
    """The outcome of checking one draft.

    Attributes:
        problems: human-readable problems (empty = valid); sent to the repair call.
        claims: JSON claims for the report (grouped by claim text).
        failed: indexes (into the citations) of claims that failed a check; the rest passed.
        valid_claims: the JSON claims (as in ``claims``) whose every check passed.
    """

    problems: list[str] = field(default_factory=list)
    claims: list[dict[str, Any]] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)
    valid_claims: list[dict[str, Any]] = field(default_factory=list)


def decide_status(hint: str, valid_claims: int, has_conflict: bool) -> str:
    """The published status of a checked draft (see the module docstring).

    Args:
        hint: the status the model chose.
        valid_claims: number of claims that passed every check.
        has_conflict: True when the selection verified a conflict (both quotes exact).

    Returns:
        ``answered``, ``insufficient-evidence`` or ``conflicting-evidence``.
    """
    if has_conflict and (hint == "conflicting-evidence" or valid_claims == 0):
        return "conflicting-evidence"
    if valid_claims == 0 or hint == "insufficient-evidence":
        return "insufficient-evidence"
    return "answered"


def draft_citations(draft: Mapping[str, Any], labels: Mapping[str, str]) -> list[dict[str, str]]:
    """The draft's claims with chunk labels resolved to chunk ids.

    Args:
        draft: an ``AnswerOutput`` dict.
        labels: ``{label: chunk_id}`` of the chunks shown to the model.

    Returns:
        ``[{"claim", "chunk_id", "quote"}]`` in draft order.
    """
    return [
        {
            "claim": str(item.get("claim", "")),
            "chunk_id": resolve_label(str(item.get("chunk_id", "")), labels),
            "quote": str(item.get("quote", "")),
        }
        for item in draft.get("claims") or []
    ]


def citation_json(result: Mapping[str, Any]) -> dict[str, Any]:
    """A report citation from one ``verify_quotes`` tool result (which must be ok)."""
    location = result["location"]
    return {
        "chunk_id": result["chunk_id"],
        "quote": location["quote"],
        "final_url": result["final_url"],
        "origin": result["origin"],
        "title": result["title"] or "",
        "fetched_at": result["fetched_at"],
        "sha256": result["sha256"],
        "paragraph_index": location["paragraph_index"],
        "start": location["start"],
        "end": location["end"],
    }


def _as_check(result: Mapping[str, Any]) -> QuoteCheck:
    location = result.get("location")
    chunk = None
    if result.get("sha256"):
        chunk = Chunk(
            chunk_id=result["chunk_id"],
            url=result["final_url"],
            final_url=result["final_url"],
            origin=result["origin"],
            title=result.get("title") or "",
            fetched_at=result.get("fetched_at") or "",
            sha256=result["sha256"],
            paragraph_index=location["paragraph_index"] if location else 0,
            text=result.get("paragraph_text") or "",
        )
    return QuoteCheck(
        chunk_id=result["chunk_id"],
        quote=result["quote"],
        ok=bool(result["ok"]),
        reason=result["reason"],
        location=QuoteLocation(**location) if location else None,
        chunk=chunk,
    )


def evaluate_draft(
    draft: Mapping[str, Any],
    citations: Sequence[Mapping[str, str]],
    verified: Sequence[Mapping[str, Any]],
    verdicts: Sequence[Mapping[str, Any]],
    *,
    conflicts: Sequence[Any],
    cross_check: bool,
) -> Evaluation:
    """Check a draft (see the module docstring).

    Args:
        draft: the ``AnswerOutput`` dict.
        citations: :func:`draft_citations` of the draft.
        verified: the ``verify_quotes`` tool results, one per citation.
        verdicts: the grounding review's verdicts (``n`` is 1-based over ``citations``).
        conflicts: the verified conflicts of the selection.
        cross_check: require two independent origins per answered claim.

    Returns:
        The :class:`Evaluation`.
    """
    out = Evaluation()
    status = draft.get("status")
    by_n = {int(v.get("n", 0)): v for v in verdicts if isinstance(v, Mapping)}
    groups: dict[str, list[int]] = {}
    for i, citation in enumerate(citations):
        groups.setdefault(normalize_text(citation["claim"]).lower(), []).append(i)
    del conflicts  # the status rules live in decide_status
    for indexes in groups.values():
        before = len(out.problems)
        claim_text = citations[indexes[0]]["claim"]
        checks = [_as_check(verified[i]) for i in indexes]
        quotes_ok = all(c.ok for c in checks)
        grounded = True
        reasons = []
        for i in indexes:
            check = verified[i]
            n = i + 1
            if not check["ok"]:
                out.problems.append(
                    f"claim {n}: quote {check['quote']!r} is not exact text of chunk {citations[i]['chunk_id']} "
                    f"({check['reason']})"
                )
            verdict = by_n.get(n)
            if verdict is None or not verdict.get("supported"):
                grounded = False
                reason = str((verdict or {}).get("reason") or "no supporting verdict")
                reasons.append(reason)
                out.problems.append(f"claim {n}: grounding review: not supported ({reason})")
        cross = None
        origins: list[str] = sorted({c.chunk.origin for c in checks if c.ok and c.chunk})
        if cross_check and status != "insufficient-evidence":  # any claim that could be published as an answer
            result = crosscheck(checks)
            cross = result.passed
            if not result.passed:
                out.problems.append(
                    f"claim {claim_text!r}: needs exact quotes from two different sites with different text "
                    f"(has {result.independent})"
                )
        claim_json = {
            "claim": claim_text,
            "citations": [citation_json(verified[i]) for i in indexes if verified[i]["ok"]],
            "verification": {
                "quotes_verified": quotes_ok,
                "grounded": grounded,
                "grounding_reason": "; ".join(reasons),
                "cross_check_passed": cross,
                "origins": origins,
            },
        }
        out.claims.append(claim_json)
        if len(out.problems) > before:
            out.failed.extend(indexes)
        else:
            out.valid_claims.append(claim_json)
    return out


__all__ = ["Evaluation", "citation_json", "decide_status", "draft_citations", "evaluate_draft"]
