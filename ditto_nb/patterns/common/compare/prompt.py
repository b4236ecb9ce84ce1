"""The shared part of the ``compare`` call's prompt: the question with each side's quotes, and the
rules by the answer form the question asks for. Web QA (``compare_messages`` in its prompts) and
deep research (:func:`ditto_nb.patterns.deep_research.prompts.compare_messages`) each wrap it in
their own message layout; the reply is a
:class:`~ditto_nb.patterns.common.compare.schema.SidesOutput`.
"""

from __future__ import annotations

from collections.abc import Sequence

from ditto_nb.patterns.common.compare.side_by_side import answer_form, asks_both

COMPARE_ANSWER = {
    "yes-no": "yes or no, as the two claims decide",
    "side": "only the name of {names}, as the question writes it, that the two claims show",
    "value": "only the few words that answer the question, the value both share (not a name of {names})",
}
"""What the answer of a comparison is, by :func:`~.side_by_side.answer_form` (also in Web QA's
answer rules for a comparison)."""
_SIDES_RULES = (
    "Compare the two from their quotes only. first: what the first one's quotes say about the fact "
    "the question compares, in a few words; second: the same for the second one. Then answer: "
    "{then}. status: answered when the two values decide the answer, else insufficient-evidence."
)


_BOTH_RULES = (
    "The question asks whether both have what it names. Judge each one from its own quotes only. "
    "first: yes, no or unclear for the first one, then a few words of its quotes: yes when they "
    "say it has what the question names, no when they say it is something else, unclear when "
    "they do not say; second: the same for the second one. Then answer: yes when both are yes, no "
    "when one is no. status: answered when the answer is yes or no, else insufficient-evidence."
)


def compare_request(question: str, sides: Sequence[tuple[str, Sequence[str]]]) -> tuple[str, str]:
    """The ``compare`` call's two parts, shared by Web QA and deep research (each wraps them in its
    own message layout).

    Args:
        question: the question (or research topic) as asked.
        sides: ``(side as the question writes it, its quotes)``, the question's order.

    Returns:
        ``(shown, rules)``: ``Question: …`` with each side's numbered quotes, and the rules
        (:data:`_BOTH_RULES` for a ``both`` question, else :data:`_SIDES_RULES` with the answer form).
    """
    names = [side for side, _ in sides]
    then = COMPARE_ANSWER[answer_form(question)].format(names=" or ".join(names))
    shown = "\n".join(f"{n}. {side}: " + " ".join(f'"{q}"' for q in quotes)
                      for n, (side, quotes) in enumerate(sides, 1))
    rules = _BOTH_RULES if asks_both(question) else _SIDES_RULES.format(then=then)
    return f"Question: {question}\nQuotes:\n{shown}", rules


__all__ = ["COMPARE_ANSWER", "compare_request"]
