"""Fixtures for the CLI tests: an in-process Typer app, a ditto.yaml pointing at the scripted
model and the real test Redis, and a rule-based scripted responder for the Web QA calls."""

from __future__ import annotations

from ditto_nb.patterns.web_qa.prompts import evidence_lines, purpose_of
import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from ditto_nb.cli import qa
from tests.fixtures.redis_fixtures import delete_keys
from ditto_nb.testing.scripted_model import ScriptedModel

SENTENCE = re.compile(r"[^.]*\.")


def _purpose(request: dict[str, Any]) -> str:
    return purpose_of(request["messages"])


def _chunks(request: dict[str, Any]) -> list[tuple[str, str]]:
    """``(label, text)`` of the chunk lines of the last user message."""
    return [(line.label, line.text) for line in evidence_lines(str(request["messages"][-1]["content"]))]


@dataclass
class AnswerScript:
    """A scripted model for Web QA that quotes the sentence naming ``needle`` (a real quote).

    Attributes:
        needle: the text the answer must contain (the gold answer of the question).
        seen: purposes of the calls received, in order.
    """

    needle: str
    seen: list[str] = field(default_factory=list)

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        purpose = _purpose(request)
        self.seen.append(purpose)
        chunks = _chunks(request)
        if purpose == "plan":
            # the user message is "Question: ..." then the JSON schema instruction
            question = str(request["messages"][-1]["content"]).removeprefix("Question: ").split("\n\n")[0]
            return {"normalized_question": question, "queries": [self.needle, "Eiffel Tower"],
                    "needs_clarification": False, "clarification": ""}
        if purpose == "select":
            return {"selected": [label for label, _ in chunks], "missing": [], "conflicts": []}
        if purpose in ("answer", "repair"):
            claims = []
            for label, text in chunks:
                for sentence in SENTENCE.findall(text):
                    if self.needle in sentence:
                        claims.append({"claim": f"The river is the {self.needle}.", "chunk_id": label,
                                       "quote": sentence.strip()})
                        break
            status = "answered" if claims else "insufficient-evidence"
            return {"status": status, "answer": f"The {self.needle}.", "claims": claims[:2]}
        if purpose in ("ground", "regrade"):
            count = len(re.findall(r"^\d+\. Claim:", str(request["messages"][-1]["content"]), re.M))
            return {"verdicts": [{"n": n, "supported": True, "reason": "quote states it"} for n in range(1, count + 1)]}
        raise AssertionError(f"unexpected purpose {purpose!r}")


@pytest.fixture
def cli_app() -> typer.Typer:
    """A Typer app with the Web QA commands registered (as ``ditto_nb.cli.main`` does)."""
    app = typer.Typer()
    qa.register(app)
    return app


@pytest.fixture
def runner() -> CliRunner:
    """Typer's in-process runner."""
    return CliRunner()


@pytest.fixture
def task_id(redis_url: str) -> Iterator[str]:
    """A unique task id; its Context keys in the test Redis are deleted after the test."""
    value = f"cli-{uuid.uuid4().hex[:12]}"
    yield value
    delete_keys(redis_url, f"*{value}*")


@pytest.fixture
def cli_config(tmp_path: Path, scripted_model: ScriptedModel, redis_url: str) -> Path:
    """A ditto.yaml whose default provider is the scripted model and whose Context is the test Redis."""
    path = tmp_path / "ditto.yaml"
    path.write_text(
        "model: {provider: scripted, model: scripted}\n"
        "providers:\n"
        f"  scripted: {{base_url: '{scripted_model.base_url}', model: scripted, structured_output: json_schema,"
        " timeout_seconds: 30}\n"
        f"context: {{redis_url: '{redis_url}', ttl_seconds: 600}}\n",
        encoding="utf-8",
    )
    return path
