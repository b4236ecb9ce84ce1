"""The place a quote names inside the region the answer only repeats (pure, no model call).

"The director of "Big Stone Gap" is based in what New York city?" was answered "New York City"
(measured on a real wiki) while the quote the claim stood on says "… based in Greenwich Village,
New York City." An answer whose every content word is already in the question gives nothing new
(:func:`~ditto_nb.patterns.web_qa.answer_checks.repeats_question`, a repair reason); when a
verified quote writes the answer right after a capitalized name and a comma (the "Place,
Region" form of addresses and places: "Brooklyn, New York", "Harris County, Texas"), that name
with the answer is what was asked. The claim that quote stands on is restated as the quote's
sentence (exact page text, so it states the new answer; the grounding review already passed it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ditto_nb.patterns.web_qa.answer_checks import expected_kind, is_yes_no, repeats_question
from ditto_nb.patterns.web_qa.stage_models import ClaimJson
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


__all__ = ["narrower_answer"]
