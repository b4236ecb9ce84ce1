"""Answers code makes more precise from their own verified quotes (pure, no model call).

**The place a quote names inside the region the answer only repeats.**

"The director of "Big Stone Gap" is based in what New York city?" was answered "New York City"
(measured on a real wiki) while the quote the claim stood on says "… based in Greenwich Village,
New York City." An answer whose every content word is already in the question gives nothing new
(:func:`~ditto_nb.patterns.web_qa.answer_checks.repeats_question`, a repair reason); when a
verified quote writes the answer right after a capitalized name and a comma (the "Place,
Region" form of addresses and places: "Brooklyn, New York", "Harris County, Texas"), that name
with the answer is what was asked. The claim that quote stands on is restated as the quote's
sentence (exact page text, so it states the new answer; the grounding review already passed it).

**The number the question counts.** "… can seat how many people?" was answered "4,000" from the
quote "… a 4,000 capacity (3,677 seated) arena" (measured on a real wiki; the repair call, told
"answer with 3,677", wrote "4,000" again). When the answer's quote sentence holds another number
that the question's own words qualify
(:func:`~ditto_nb.patterns.web_qa.answer_checks.number_elsewhere`), that number with the words
after it that the question uses ("3,677 seated") is the answer, and the claim is restated as the
quote's sentence.

**The name the question's years qualify.** "… a conference that was formerly known as what from
1988 to 1996?" was answered "America East Conference" (the conference's name today, measured on
a real wiki); the repair call then wrote "North Atlantic Conference" but cited the sentence that
names America East, so the task ended insufficient. When the question asks what something was
known as (called, named …) and a shown chunk's sentence ties the question's years to another name
than the answer (:func:`~ditto_nb.patterns.web_qa.tied_years.tie`: "The conference was known
as … the North Atlantic Conference from 1988 to 1996."), that name is the answer and that sentence,
verified as exact chunk text, is its first claim.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ditto_nb.patterns.common.citations import chunk_citation
from ditto_nb.patterns.common.compare.side_by_side import is_yes_no
from ditto_nb.patterns.common.records import ChunkRecord, ClaimJson
from ditto_nb.patterns.web_qa.answer_checks import expected_kind, number_elsewhere, repeats_question
from ditto_nb.patterns.web_qa.tied_years import asks_name, tie
from ditto_nb.text import normalize_text, split_sentences

_PLACE_BEFORE = re.compile(r"([A-Z][\w'-]*(?:\s+(?:of\s+(?:the\s+)?|the\s+|de\s+)?[A-Z][\w'-]*){0,4}),\s*$")


def narrower_answer(question: str, answer: str, claims: Sequence[ClaimJson]) -> tuple[str, list[ClaimJson]] | None:
    """The "Place, Region" span of a verified quote that ends with an answer repeating the question.

    Args:
        question: the question as asked.
        answer: the draft's short answer.
        claims: the verified claims (report JSON: ``claim`` and ``citations`` with ``quote``).

    Returns:
        ``(answer, claims)``: the narrower answer as the quote writes it (``Greenwich Village, New
        York City``) and the claims with the one it came from restated as its quote's sentence; or
        None when the answer does not repeat the question, the question asks who (a list of
        people is no place), or no quote writes a name before it.
    """
    key = normalize_text(answer).strip(" .")
    if not key or is_yes_no(key) or expected_kind(question) == "person" or not repeats_question(question, key):
        return None
    for index, claim in enumerate(claims):
        for citation in claim.get("citations") or []:
            for sentence in split_sentences(normalize_text(str(citation.get("quote", "")))):
                for found in re.finditer(re.escape(key), sentence):
                    place = _PLACE_BEFORE.search(sentence[:found.start()])
                    if place is None or place.group(1) == key:
                        continue
                    narrowed = f"{place.group(1)}, {key}"
                    if repeats_question(question, narrowed):
                        continue
                    restated = list(claims)
                    restated[index] = ClaimJson(claim=sentence, citations=claim["citations"],
                                                verification=claim["verification"])
                    return narrowed, restated
    return None


def counted_answer(question: str, answer: str, claims: Sequence[ClaimJson]) -> tuple[str, list[ClaimJson]] | None:
    """The number of the answer's quote sentence that the question counts, when the answer gave another.

    Args:
        question: the question as asked (only ``how many`` / ``how much`` questions are changed).
        answer: the draft's short answer.
        claims: the verified claims (report JSON: ``claim`` and ``citations`` with ``quote``).

    Returns:
        ``(answer, claims)``: the number as the quote writes it with the words after it that share
        a stem (first four letters) with the question's words (``3,677 seated``), and the claims
        with the one it came from restated as its quote's sentence; or None.
    """
    if expected_kind(question) != "number":
        return None
    number = number_elsewhere(question, answer, claims)
    if number is None:
        return None
    asked = {w[:4] for w in re.findall(r"[a-z]+", normalize_text(question).lower()) if len(w) >= 4}
    for index, claim in enumerate(claims):
        for citation in claim.get("citations") or []:
            for sentence in split_sentences(normalize_text(str(citation.get("quote", "")))):
                found = re.search(rf"(?<![\d,.]){re.escape(number)}(?![\d,])((?:\s+[a-z][\w'-]*){{0,2}})", sentence)
                if found is None:
                    continue
                after = []
                for word in found.group(1).split():
                    if len(word) < 4 or word[:4] not in asked:
                        break
                    after.append(word)
                restated = list(claims)
                restated[index] = ClaimJson(claim=sentence, citations=claim["citations"],
                                            verification=claim["verification"])
                return " ".join([number, *after]), restated
    return None


def renamed_answer(question: str, answer: str, claims: Sequence[ClaimJson],
                   chunks: Sequence[ChunkRecord]) -> tuple[str, list[ClaimJson]] | None:
    """The name a shown chunk ties the question's years to, for a question asking a former name.

    Args:
        question: the question as asked (only questions asking what something was known as,
            called, named, renamed or titled, with a year, are changed).
        answer: the draft's short answer.
        claims: the verified claims (report JSON).
        chunks: the chunks shown to the model (``ChunkRecord``: ``chunk_id``, ``text``, ``title``…).

    Returns:
        ``(answer, claims)``: the name (``North Atlantic Conference``) and the claims with the
        tying sentence first, cited from its chunk and verified as exact text; or None when the
        question asks no name, no chunk ties its years to another name, or the sentence is not
        exact chunk text.
    """
    if not asks_name(question) or is_yes_no(answer):
        return None
    found = tie(question, answer, [str(c.get("text", "")) for c in chunks])
    if found is None:
        return None
    name, index, sentence = found
    citation = chunk_citation(chunks[index], sentence)
    if citation is None:
        return None
    added: ClaimJson = {"claim": sentence, "citations": [citation], "verification": {
        "quotes_verified": True, "grounded": True,
        "grounding_reason": f"added by code: the sentence of {citation['title'] or 'a shown chunk'} that ties the "
                            f"question's years to {name}",
        "cross_check_passed": None, "origins": [citation["origin"]]}}
    return name, [added, *claims]


__all__ = ["counted_answer", "narrower_answer", "renamed_answer"]
