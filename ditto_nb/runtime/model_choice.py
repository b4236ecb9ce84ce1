"""The ONE place that resolves which model a task talks to (provider, model, base URL, server).

Used by the CLI (``ditto-nb ask/research/resume``), the notebooks (``open_notebook_env``) and
the API (``resume_research``). Precedence, first match wins:

provider
    1. the explicit choice (``--provider``, a notebook/API argument);
    2. the model recorded with the task (``task.json``; a resume keeps its model);
    3. ``model.provider`` of ``ditto.yaml``.
model
    1. the explicit choice (``--model``);
    2. the recorded model, when the recorded provider is the chosen one;
    3. ``model.model`` of ``ditto.yaml``, when ``model.provider`` is the chosen provider;
    4. the chosen provider's own ``model`` in ``providers:``.
base URL and local server
    the chosen provider's ``base_url``; when it has ``launch``, the returned configuration makes
    it the default provider, which is the one :func:`ditto_nb.patterns.common.open_task_app`
    starts — so the server started is always the server called (``--provider local-small``
    starts and calls port 8766, never 8765).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ditto_nb.errors import ConfigError
from ditto_nb.runtime.config import ModelSelection, RuntimeConfig


@dataclass(frozen=True)
class ResolvedModel:
    """The model a task talks to.

    Attributes:
        provider: a key of ``config.providers``.
        model: the model name sent to it.
        base_url: the provider's OpenAI-compatible base URL.
        launches_server: True when the provider has ``launch`` (a local llama.cpp server).
        config: the configuration with ``model`` set to this choice (pass it to ``open_*``).
    """

    provider: str
    model: str
    base_url: str
    launches_server: bool
    config: RuntimeConfig

    def selection(self) -> dict[str, str]:
        """``{"provider", "model"}``, the ``model`` input of ``run_web_qa``/``run_research``."""
        return {"provider": self.provider, "model": self.model}


def resolve_model(
    config: RuntimeConfig,
    provider: str | None = None,
    model: str | None = None,
    *,
    recorded: Mapping[str, str] | None = None,
) -> ResolvedModel:
    """Resolve provider, model, base URL and local server (precedence: module docstring).

    Args:
        config: the loaded configuration.
        provider: explicit provider name, or None.
        model: explicit model name, or None.
        recorded: ``{"provider", "model"}`` recorded with the task, or None.

    Returns:
        The :class:`ResolvedModel`.

    Raises:
        ConfigError: no provider is chosen anywhere, the provider is not configured, or no
            model name can be found for it.
    """
    saved = dict(recorded or {})
    default = config.model
    name = provider or saved.get("provider") or (default.provider if default else None)
    if not name:
        raise ConfigError("no model provider: pass --provider or set model.provider in ditto.yaml")
    if name not in config.providers:
        known = ", ".join(sorted(config.providers))
        raise ConfigError(f"unknown provider {name!r}; configured providers: {known}")
    settings = config.providers[name]
    chosen = (
        model
        or (saved.get("model") if saved.get("provider") == name else None)
        or (default.model if default and default.provider == name else None)
        or settings.model
    )
    if not chosen:
        raise ConfigError(f"no model for provider {name!r}: pass --model or set providers.{name}.model")
    resolved = config.model_copy(update={"model": ModelSelection(provider=name, model=chosen)})
    return ResolvedModel(provider=name, model=chosen, base_url=settings.base_url,
                         launches_server=settings.launch is not None, config=resolved)


__all__ = ["ResolvedModel", "resolve_model"]
