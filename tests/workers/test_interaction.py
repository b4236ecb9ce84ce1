"""Interaction Worker: dispatch, ToolNotFound, ToolFailed wrapping, dispatch counts."""

from __future__ import annotations

from typing import Any

import pytest

from ditto_nb.errors import FetchError, InvalidRequest, ToolFailed, ToolNotFound
from ditto_nb.runtime.capabilities import INTERACTION_ACT_TOOL
from ditto_nb.workers.interaction import create_interaction_worker


async def add(a: int, b: int) -> int:
    return a + b


async def fetch(url: str) -> dict[str, Any]:
    raise FetchError(f"cannot read {url}", failure="http-403")


async def broken() -> None:
    raise ValueError("boom")


async def test_dispatch_and_counts() -> None:
    worker = create_interaction_worker({"add": add, "fetch": fetch})
    assert await worker.execute(INTERACTION_ACT_TOOL, {"tool": "add", "args": {"a": 2, "b": 3}}) == 5
    assert await worker.execute(INTERACTION_ACT_TOOL, {"tool": "add", "args": {"a": -1, "b": 1}}) == 0
    with pytest.raises(ToolFailed):
        await worker.execute(INTERACTION_ACT_TOOL, {"tool": "fetch", "args": {"url": "https://x.test/"}})
    assert worker.dispatches == {"add": 2, "fetch": 1}


async def test_unknown_tool() -> None:
    worker = create_interaction_worker({"add": add})
    with pytest.raises(ToolNotFound, match="'search'.*add"):
        await worker.execute(INTERACTION_ACT_TOOL, {"tool": "search", "args": {}})
    assert worker.dispatches == {}


async def test_ditto_error_is_wrapped_with_cause() -> None:
    worker = create_interaction_worker({"fetch": fetch})
    with pytest.raises(ToolFailed) as info:
        await worker.execute(INTERACTION_ACT_TOOL, {"tool": "fetch", "args": {"url": "https://x.test/"}})
    assert info.value.tool == "fetch"
    assert isinstance(info.value.cause, FetchError) and info.value.cause.failure == "http-403"
    assert info.value.__cause__ is info.value.cause


async def test_plain_exception_and_bad_arguments_are_wrapped() -> None:
    worker = create_interaction_worker({"broken": broken, "add": add})
    with pytest.raises(ToolFailed, match="ValueError: boom"):
        await worker.execute(INTERACTION_ACT_TOOL, {"tool": "broken"})
    with pytest.raises(ToolFailed) as info:
        await worker.execute(INTERACTION_ACT_TOOL, {"tool": "add", "args": {"a": 1}})
    assert isinstance(info.value.cause, TypeError)


async def test_register_and_malformed_input() -> None:
    worker = create_interaction_worker({})
    worker.register("add", add)
    assert await worker.execute(INTERACTION_ACT_TOOL, {"tool": "add", "args": {"a": 1, "b": 1}}) == 2
    payload: object
    for payload in ({"args": {}}, {"tool": "add", "args": [1, 2]}, "add"):
        with pytest.raises(InvalidRequest):
            await worker.execute(INTERACTION_ACT_TOOL, payload)
    with pytest.raises(InvalidRequest):
        await worker.execute("MEMORY.GET", {"tool": "add"})
