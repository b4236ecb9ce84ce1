"""Build a :class:`~ditto_nb.runtime.config.RuntimeConfig` whose one provider is a ScriptedModel."""

from __future__ import annotations

from ditto_nb.runtime.config import ContextConfig, ModelSelection, ProviderConfig, RuntimeConfig, StructuredOutputMode
from ditto_nb.testing.scripted_model import ScriptedModel

SCRIPTED_PROVIDER = "scripted"
"""Provider name used by :func:`scripted_runtime_config`."""


def scripted_runtime_config(
    model: ScriptedModel,
    *,
    structured_output: StructuredOutputMode = "json_schema",
    redis_url: str | None = None,
    ttl_seconds: int = 3600,
    timeout_seconds: float = 30.0,
    max_tokens: int = 1024,
) -> RuntimeConfig:
    """Return a RuntimeConfig with one provider, ``scripted``, pointing at a started ScriptedModel.

    Args:
        model: a started :class:`ScriptedModel`.
        structured_output: the provider's structured-output mode.
        redis_url: ``context.redis_url`` (None → embedded Redis).
        ttl_seconds: ``context.ttl_seconds`` (seconds).
        timeout_seconds: per-request timeout of the provider (seconds).
        max_tokens: completion token limit (tokens).

    Returns:
        The validated configuration (no API key: a dummy key is used).
    """
    provider = ProviderConfig(
        base_url=model.base_url,
        model=model.model_name,
        structured_output=structured_output,
        timeout_seconds=timeout_seconds,
        max_tokens=max_tokens,
    )
    return RuntimeConfig(
        model=ModelSelection(provider=SCRIPTED_PROVIDER, model=model.model_name),
        providers={SCRIPTED_PROVIDER: provider},
        context=ContextConfig(redis_url=redis_url, ttl_seconds=ttl_seconds),
    )


__all__ = ["SCRIPTED_PROVIDER", "scripted_runtime_config"]
