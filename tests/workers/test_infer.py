"""Infer Worker against the scripted OpenAI-compatible server over real HTTP on 127.0.0.1."""

from __future__ import annotations

import json
import socket
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel, Field

from ditto_nb.errors import (
    ConfigError,
    ModelOutputInvalid,
    ModelOutputTruncated,
    ModelRefusal,
    ModelTransportError,
)
from ditto_nb.runtime.capabilities import INFER_REASONING_SAMPLE
from ditto_nb.runtime.config import RuntimeConfig
from ditto_nb.testing.scripted_model import ScriptedModel
from ditto_nb.workers.infer import create_infer_worker
from ditto_nb.workers.structured_output import with_schema

MakeConfig = Callable[..., RuntimeConfig]


class Answer(BaseModel):
    answer: str = Field(description="The answer text.")
    confidence: float = Field(ge=0, le=1)


def request(**extra: Any) -> dict[str, Any]:
    return {
        "messages": [{"role": "system", "content": "You answer."}, {"role": "user", "content": "Why is the sky blue?"}],
        "output_schema": Answer,
        "purpose": "plan",
        **extra,
    }


async def call(config: RuntimeConfig, **kw: Any) -> dict[str, Any]:
    worker = create_infer_worker(config, env={}, max_retries=kw.pop("max_retries", 0))
    try:
        result: dict[str, Any] = await worker.execute(INFER_REASONING_SAMPLE, request(**kw))
        return result
    finally:
        await worker.close()


async def test_plain_json_result_and_call_record(scripted_model: ScriptedModel, scripted_config: MakeConfig) -> None:
    scripted_model.enqueue({"answer": "Rayleigh scattering", "confidence": 0.9})
    worker = create_infer_worker(scripted_config(), env={}, max_retries=0)
    result = await worker.execute(INFER_REASONING_SAMPLE, request())
    assert result["output"] == {"answer": "Rayleigh scattering", "confidence": 0.9}
    assert result["provider"] == "scripted" and result["model"] == "scripted"
    assert result["finish_reason"] == "stop" and result["purpose"] == "plan"
    assert result["prompt_tokens"] > 10 and result["completion_tokens"] > 5
    assert 0 < result["seconds"] < 10
    [record] = worker.calls
    assert (record.provider, record.model, record.purpose, record.error) == ("scripted", "scripted", "plan", None)
    assert (record.prompt_tokens, record.completion_tokens) == (result["prompt_tokens"], result["completion_tokens"])
    assert record.seconds == result["seconds"]
    sent = scripted_model.requests[0]
    assert sent["temperature"] == 0.0 and sent["seed"] == 0 and sent["max_tokens"] == 1024
    await worker.close()


async def test_seconds_include_server_latency(scripted_model: ScriptedModel, scripted_config: MakeConfig) -> None:
    scripted_model.latency_seconds = 0.3
    scripted_model.enqueue({"answer": "x", "confidence": 0.5})
    result = await call(scripted_config())
    assert result["seconds"] >= 0.3


async def test_fenced_json_with_backticks_in_value(scripted_model: ScriptedModel, scripted_config: MakeConfig) -> None:
    value = "run ```print(1)``` then `ls` {braces}"
    scripted_model.enqueue("Sure! Here it is:\n```json\n" + json.dumps({"answer": value, "confidence": 1}) + "\n```\nHope it helps.")
    result = await call(scripted_config())
    assert result["output"] == {"answer": value, "confidence": 1.0}


async def test_prose_around_object_is_tolerated(scripted_model: ScriptedModel, scripted_config: MakeConfig) -> None:
    scripted_model.enqueue('I think {maybe} the result is {"answer": "blue", "confidence": 0.2} as asked.')
    assert (await call(scripted_config()))["output"] == {"answer": "blue", "confidence": 0.2}


@pytest.mark.parametrize(
    ("content", "excerpt"),
    [("", "empty"), ("   \n ", "empty"), ("The sky is blue because of scattering.", "The sky is blue"), ("[1, 2]", "[1, 2]")],
)
async def test_empty_or_non_json_is_output_invalid(
    scripted_model: ScriptedModel, scripted_config: MakeConfig, content: str, excerpt: str
) -> None:
    scripted_model.enqueue(content)
    with pytest.raises(ModelOutputInvalid, match=excerpt.replace("[", r"\[").replace("]", r"\]")):
        await call(scripted_config())


async def test_schema_invalid_is_output_invalid(scripted_model: ScriptedModel, scripted_config: MakeConfig) -> None:
    scripted_model.enqueue({"answer": "x", "confidence": 7})
    worker = create_infer_worker(scripted_config(), env={}, max_retries=0)
    with pytest.raises(ModelOutputInvalid, match=r"confidence.*less than or equal to 1.*'\{\"answer\""):
        await worker.execute(INFER_REASONING_SAMPLE, request())
    assert worker.calls[0].error == "ModelOutputInvalid" and worker.calls[0].completion_tokens > 0
    await worker.close()


async def test_first_object_matching_the_schema_wins(scripted_model: ScriptedModel, scripted_config: MakeConfig) -> None:
    # an outer object that does not decode, an inner object of another shape, then a valid one
    scripted_model.enqueue('{"note": {"answer": 3}, {"answer": "blue", "confidence": 0.4}')
    assert (await call(scripted_config()))["output"] == {"answer": "blue", "confidence": 0.4}


async def test_object_left_open_is_mended(scripted_model: ScriptedModel, scripted_config: MakeConfig) -> None:
    # an early stop after the last value (finish_reason stop, not length): json_repair closes it
    scripted_model.enqueue('{"answer": "blue", "confidence": 0.4')
    assert (await call(scripted_config()))["output"] == {"answer": "blue", "confidence": 0.4}


async def test_output_invalid_keeps_the_whole_reply(scripted_model: ScriptedModel, scripted_config: MakeConfig) -> None:
    reply = json.dumps({"answer": "x" * 600, "confidence": 7})
    scripted_model.enqueue(reply)
    with pytest.raises(ModelOutputInvalid) as caught:
        await call(scripted_config())
    assert caught.value.content == reply  # the message quotes ~200 characters; content is whole
    assert len(str(caught.value)) < len(reply)


async def test_length_is_truncated(scripted_model: ScriptedModel, scripted_config: MakeConfig) -> None:
    scripted_model.enqueue('{"answer": "the sky', finish_reason="length")
    with pytest.raises(ModelOutputTruncated):
        await call(scripted_config())


async def test_null_content_is_refusal(scripted_model: ScriptedModel, scripted_config: MakeConfig) -> None:
    scripted_model.enqueue(None)
    with pytest.raises(ModelRefusal, match="no content"):
        await call(scripted_config())


async def test_refusal_field_is_refusal(scripted_model: ScriptedModel, scripted_config: MakeConfig) -> None:
    scripted_model.enqueue(None, refusal="I can't help with that.")
    with pytest.raises(ModelRefusal, match="can't help"):
        await call(scripted_config())


async def test_http_500_is_transport_error_after_retries(scripted_model: ScriptedModel, scripted_config: MakeConfig) -> None:
    scripted_model.enqueue(None, status=500)
    scripted_model.enqueue(None, status=500)
    worker = create_infer_worker(scripted_config(), env={}, max_retries=1)
    with pytest.raises(ModelTransportError, match="HTTP 500") as info:
        await worker.execute(INFER_REASONING_SAMPLE, request())
    assert info.value.retryable is True
    assert scripted_model.call_count == 2  # one retry
    assert worker.calls[0].error == "ModelTransportError" and worker.calls[0].finish_reason is None
    await worker.close()


async def test_http_400_is_transport_error(scripted_model: ScriptedModel, scripted_config: MakeConfig) -> None:
    scripted_model.enqueue('{"answer": "x", "confidence": 0}', status=400)
    with pytest.raises(ModelTransportError, match="HTTP 400"):
        await call(scripted_config())


async def test_connection_refused_is_transport_error(scripted_config: MakeConfig) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: nothing listens there
    worker = create_infer_worker(scripted_config(), env={}, base_urls={"scripted": f"http://127.0.0.1:{port}/v1"}, max_retries=0)
    assert worker.base_url("scripted") == f"http://127.0.0.1:{port}/v1"
    with pytest.raises(ModelTransportError, match="unreachable"):
        await worker.execute(INFER_REASONING_SAMPLE, request())
    await worker.close()


async def test_timeout_is_transport_error(scripted_model: ScriptedModel, scripted_config: MakeConfig) -> None:
    scripted_model.enqueue({"answer": "late", "confidence": 0}, delay_seconds=1.5)
    with pytest.raises(ModelTransportError):
        await call(scripted_config(timeout_seconds=0.3))


async def test_base_urls_override(scripted_model: ScriptedModel) -> None:
    from ditto_nb.runtime.config import ModelSelection, ProviderConfig

    config = RuntimeConfig(
        model=ModelSelection(provider="local", model="m"),
        providers={"local": ProviderConfig(base_url="http://127.0.0.1:9/v1", structured_output="none")},
    )
    scripted_model.enqueue({"answer": "via override", "confidence": 0.1})
    worker = create_infer_worker(config, env={}, base_urls={"local": scripted_model.base_url}, max_retries=0)
    result = await worker.execute(INFER_REASONING_SAMPLE, request())
    assert result["output"]["answer"] == "via override" and result["model"] == "m"
    await worker.close()


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("json_schema", lambda s: {"type": "json_schema", "json_schema": {"name": "Answer", "schema": s, "strict": False}}),
        ("json_object_schema", lambda s: {"type": "json_object", "schema": s}),
        ("json_object", lambda s: {"type": "json_object"}),
        ("none", lambda s: None),
    ],
)
async def test_schema_sent_per_mode(
    scripted_model: ScriptedModel, scripted_config: MakeConfig, mode: str, expected: Callable[[dict[str, Any]], Any]
) -> None:
    scripted_model.enqueue({"answer": "a", "confidence": 0})
    await call(scripted_config(structured_output=mode))
    sent = scripted_model.requests[0]
    schema = Answer.model_json_schema()
    assert sent.get("response_format") == expected(schema)
    # the schema ends the prompt (after the user's text), so calls sharing a prefix keep sharing it
    assert sent["messages"][0] == {"role": "system", "content": "You answer."}
    user = sent["messages"][1]
    assert user["role"] == "user" and user["content"].startswith("Why is the sky blue?\n\n")
    assert user["content"].endswith(json.dumps(schema, ensure_ascii=False))


async def test_schema_system_message_inserted_when_no_user_text_ends_the_prompt(
    scripted_model: ScriptedModel, scripted_config: MakeConfig
) -> None:
    scripted_model.enqueue({"answer": "a", "confidence": 0})
    await call(scripted_config(), messages=[{"role": "assistant", "content": "hi"}])
    sent = scripted_model.requests[0]["messages"]
    assert sent[0]["role"] == "system" and "JSON schema" in sent[0]["content"] and sent[1]["content"] == "hi"


def test_calls_with_different_schemas_share_the_prompt_prefix() -> None:
    class Other(BaseModel):
        verdict: bool

    shared = [{"role": "system", "content": "You answer."}, {"role": "user", "content": "Chunks: [C1] text\nTask: a"}]
    first, second = with_schema(shared, Answer), with_schema(shared, Other)
    assert first[0] == second[0] == shared[0]
    assert first[1]["content"].startswith(shared[1]["content"]) and second[1]["content"].startswith(shared[1]["content"])
    assert first[1]["content"] != second[1]["content"]


def test_a_prompt_that_carries_its_schema_gets_no_second_copy() -> None:
    schema_text = json.dumps(Answer.model_json_schema(), ensure_ascii=False)
    carried = [{"role": "system", "content": f"Step a format: {schema_text}"}, {"role": "user", "content": "Task: a"}]
    assert with_schema(carried, Answer) == carried  # unchanged (and a copy)
    assert with_schema(carried, Answer) is not carried

    class Other(BaseModel):
        verdict: bool

    other = with_schema(carried, Other)  # a schema the prompt does not carry is appended as before
    assert other[1]["content"].startswith("Task: a\n\n") and other[1]["content"].endswith(
        json.dumps(Other.model_json_schema(), ensure_ascii=False))


async def test_responder_picks_reply_by_purpose(scripted_model: ScriptedModel, scripted_config: MakeConfig) -> None:
    scripted_model.responder = lambda req: {"answer": f"for {req['purpose']}", "confidence": 1} if req["purpose"] else None
    assert (await call(scripted_config(), purpose="review"))["output"]["answer"] == "for review"
    assert "purpose" not in scripted_model.requests[0]  # the recorded body is what was sent


async def test_api_key_env(scripted_model: ScriptedModel) -> None:
    from ditto_nb.runtime.config import ModelSelection, ProviderConfig

    config = RuntimeConfig(
        model=ModelSelection(provider="p", model="m"),
        providers={"p": ProviderConfig(base_url=scripted_model.base_url, api_key_env="DITTO_TEST_KEY")},
    )
    worker = create_infer_worker(config, env={}, max_retries=0)
    with pytest.raises(ConfigError, match="DITTO_TEST_KEY"):
        await worker.execute(INFER_REASONING_SAMPLE, request())
    assert scripted_model.call_count == 0
    scripted_model.enqueue({"answer": "a", "confidence": 0})
    keyed = create_infer_worker(config, env={"DITTO_TEST_KEY": "sk-test"}, max_retries=0)
    await keyed.execute(INFER_REASONING_SAMPLE, request())
    await keyed.close()


async def test_unknown_provider_is_config_error(scripted_config: MakeConfig) -> None:
    with pytest.raises(ConfigError, match="nope"):
        await call(scripted_config(), provider="nope")
