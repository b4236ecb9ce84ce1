"""Cross-checking claims across origins, and conflicts between sources.

Cross-check rule (SPEC §3): a claim passes when its verified supporting quotes come from at least
``min_origins`` different origins (scheme, host, port) **with different text**. Mirrors — the same
normalized paragraph text served by several origins — count once. This is a measurable
corroboration heuristic, not proof of editorial independence.

A conflict keeps both sides' verified quotes and is never resolved: no winner is picked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ditto_nb.evidence.chunks import Chunk
from ditto_nb.evidence.quotes import QuoteCheck, verify_quote


@dataclass(frozen=True)
class CrossCheck:
    """The cross-check of one claim.

    Attributes:
        passed: True when independent support reaches ``min_origins``.
        origins: distinct origins of the verified supporting quotes (sorted).
        independent: number of independent supports (distinct paragraph texts, each credited to
            at most one origin not already credited).
        mirrored_origins: origins whose supporting paragraph text duplicated another origin's.
    """

    passed: bool
    origins: tuple[str, ...]
    independent: int
    mirrored_origins: tuple[str, ...] = field(default=())


def crosscheck(supports: Sequence[QuoteCheck], min_origins: int = 2) -> CrossCheck:
    """Cross-check one claim from its quote checks.

    Only ``ok`` checks count. Supports are grouped by the cited paragraph text (mirrors: one
    group); groups are then credited greedily to origins not credited yet, so two different texts
    from one origin, or one text on two origins, both count as a single support.

    Args:
        supports: the claim's quote checks (from :func:`ditto_nb.evidence.quotes.verify_quote`).
        min_origins: required number of independent origins (2 per SPEC §3).

    Returns:
        A :class:`CrossCheck`.
    """
    groups: dict[str, set[str]] = {}
    for check in supports:
        if check.ok and check.chunk is not None:
            groups.setdefault(check.chunk.text, set()).add(check.chunk.origin)
    origins = sorted({origin for members in groups.values() for origin in members})
    mirrored = sorted({origin for members in groups.values() if len(members) > 1 for origin in members})
    credited: set[str] = set()
    # Assign each distinct text one origin, preferring texts with fewer options (a tiny matching).
    for _text, members in sorted(groups.items(), key=lambda item: (len(item[1]), item[0])):
        free = sorted(members - credited)
        if free:
            credited.add(free[0])
    independent = len(credited)
    return CrossCheck(
        passed=independent >= min_origins,
        origins=tuple(origins),
        independent=independent,
        mirrored_origins=tuple(mirrored),
    )


@dataclass(frozen=True)
class Conflict:
    """Two verified quotes that disagree on ``topic``; unresolved by design.

    Attributes:
        topic: what the sources disagree about (as the model named it).
        sides: both sides, each a verified :class:`QuoteCheck`.
    """

    topic: str
    sides: tuple[QuoteCheck, QuoteCheck]


def verify_conflict(
    topic: str,
    side_a: tuple[str, str],
    side_b: tuple[str, str],
    chunks: Mapping[str, Chunk],
) -> Conflict | None:
    """Build a conflict when both sides' quotes verify against different chunks.

    Args:
        topic: the disputed point.
        side_a: ``(chunk_id, quote)`` of the first side.
        side_b: ``(chunk_id, quote)`` of the second side.
        chunks: chunks that may be cited, by id.

    Returns:
        The :class:`Conflict`, or None when a quote does not verify, both sides cite the same
        chunk, or both quotes are the same text (a mirror is not a conflict).
    """
    a = verify_quote(side_a[0], side_a[1], chunks)
    b = verify_quote(side_b[0], side_b[1], chunks)
    if not (a.ok and b.ok) or a.chunk_id == b.chunk_id:
        return None
    assert a.location is not None and b.location is not None
    if a.location.quote == b.location.quote:
        return None
    return Conflict(topic=topic, sides=(a, b))


__all__ = ["Conflict", "CrossCheck", "crosscheck", "verify_conflict"]
