"""The one model resolver: precedence, and the server started is the server called (issue 11)."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from ditto_nb.errors import ConfigError
from ditto_nb.runtime.config import parse_runtime_config
from ditto_nb.runtime.defaults import DEFAULT_CONFIG_YAML
from ditto_nb.runtime.model_choice import resolve_model

ENV = {"DITTO_WORKER_CONTEXT_REDIS_URL": "redis://127.0.0.1:6379/0"}


def _config():  # type: ignore[no-untyped-def]
    return parse_runtime_config(DEFAULT_CONFIG_YAML, ENV, source="test")


def test_local_small_starts_and_calls_the_same_server() -> None:
    resolved = resolve_model(_config(), "local-small")
    # open_task_app starts the server of config.model.provider: it must be the chosen provider.
    assert resolved.config.model is not None and resolved.config.model.provider == "local-small"
    launch = resolved.config.providers["local-small"].launch
    assert launch is not None and resolved.launches_server
    assert urlsplit(resolved.base_url).port == launch.port == 8766
    assert resolved.model == "qwen2.5-coder-0.5b-instruct"  # not model.model, which names 'local'


def test_precedence_explicit_then_recorded_then_yaml_then_provider() -> None:
    config = _config()
    assert resolve_model(config).selection() == {"provider": "local", "model": "qwen2.5-coder-1.5b-instruct"}
    recorded = {"provider": "ollama", "model": "recorded-model"}
    assert resolve_model(config, recorded=recorded).selection() == recorded
    assert resolve_model(config, "ollama", recorded=recorded).model == "recorded-model"
    assert resolve_model(config, "ollama", "explicit", recorded=recorded).model == "explicit"
    assert resolve_model(config, "openai", recorded=recorded).model == "gpt-4o-mini"


def test_unknown_provider_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="unknown provider 'nope'"):
        resolve_model(_config(), "nope")
