"""The llama.cpp server wrapper against the real ``llama_cpp.server`` and the real 0.5B model."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import openai
from openai.types.chat import ChatCompletionMessageParam
import pytest
from pydantic import BaseModel, ConfigDict

from ditto_nb.errors import ConfigError, ModelTransportError
from ditto_nb.local_model import LocalModelServer, ensure_local_provider, running_servers, stop_local_server
from ditto_nb.runtime.config import RuntimeConfig, parse_runtime_config
from ditto_nb.runtime.defaults import DEFAULT_CONFIG_YAML

TEST_PORT = 18766  # not the default 8766, so a developer's running server is never stopped


class CityFact(BaseModel):
    model_config = ConfigDict(extra="forbid")
    city: str
    population_millions: float


def _config(port: int) -> RuntimeConfig:
    text = f"""
model: {{provider: small, model: qwen2.5-coder-0.5b-instruct}}
providers:
  small:
    base_url: "http://127.0.0.1:{port}/v1"
    model: qwen2.5-coder-0.5b-instruct
    structured_output: json_object_schema
    launch: {{kind: llama-cpp, profile: local-small, port: {port}}}
  remote: {{base_url: "https://api.example.invalid/v1", model: m, structured_output: json_schema}}
"""
    return parse_runtime_config(text, {})


def test_non_launch_provider_returns_configured_base_url() -> None:
    config = parse_runtime_config(DEFAULT_CONFIG_YAML, {})
    assert ensure_local_provider(config, "openai") == "https://api.openai.com/v1"
    assert ensure_local_provider(_config(TEST_PORT), "remote") == "https://api.example.invalid/v1"
    assert TEST_PORT not in running_servers()
    with pytest.raises(ConfigError, match="unknown provider"):
        ensure_local_provider(config, "nope")


def test_command_line_uses_documented_flags(tmp_path: Path) -> None:
    server = LocalModelServer("local-small", port=TEST_PORT, n_ctx=4096, threads=2, log_path=tmp_path / "s.log")
    argv = server.command(tmp_path / "m.gguf")
    pairs = dict(zip(argv[3::2], argv[4::2], strict=True))
    assert argv[1:3] == ["-m", "llama_cpp.server"]
    assert pairs == {
        "--model": str(tmp_path / "m.gguf"),
        "--model_alias": "qwen2.5-coder-0.5b-instruct",
        "--host": "127.0.0.1",
        "--port": str(TEST_PORT),
        "--n_ctx": "4096",
        "--n_threads": "2",
        "--n_threads_batch": "2",
        "--seed": "0",
        "--chat_format": "chatml",
        "--logits_all": "False",
        "--n_batch": "128",
        "--cache": "True",
        "--cache_type": "ram",
        "--cache_size": str(512 * 1024 * 1024),
    }
    env = server.environment()
    if "OMP_WAIT_POLICY" in os.environ:
        assert env["OMP_WAIT_POLICY"] == os.environ["OMP_WAIT_POLICY"]
    else:
        assert env["GOMP_SPINCOUNT"] == os.environ.get("GOMP_SPINCOUNT", "10000") and "OMP_WAIT_POLICY" not in env
    assert server.base_url == f"http://127.0.0.1:{TEST_PORT}/v1"


@pytest.mark.local_model
def test_start_failure_reports_log_tail(tmp_path: Path) -> None:
    bad = tmp_path / "not-a-model.gguf"
    bad.write_bytes(b"this is not gguf")
    server = LocalModelServer(
        "local-small", port=TEST_PORT + 1, model_path=bad, log_path=tmp_path / "bad.log", start_timeout_seconds=60
    )
    with pytest.raises(ModelTransportError) as info:
        server.start()
    assert "exited during start-up: exit code" in str(info.value)
    assert info.value.retryable is False
    assert str(tmp_path / "bad.log") in str(info.value)
    assert server.pid is None


@pytest.fixture(scope="module")
def small_server() -> Iterator[str]:
    base_url = ensure_local_provider(_config(TEST_PORT), "small")
    yield base_url
    assert stop_local_server(TEST_PORT)


@pytest.mark.local_model
def test_real_small_model_structured_output_is_valid_and_repeatable(small_server: str) -> None:
    """One real structured call on llama.cpp, twice: valid JSON for the schema, same bytes."""
    assert small_server == f"http://127.0.0.1:{TEST_PORT}/v1"
    client = openai.OpenAI(base_url=small_server, api_key="local", timeout=60)
    messages: list[ChatCompletionMessageParam] = [
        {"role": "system", "content": "Extract facts. Answer with one JSON object."},
        {"role": "user", "content": "Lyon is a French city with about 0.52 million inhabitants."},
    ]
    schema = CityFact.model_json_schema()
    contents = []
    started = time.monotonic()
    for _ in range(2):
        reply = client.chat.completions.create(
            model="qwen2.5-coder-0.5b-instruct",
            messages=messages,
            temperature=0.0,
            seed=0,
            max_tokens=64,
            # llama.cpp's schema-constrained mode; the SDK's types only know OpenAI's variants.
            extra_body={"response_format": {"type": "json_object", "schema": schema}},
        )
        choice = reply.choices[0]
        assert choice.finish_reason == "stop"
        assert choice.message.content is not None
        contents.append(choice.message.content)
    assert time.monotonic() - started < 60
    fact = CityFact.model_validate(json.loads(contents[0]))
    assert "Lyon" in fact.city
    assert contents[1] == contents[0]


@pytest.mark.local_model
def test_running_server_is_reused_and_foreign_alias_refused(small_server: str, tmp_path: Path) -> None:
    started = running_servers()[TEST_PORT]
    assert started.pid is not None and started.reused is False
    second = LocalModelServer("local-small", port=TEST_PORT, log_path=tmp_path / "second.log").start()
    assert second.reused is True and second.pid is None
    assert not (tmp_path / "second.log").exists()
    # The analyst is told which server answers: started here (with its log) or reused (whose).
    assert started.describe().startswith(f"model server: started llama.cpp on 127.0.0.1:{TEST_PORT}")
    assert f"pid {started.pid}" in second.describe() and "reused" in second.describe()
    # Asking the same port for another model is refused rather than silently served by the wrong one.
    with pytest.raises(ConfigError, match="not 'qwen2.5-coder-1.5b-instruct'"):
        LocalModelServer("local", port=TEST_PORT, log_path=tmp_path / "third.log").start()
    # The registry hands back the same server object for the same provider.
    assert ensure_local_provider(_config(TEST_PORT), "small") == small_server
    assert running_servers()[TEST_PORT] is started
