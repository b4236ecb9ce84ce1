"""Configuration: ditto.yaml loading, ${VAR} resolution, error key paths, Redis URL override."""

from __future__ import annotations

from pathlib import Path

import pytest

from ditto_nb.errors import ConfigError
from ditto_nb.runtime import (
    DEFAULT_CONFIG_YAML,
    RuntimeConfig,
    load_runtime_config,
    load_runtime_config_file,
    parse_runtime_config,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
COMMITTED = REPO_ROOT / "ditto.yaml"

MINIMAL = """\
model: {provider: local, model: m1}
providers:
  local:
    base_url: "http://127.0.0.1:${LOCAL_PORT}/v1"
    api_key_env: LOCAL_KEY
    structured_output: json_object
context:
  redis_url: "${DITTO_WORKER_CONTEXT_REDIS_URL}"
  ttl_seconds: 60
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "ditto.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_committed_ditto_yaml_loads_with_an_empty_env() -> None:
    config = load_runtime_config_file(COMMITTED, {})
    assert (config.model.provider, config.model.model) == ("local", "qwen2.5-coder-1.5b-instruct")
    assert set(config.providers) == {"local", "local-small", "openai", "ollama"}
    local = config.providers["local"]
    assert local.base_url == "http://127.0.0.1:8765/v1"
    assert local.structured_output == "json_object_schema"
    assert local.launch is not None and (local.launch.kind, local.launch.profile, local.launch.port) == (
        "llama-cpp",
        "local",
        8765,
    )
    small = config.providers["local-small"]
    assert small.launch is not None and (small.launch.profile, small.launch.port) == ("local-small", 8766)
    assert small.model == "qwen2.5-coder-0.5b-instruct"
    openai = config.providers["openai"]
    assert (openai.api_key_env, openai.structured_output, openai.launch) == ("OPENAI_API_KEY", "json_schema", None)
    assert config.providers["ollama"].base_url == "http://127.0.0.1:11434/v1"
    assert config.providers["ollama"].structured_output == "json_object"
    assert config.context.redis_url is None  # unset ${DITTO_WORKER_CONTEXT_REDIS_URL} → embedded
    assert config.context.ttl_seconds == 3600
    assert config.search.provider == "mediawiki"
    assert config.provider() is local
    assert openai.api_key({}) is None and openai.api_key({"OPENAI_API_KEY": "sk-test"}) == "sk-test"


def test_committed_file_has_no_secrets() -> None:
    text = COMMITTED.read_text(encoding="utf-8")
    assert "sk-" not in text and "api_key:" not in text


def test_packaged_default_matches_committed_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    committed = load_runtime_config_file(COMMITTED, {})
    assert parse_runtime_config(DEFAULT_CONFIG_YAML, {}) == committed
    monkeypatch.chdir(tmp_path)  # no ditto.yaml here → the packaged default
    assert load_runtime_config(env={}) == committed


def test_load_runtime_config_prefers_cwd_then_explicit_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path, MINIMAL)
    monkeypatch.chdir(tmp_path)
    config = load_runtime_config(env={"LOCAL_PORT": "9000"})
    assert config.providers["local"].base_url == "http://127.0.0.1:9000/v1"
    explicit = load_runtime_config(env={}, path=COMMITTED)
    assert explicit.providers["local"].base_url == "http://127.0.0.1:8765/v1"


def test_variables_are_resolved_from_env(tmp_path: Path) -> None:
    config = load_runtime_config_file(
        _write(tmp_path, MINIMAL), {"LOCAL_PORT": "8123", "DITTO_WORKER_CONTEXT_REDIS_URL": "redis://127.0.0.1:6379/3"}
    )
    assert isinstance(config, RuntimeConfig)
    assert config.providers["local"].base_url == "http://127.0.0.1:8123/v1"
    assert config.providers["local"].api_key_env == "LOCAL_KEY"  # the name, never the secret
    assert config.context.redis_url == "redis://127.0.0.1:6379/3"
    assert config.context.ttl_seconds == 60
    # defaults
    local = config.providers["local"]
    assert (local.temperature, local.seed, local.max_tokens, local.timeout_seconds) == (0.0, 0, 1024, 120.0)


def test_unset_variable_outside_redis_url_names_variable_and_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"providers\.local\.base_url: environment variable LOCAL_PORT is not set"):
        load_runtime_config_file(_write(tmp_path, MINIMAL), {})


@pytest.mark.parametrize("value", [None, ""])
def test_unset_or_empty_redis_variable_means_not_configured(tmp_path: Path, value: str | None) -> None:
    env = {"LOCAL_PORT": "1"} if value is None else {"LOCAL_PORT": "1", "DITTO_WORKER_CONTEXT_REDIS_URL": value}
    assert load_runtime_config_file(_write(tmp_path, MINIMAL), env).context.redis_url is None


def test_env_overrides_a_literal_redis_url(tmp_path: Path) -> None:
    text = MINIMAL.replace('"${DITTO_WORKER_CONTEXT_REDIS_URL}"', '"redis://10.0.0.1:6379/0"')
    path = _write(tmp_path, text)
    assert load_runtime_config_file(path, {"LOCAL_PORT": "1"}).context.redis_url == "redis://10.0.0.1:6379/0"
    overridden = load_runtime_config_file(path, {"LOCAL_PORT": "1", "DITTO_WORKER_CONTEXT_REDIS_URL": "redis://127.0.0.1:6379/9"})
    assert overridden.context.redis_url == "redis://127.0.0.1:6379/9"
    # ...also when the file has no context section at all
    no_context = MINIMAL.split("context:")[0]
    config = load_runtime_config_file(_write(tmp_path, no_context), {"LOCAL_PORT": "1", "DITTO_WORKER_CONTEXT_REDIS_URL": "redis://x:1"})
    assert config.context.redis_url == "redis://x:1"


@pytest.mark.parametrize(
    ("old", "new", "key_path"),
    [
        ("base_url:", "base_ur1:", r"providers\.local\.base_ur1: Extra inputs are not permitted"),
        ("structured_output: json_object", "structured_output: xml", r"providers\.local\.structured_output"),
        ("ttl_seconds: 60", "ttl_seconds: soon", r"context\.ttl_seconds"),
        ("ttl_seconds: 60", "ttl_seconds: 60\n  colour: red", r"context\.colour"),
        ("model: {provider: local, model: m1}", "model: {provider: local}", r"model\.model: Field required"),
        ("model: {provider: local, model: m1}", "model: {provider: nope, model: m1}", r"model\.provider 'nope'"),
    ],
)
def test_bad_key_is_named(tmp_path: Path, old: str, new: str, key_path: str) -> None:
    assert old in MINIMAL
    with pytest.raises(ConfigError, match=key_path):
        load_runtime_config_file(_write(tmp_path, MINIMAL.replace(old, new)), {"LOCAL_PORT": "1"})


def test_missing_base_url_is_named(tmp_path: Path) -> None:
    text = MINIMAL.replace('    base_url: "http://127.0.0.1:${LOCAL_PORT}/v1"\n', "")
    with pytest.raises(ConfigError, match=r"providers\.local\.base_url: Field required"):
        load_runtime_config_file(_write(tmp_path, text), {})


def test_launch_and_search_sections_are_validated(tmp_path: Path) -> None:
    committed = COMMITTED.read_text(encoding="utf-8")
    with pytest.raises(ConfigError, match=r"providers\.local\.launch\.port"):
        load_runtime_config_file(_write(tmp_path, committed.replace("port: 8765}", "port: 99999}")), {})
    with pytest.raises(ConfigError, match=r"search\.brave_key: Extra inputs"):
        load_runtime_config_file(_write(tmp_path, committed + "  brave_key: abc\n"), {})
    with pytest.raises(ConfigError, match=r"search\.provider"):
        load_runtime_config_file(_write(tmp_path, committed.replace("provider: mediawiki", "provider: bing")), {})


def test_unreadable_or_malformed_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_runtime_config_file(tmp_path / "absent.yaml", {})
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_runtime_config_file(_write(tmp_path, "model: [unclosed"), {})
    with pytest.raises(ConfigError, match="top level must be a mapping"):
        load_runtime_config_file(_write(tmp_path, "- a\n- b\n"), {})


def test_unknown_provider_lookup() -> None:
    config = load_runtime_config_file(COMMITTED, {})
    with pytest.raises(ConfigError, match="providers.vllm"):
        config.provider("vllm")
