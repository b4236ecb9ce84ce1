"""Pure checks of an answer draft, and the published status (no I/O).

A citation (claim + quote) passes when its quote verified as exact text of a selected chunk
(against the full stored paragraph), the claim passes the lexical support check
(:func:`ditto_nb.evidence.support.check_support`: its numbers, dates and names appear in the quote
or the quote's sentence/page title, and most of its words do) and the grounding review supports
the claim from that quote — or the claim is a word-for-word excerpt of it
(:func:`ditto_nb.evidence.support.verbatim_excerpt`), which the quote states by construction (the
1.5B reviewer refused "Shirley Temple was an American actress …" quoted with "Shirley Temple Black
(…) was an American actress …", with the reason "the quote explicitly states …");
with ``cross_check`` (any status but ``insufficient-evidence``) a claim's passing citations must
also come from two independent origins. A draft is valid when every citation passes; otherwise
only the failed citations go to the one repair and the passing ones stay.

The status is decided by code (:func:`decide_status`); the model's status is only a hint:
``conflicting-evidence`` needs a verified conflict (both sides' quotes verified), a draft without
valid claims is ``insufficient-evidence`` (or ``conflicting-evidence`` when a verified conflict
exists), and ``answered`` needs at least one valid claim.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ditto_nb.evidence import Chunk, QuoteCheck, QuoteLocation, crosscheck
from ditto_nb.evidence.quote_pick import quote_for
from ditto_nb.evidence.restate import restate_cited
from ditto_nb.evidence.support import check_support
from ditto_nb.patterns.common.citations import citation_json
from ditto_nb.patterns.common.grounding import review_passes
from ditto_nb.patterns.common.output_schema import ANSWER_CHARS
from ditto_nb.patterns.common.records import ChunkRecord, ClaimJson, QuoteResult, WithheldClaim
from ditto_nb.patterns.web_qa.prompts import resolve_label
from ditto_nb.patterns.web_qa.stage_models import DraftCitation
from ditto_nb.patterns.web_qa.schemas import CLAIM_CHARS, AnswerOutput, ClaimItem, Verdict
from ditto_nb.text import normalize_text, uncut


@dataclass
class Evaluation:
    """The outcome of checking one draft.

    Attributes:
        problems: human-readable problems (empty = valid); sent to the repair call.
        claims: JSON claims for the report (grouped by claim text).
        failed: indexes (into the citations) of citations that failed a check (all of a claim's
            citations when its cross-check failed); the rest passed.
        valid_claims: JSON claims built from the citations that passed every check (a claim with
            one failed and one passing citation keeps the passing one here).
        reasons: why each failed citation failed (``{citation index: [reason]}``): quote not found
            in the chunk, the lexical support check's reasons, the grounding verdict's reason, or
            the failed cross-check.
        rejected: one row per failed citation, for the analyst (Memory ``withheld``): ``claim``,
            ``chunk_id``, ``quote``, ``quote_found`` (bool), ``grounded`` (bool: support check and
            grounding review both passed), ``reasons`` (list) and ``reason`` (them joined by "; ").
        fits: the grounding review's judgement that the answer gives what the question asks.
        fits_reason: its reason ("" when none was given).
    """

    problems: list[str] = field(default_factory=list)
    rejected: list[WithheldClaim] = field(default_factory=list)
    claims: list[ClaimJson] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)
    valid_claims: list[ClaimJson] = field(default_factory=list)
    reasons: dict[int, list[str]] = field(default_factory=dict)
    fits: bool = True
    fits_reason: str = ""


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


_HEADER = re.compile(r"^\s*(?:\[C\d+\]\s*)?\(?(?:[^()]|\([^()]*\))* - (?:https?://)?[^()\s]*\.[^()\s]+\)\s*")


def strip_header(quote: str, titles: Collection[str] = ()) -> str:
    """Remove a copied chunk header from the start of a quote or claim.

    Small models sometimes copy the whole evidence line (``[C1] (title - host) text``,
    :func:`~ditto_nb.patterns.web_qa.prompts.render_chunks`; earlier ``(title - https://origin)``),
    in quotes and claims alike, at times without its opening parenthesis (measured on a real wiki:
    "Winner (band) - https://wiki.test:43597) Winner is …" failed the claim's number check), or
    only its ``(title)``: that is removed when ``title`` is one of ``titles``. The header is our
    rendering, not page text; the rest must still be exact paragraph text.

    Args:
        quote: the quote or claim as the model wrote it.
        titles: the titles of the chunks shown to the model.
    """
    text = _HEADER.sub("", quote, count=1)
    stripped = text.lstrip()
    for title in titles:
        if title and stripped.startswith(f"({title})"):
            return stripped[len(title) + 2:].lstrip()
    return text


def complete_draft(draft: AnswerOutput, labels: Mapping[str, str], chunks: Mapping[str, ChunkRecord]) -> AnswerOutput:
    """The draft with a quote picked by code for every claim that has none (pure, deterministic).

    The local model's grammar has no ``quote`` field: it names the chunk and writes the claim,
    and :func:`ditto_nb.evidence.quote_pick.pick_quote` takes the sentence(s) of that chunk's
    stored paragraph that state the claim (the draft's short answer weighs extra); a claim whose
    cited chunk names none of the names another shown chunk names is quoted from that chunk
    (:func:`ditto_nb.evidence.quote_pick.best_source`: small models swap labels). A claim that
    names its subject by a description its quote does not name becomes the quote's sentence
    (:func:`ditto_nb.evidence.restate.restatement`). A chunk header copied into a claim is removed
    (:func:`strip_header`). A quote the model did write is kept as
    written, with its chunk (and verified like any other).

    Args:
        draft: the validated ``AnswerOutput`` (``answer``, ``claims``, ``status``).
        labels: ``{label: chunk_id}`` of the chunks shown to the model.
        chunks: ``{chunk_id: chunk}`` (``text``, ``title``) of those chunks.

    Returns:
        A copy of ``draft`` whose claims all carry a ``quote`` ("" when the chunk is unknown).
    """
    answer = uncut(draft.answer, ANSWER_CHARS)
    shown = {cid: (str(c.get("title") or ""), str(c.get("text", ""))) for cid, c in chunks.items()}
    titles = sorted({title for title, _ in shown.values()}, key=len, reverse=True)
    claims: list[ClaimItem] = []
    for item in draft.claims:
        text = strip_header(uncut(item.claim, CLAIM_CHARS), titles)  # the grammar's cap cuts mid-word
        chunk_id, quote = item.chunk_id, item.quote
        if not quote.strip():
            chunk_id, quote = quote_for(text, resolve_label(chunk_id, labels), shown, focus=answer)
        restated = restate_cited(text, quote, chunk_id, shown)
        if restated is not None:
            text = quote = restated  # a two-hop claim naming its subject by a description: the quote's sentence
        claims.append(item.model_copy(update={"claim": text, "chunk_id": chunk_id, "quote": quote}))
    return draft.model_copy(update={"claims": claims, "answer": answer})


def draft_citations(draft: AnswerOutput, labels: Mapping[str, str],
                    chunks: Mapping[str, ChunkRecord] | None = None) -> list[DraftCitation]:
    """The draft's claims with chunk labels resolved to chunk ids (copied chunk headers removed
    from quotes, see :func:`strip_header`; missing quotes picked by :func:`complete_draft`).

    Args:
        draft: the validated ``AnswerOutput``.
        labels: ``{label: chunk_id}`` of the chunks shown to the model.
        chunks: ``{chunk_id: chunk}`` of those chunks (None: quotes are taken as written).

    Returns:
        ``[{"claim", "chunk_id", "quote"}]`` in draft order.
    """
    titles: list[str] = []
    if chunks is not None:
        draft = complete_draft(draft, labels, chunks)
        titles = sorted({str(c.get("title") or "") for c in chunks.values()}, key=len, reverse=True)
    return [
        {"claim": item.claim, "chunk_id": resolve_label(item.chunk_id, labels),
         "quote": strip_header(item.quote, titles)}
        for item in draft.claims
    ]


def _as_check(result: QuoteResult) -> QuoteCheck:
    location = result.get("location")
    chunk = None
    if result.get("sha256"):
        chunk = Chunk.model_validate({
            "chunk_id": result["chunk_id"],
            "url": result["final_url"],
            "final_url": result["final_url"],
            "origin": result["origin"],
            "title": result.get("title") or "",
            "fetched_at": result.get("fetched_at") or "",
            "sha256": result["sha256"],
            "paragraph_index": location["paragraph_index"] if location else 0,
            "text": result.get("paragraph_text") or "",
        })
    return QuoteCheck(
        chunk_id=result["chunk_id"],
        quote=result["quote"],
        ok=bool(result["ok"]),
        reason=result["reason"],
        location=QuoteLocation(**location) if location else None,
        chunk=chunk,
    )


def _claim_json(claim: str, results: Sequence[QuoteResult], quotes_ok: bool, grounded: bool,
                reasons: Sequence[str], cross: bool | None, origins: Sequence[str]) -> ClaimJson:
    return {
        "claim": claim,
        "citations": [citation_json(r) for r in results if r["ok"]],
        "verification": {
            "quotes_verified": quotes_ok,
            "grounded": grounded,
            "grounding_reason": "; ".join(reasons),
            "cross_check_passed": cross,
            "origins": list(origins),
        },
    }


def merge_claims(claims: Sequence[ClaimJson]) -> list[ClaimJson]:
    """Merge valid JSON claims with the same text (e.g. a kept claim and its repaired twin).

    Args:
        claims: valid claims (every check passed) in order.

    Returns:
        One claim per normalized text, citations concatenated (duplicates dropped), origins united.
    """
    out: dict[str, ClaimJson] = {}
    for claim in claims:
        key = normalize_text(str(claim["claim"])).lower()
        if key not in out:
            out[key] = {**claim, "citations": list(claim["citations"]),
                        "verification": claim["verification"].copy()}
            continue
        into = out[key]
        seen = {(c["chunk_id"], c["start"], c["end"]) for c in into["citations"]}
        into["citations"] += [c for c in claim["citations"] if (c["chunk_id"], c["start"], c["end"]) not in seen]
        verification = into["verification"]
        verification["origins"] = sorted(set(verification["origins"]) | set(claim["verification"]["origins"]))
    return list(out.values())


def evaluate_draft(
    draft: AnswerOutput,
    citations: Sequence[DraftCitation],
    verified: Sequence[QuoteResult],
    verdicts: Sequence[Verdict],
    *,
    conflicts: Sequence[Any],
    cross_check: bool,
) -> Evaluation:
    """Check a draft (see the module docstring).

    Args:
        draft: the validated ``AnswerOutput``.
        citations: :func:`draft_citations` of the draft.
        verified: the ``verify_quotes`` tool results, one per citation.
        verdicts: the grounding review's verdicts (``GroundOutput.verdicts``; ``n`` is 1-based
            over ``citations``).
        conflicts: the verified conflicts of the selection.
        cross_check: require two independent origins per answered claim.

    Returns:
        The :class:`Evaluation`.
    """
    out = Evaluation()
    status = draft.status
    by_n = {v.n: v for v in verdicts}
    groups: dict[str, list[int]] = {}
    for i, citation in enumerate(citations):
        groups.setdefault(normalize_text(citation["claim"]).lower(), []).append(i)
    del conflicts  # the status rules live in decide_status
    for indexes in groups.values():
        claim_text = citations[indexes[0]]["claim"]
        checks = [_as_check(verified[i]) for i in indexes]
        quotes_ok = all(c.ok for c in checks)
        grounded = True
        reasons: list[str] = []
        bad: list[int] = []
        unsupported: set[int] = set()  # failed the support check or the grounding review
        for i in indexes:
            check = verified[i]
            n = i + 1
            if not check["ok"]:
                bad.append(i)
                out.problems.append(
                    f"claim {n}: quote {check['quote']!r} is not exact text of chunk {citations[i]['chunk_id']} "
                    f"({check['reason']})"
                )
                out.reasons.setdefault(i, []).append(
                    f"quote not found in chunk {citations[i]['chunk_id']} ({check['reason']})")
            elif not (support := check_support(citations[i]["claim"], check["quote"],
                                               paragraph=str(check.get("paragraph_text") or ""),
                                               title=str(check.get("title") or ""))).ok:
                bad.append(i)
                unsupported.add(i)
                grounded = False
                reasons.extend(support.reasons)
                out.problems.append(f"claim {n}: {'; '.join(support.reasons)}")
                out.reasons.setdefault(i, []).extend(support.reasons)
            verdict = by_n.get(n)
            said = "supported" if verdict is not None and verdict.supported else None
            # the one review rule (a verbatim excerpt of a verified, supported quote passes)
            passes = (review_passes(said, citations[i]["claim"], check["quote"], "explicit")
                      if check["ok"] and i not in unsupported else said == "supported")
            if not passes:
                unsupported.add(i)
                grounded = False
                bad.append(i)
                reason = (verdict.reason if verdict else "") or "no supporting verdict"
                reasons.append(reason)
                out.problems.append(f"claim {n}: grounding review: not supported ({reason})")
                out.reasons.setdefault(i, []).append(f"grounding review: {reason}")
        good = [i for i in indexes if i not in bad]
        cross = None
        origins: list[str] = sorted({c.chunk.origin for c in checks if c.ok and c.chunk})
        if cross_check and status != "insufficient-evidence":  # any claim that could be published as an answer
            result = crosscheck([_as_check(verified[i]) for i in good])
            cross = result.passed
            if not result.passed:
                bad = list(indexes)
                good = []
                out.problems.append(
                    f"claim {claim_text!r}: needs exact quotes from two different sites with different text "
                    f"(has {result.independent})"
                )
                for i in indexes:
                    out.reasons.setdefault(i, []).append(
                        f"cross-check failed: needs exact quotes from two different sites (has {result.independent})")
        out.claims.append(_claim_json(claim_text, [verified[i] for i in indexes], quotes_ok, grounded, reasons,
                                      cross, origins))
        out.failed.extend(sorted(set(bad)))
        for i in sorted(set(bad)):
            out.rejected.append({
                "claim": claim_text, "chunk_id": citations[i]["chunk_id"], "quote": citations[i]["quote"],
                "quote_found": bool(verified[i]["ok"]), "grounded": i not in unsupported,
                "reasons": list(out.reasons.get(i) or ["failed a check"]),
                "reason": "; ".join(out.reasons.get(i) or ["failed a check"]),
            })
        if good:
            # the citations that passed every check stand on their own (failed ones go to the repair)
            good_checks = [checks[indexes.index(i)] for i in good]
            out.valid_claims.append(_claim_json(
                claim_text, [verified[i] for i in good], True, True, [], cross,
                sorted({c.chunk.origin for c in good_checks if c.chunk}),
            ))
    return out


__all__ = ["Evaluation", "complete_draft", "decide_status", "draft_citations", "evaluate_draft", "merge_claims",
           "strip_header"]
