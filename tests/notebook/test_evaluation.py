"""SQuAD v1.1 answer metrics used by the evaluation notebook."""

from __future__ import annotations

import pytest

from ditto_nb.notebook.evaluation import contains_answer, normalize_answer, token_f1


def test_normalize_answer() -> None:
    assert normalize_answer("The  River Thames!") == "river thames"


@pytest.mark.parametrize(("prediction", "gold", "f1"), [
    ("the Seine", "Seine", 1.0),
    ("The river Seine flows through Paris.", "Seine", 2 * (1 / 5) * 1 / (1 / 5 + 1)),
    ("Thames", "Seine", 0.0),
    ("", "Seine", 0.0),
])
def test_token_f1(prediction: str, gold: str, f1: float) -> None:
    assert token_f1(prediction, gold) == pytest.approx(f1)


def test_contains_answer() -> None:
    assert contains_answer("It is about 777 kilometres long.", "about 777 kilometres")
    assert not contains_answer("It is 77 kilometres long.", "777 kilometres")
    assert not contains_answer("anything", "")
