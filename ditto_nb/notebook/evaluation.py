"""Answer scoring for batch evaluation: SQuAD v1.1 answer normalization, exact match and token F1.

Source: the official SQuAD v1.1 evaluation script (Rajpurkar et al., 2016), ``normalize_answer``
and ``f1_score``; HotpotQA uses the same answer metrics.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Iterable, Sequence

from ditto_nb.errors import ModelError

_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_answer(text: str) -> str:
    """Lower-case, drop punctuation and the articles a/an/the, collapse whitespace (SQuAD v1.1).

    Args:
        text: an answer.

    Returns:
        The normalized answer.
    """
    text = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    return " ".join(_ARTICLES.sub(" ", text).split())


def token_f1(prediction: str, gold: str) -> float:
    """Token-level F1 between a prediction and the gold answer (SQuAD v1.1).

    Args:
        prediction: the predicted answer text.
        gold: the gold answer.

    Returns:
        F1 in [0, 1].
    """
    pred, ref = normalize_answer(prediction).split(), normalize_answer(gold).split()
    common = sum((Counter(pred) & Counter(ref)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(ref)
    return 2 * precision * recall / (precision + recall)


def contains_answer(prediction: str, gold: str) -> bool:
    """True when the normalized gold answer occurs in the normalized prediction (a lenient
    correctness check for sentence-length answers).

    Args:
        prediction: the predicted answer text.
        gold: the gold answer.

    Returns:
        Whether the gold answer is contained.
    """
    needle = normalize_answer(gold)
    return bool(needle) and f" {needle} " in f" {normalize_answer(prediction)} "


def raise_if_model_failed_everywhere(errors: Sequence[BaseException | None]) -> None:
    """Fail a batch honestly: raise when *every* question failed with a transport or model error.

    A batch whose model is unreachable, crashed, or never produced valid output has measured
    nothing; it must not pass as "0 correct". Questions that ended with a task outcome (e.g.
    ``UngroundedAnswer``, ``insufficient-evidence``) are results and do not count here.

    Args:
        errors: per question, the error it ended with (None when it produced a report).

    Raises:
        ModelError: the first question's error (``ModelTransportError``, ``ModelServerCrashed``,
            ``ModelOutputInvalid``, ...), with a note saying every question failed.
    """
    if errors and all(isinstance(error, ModelError) for error in errors):
        first = errors[0]
        assert first is not None
        first.add_note(f"every one of the {len(errors)} questions failed with a model error; the batch measured nothing")
        raise first


def batch_errors(statuses: Iterable[object], messages: Iterable[object]) -> list[BaseException | None]:
    """Per row of a ``run_batch`` frame, the model error it ended with (for
    :func:`raise_if_model_failed_everywhere`).

    Args:
        statuses: the frame's ``status`` column (an answer status, ``checkpoint:<stage>``, or a
            typed error's class name).
        messages: the frame's ``error`` column (the error's message, ``""`` without one).

    Returns:
        Per row, the :class:`~ditto_nb.errors.ModelError` subclass named by ``status`` rebuilt
        with its message, or None for any other outcome (answers, task errors such as
        ``UngroundedAnswer``).
    """
    import ditto_nb.errors as errors

    out: list[BaseException | None] = []
    for status, message in zip(statuses, messages, strict=True):
        cls = getattr(errors, str(status), None)
        is_model = isinstance(cls, type) and issubclass(cls, ModelError)
        out.append(cls(str(message or status)) if is_model and cls is not None else None)
    return out


__all__ = ["batch_errors", "contains_answer", "normalize_answer", "raise_if_model_failed_everywhere", "token_f1"]
