"""Answer scores of the benchmarks: the official SQuAD v1.1 / HotpotQA normalisation, EM, token F1, containment.

- :func:`normalize_answer`: lower-case, drop punctuation, drop the articles a/an/the, collapse
  whitespace (SQuAD v1.1 ``evaluate-v1.1.py``; HotpotQA's ``hotpot_evaluate_v1.py`` uses the same).
- :func:`exact_match`: normalized strings equal.
- :func:`token_f1`: F1 over the multiset of normalized tokens, with HotpotQA's rule for yes/no:
  when either side normalizes to ``yes``, ``no`` or ``noanswer`` and the two differ, F1 is 0
  (``hotpot_evaluate_v1.f1_score``). For other answers this is the SQuAD v1.1 F1.
- :func:`contains`: the normalized gold occurs in the normalized answer as whole tokens (lenient:
  the kit answers in sentences, HotpotQA gold answers are short spans).
"""

from __future__ import annotations

import collections
import re
import string

_PUNCTUATION = frozenset(string.punctuation)
_SPECIAL = ("yes", "no", "noanswer")


def normalize_answer(text: str) -> str:
    """SQuAD v1.1 / HotpotQA normalization: lower-case, no punctuation, no articles, single spaces."""
    text = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    return " ".join(re.sub(r"\b(a|an|the)\b", " ", text).split())


def exact_match(prediction: str, gold: str) -> bool:
    """True when the normalized strings are equal."""
    return normalize_answer(prediction) == normalize_answer(gold)


def token_f1(prediction: str, gold: str) -> float:
    """HotpotQA token F1 (SQuAD v1.1 F1, but 0 when a yes/no/noanswer side differs)."""
    pred, truth = normalize_answer(prediction), normalize_answer(gold)
    if (pred in _SPECIAL or truth in _SPECIAL) and pred != truth:
        return 0.0
    pred_tokens, truth_tokens = pred.split(), truth.split()
    same = sum((collections.Counter(pred_tokens) & collections.Counter(truth_tokens)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred_tokens), same / len(truth_tokens)
    return 2 * precision * recall / (precision + recall)


def contains(answer: str, gold: str) -> bool:
    """True when the normalized gold appears in the normalized answer as whole tokens."""
    g, a = normalize_answer(gold), normalize_answer(answer)
    return bool(g) and f" {g} " in f" {a} "


def is_yes_no(gold: str) -> bool:
    """True when the gold answer is ``yes`` or ``no`` (after normalization)."""
    return normalize_answer(gold) in ("yes", "no")


__all__ = ["contains", "exact_match", "is_yes_no", "normalize_answer", "token_f1"]
