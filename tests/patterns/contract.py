"""One harness for both patterns, so the contract tests run unchanged on Web QA and deep research.

A :class:`PatternHarness` knows how to make a request on a sandbox web, run it once (optionally
stopping after a stage) and read its Memory. The scripted model answers per purpose (the only
stand-in); everything else is real (sandbox HTTPS web, Redis, SQLite).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ditto_nb.patterns.common import SearchSetup
from ditto_nb.runtime.config import RuntimeConfig
from ditto_nb.sandbox import SandboxWeb
from ditto_nb.testing.scripted_model import ScriptedModel
from ditto_nb.workers import open_task_store
from tests.patterns.deep_research import helpers as research
from tests.patterns.web_qa import helpers as web_qa


@dataclass
class PatternHarness:
    """How a contract test drives one pattern.

    Attributes:
        name: ``web_qa`` or ``deep_research``.
        stops: the ``stop_after`` points, in order (``round`` may repeat for research).
        plan_purpose: the ledger name of the first model call (``model:plan``).
        corpus: the sandbox pages.
        script: a fresh per-purpose responder.
        request: ``request(web, **changes)``.
        run: ``run(web, config, directory, request, model, stop_after)`` (sync).
    """

    name: str
    stops: tuple[str, ...]
    plan_purpose: str
    corpus: Callable[[], list[dict[str, Any]]]
    script: Callable[[], Any]
    request: Callable[..., Any]
    run: Callable[..., Any]

    def is_report(self, result: Any) -> bool:
        return hasattr(result, "model_dump")


def _web_qa_run(web: SandboxWeb, config: RuntimeConfig, directory: Path, request: Any, model: ScriptedModel,
                stop_after: str | None = None) -> Any:
    search = SearchSetup.from_sandbox(web, policy_overrides={"retries": 0, "connect_timeout": 2.0, "read_timeout": 5.0})
    kwargs = {"stop_after": stop_after} if stop_after else {}
    return asyncio.run(web_qa.run_once(directory, request, config, search, model, **kwargs))


def _research_run(web: SandboxWeb, config: RuntimeConfig, directory: Path, request: Any, model: ScriptedModel,
                  stop_after: str | None = None) -> Any:
    del model
    return research.run(web, config, directory, request, stop_after)


def _web_qa_request(web: SandboxWeb, **changes: Any) -> Any:
    return web_qa.make_request(web, task_id="contract", **changes)


def _research_request(web: SandboxWeb, **changes: Any) -> Any:
    return research.make_request(web, **changes)


HARNESSES = {
    "web_qa": PatternHarness("web_qa", ("plan", "searched", "read", "selected", "report"), "plan",
                             lambda: list(web_qa.CORPUS), web_qa.Script, _web_qa_request, _web_qa_run),
    "deep_research": PatternHarness("deep_research", ("plan", "round", "round", "report"), "research-plan",
                                    research.bridge_corpus, research.bridge_script, _research_request, _research_run),
}


def memory(directory: Path, namespace: str) -> dict[str, Any]:
    """Every Memory row of the task namespace, ``{key: value}`` (through the MemoryStore)."""

    async def read() -> dict[str, Any]:
        store = open_task_store(directory)
        await store.setup()
        try:
            return dict(await store.items(namespace))
        finally:
            await store.close()

    return asyncio.run(read())


def edit_memory(directory: Path, namespace: str, put: dict[str, Any], delete: tuple[str, ...] = ()) -> None:
    """Overwrite and delete Memory rows of the task (to simulate a history written by other code)."""

    async def write() -> None:
        store = open_task_store(directory)
        await store.setup()
        try:
            for key, value in put.items():
                await store.put(namespace, key, value)
            for key in delete:
                await store.delete(namespace, key)
        finally:
            await store.close()

    asyncio.run(write())


def strip_times(value: Any) -> Any:
    """Drop ``generated_at``/``fetched_at``/``at`` recursively."""
    if isinstance(value, dict):
        return {k: strip_times(v) for k, v in value.items() if k not in ("generated_at", "fetched_at", "at")}
    if isinstance(value, list):
        return [strip_times(v) for v in value]
    return value
