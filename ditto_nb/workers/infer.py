"""The Infer Worker: ``INFER.REASONING.SAMPLE`` — one structured-output model call.

Talks to any OpenAI-compatible Chat Completions endpoint (OpenAI, vLLM, llama.cpp server,
Ollama, the scripted test server) with ``openai.AsyncOpenAI``. The expected output is a pydantic
model; its JSON schema is always put in the system message and, depending on the provider's
``structured_output`` mode (``json_schema``, ``json_object_schema``, ``json_object`` or ``none``;
the ``response_format`` each sends is tabled in :mod:`ditto_nb.workers.structured_output`), also
sent as ``response_format``.

The schema handling and JSON extraction live in :mod:`ditto_nb.workers.structured_output`
(re-exported here). Failures are typed and never mixed up: transport (connection, timeout, HTTP status) →
:class:`~ditto_nb.errors.ModelTransportError`; ``finish_reason == "length"`` →
:class:`~ditto_nb.errors.ModelOutputTruncated`; null content or a ``refusal`` →
:class:`~ditto_nb.errors.ModelRefusal`; empty, non-JSON or schema-invalid content →
:class:`~ditto_nb.errors.ModelOutputInvalid`. Every call (also a failed one) is recorded as a
:class:`CallRecord` in ``worker.calls``.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

import openai
from pydantic import BaseModel

from ditto_nb.errors import (
    ConfigError,
    InvalidRequest,
    ModelError,
    ModelOutputInvalid,
    ModelOutputTruncated,
    ModelRefusal,
    ModelTransportError,
)
from ditto_nb.runtime.capabilities import INFER_REASONING_SAMPLE
from ditto_nb.runtime.config import ProviderConfig, RuntimeConfig
from ditto_nb.runtime.limits import limited
from ditto_nb.workers.structured_output import (
    EXCERPT_CHARACTERS,
    decode_output,
    excerpt,
    with_schema,
    extract_json_object,
    response_format_for,
    schema_instruction,
)

PURPOSE_HEADER = "X-Ditto-Purpose"
"""HTTP header carrying the request's ``purpose`` (harmless to real providers; the scripted
model uses it to pick per-stage replies)."""

DUMMY_API_KEY = "not-needed"
"""API key sent to providers without ``api_key_env`` (local servers ignore it)."""

@dataclass(frozen=True)
class CallRecord:
    """One model call, as recorded by the Infer Worker.

    Attributes:
        provider: provider name (a key of ``RuntimeConfig.providers``).
        model: model name sent.
        purpose: the caller's label (stage), or None.
        prompt_tokens: prompt tokens reported by the server (0 when not reported).
        completion_tokens: completion tokens reported by the server (0 when not reported).
        seconds: wall time of the HTTP call including retries (seconds).
        finish_reason: the choice's finish_reason, or None when no completion arrived.
        error: the ditto error class name when the call failed, else None.
    """

    provider: str
    model: str
    purpose: str | None
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    finish_reason: str | None
    error: str | None = None


def _pick(payload: Mapping[str, Any], field: str, default: Any) -> Any:
    value = payload.get(field)
    return default if value is None else value


class InferWorker:
    """Serves ``INFER.REASONING.SAMPLE`` (see the module docstring).

    Args:
        config: the runtime configuration (providers, default model).
        env: environment mapping for providers' ``api_key_env``.
        base_urls: provider name → base URL overriding the configured one (e.g. the URL of a
            server started by ``ditto_nb.local_model``).
        max_retries: retries of the openai client on connection errors, 408/409/429/5xx.
        diagnose: provider name → a check called when a call to that provider fails in transport;
            it returns a more precise error (e.g. ``ModelServerCrashed`` for a local server that
            exited) or None.

    Attributes:
        calls: every call made, in order (:class:`CallRecord`).
    """

    capabilities: frozenset[str] = frozenset({INFER_REASONING_SAMPLE})

    def __init__(
        self,
        config: RuntimeConfig,
        env: Mapping[str, str] = os.environ,
        base_urls: Mapping[str, str] | None = None,
        *,
        max_retries: int = 2,
        diagnose: Mapping[str, Callable[[], ModelError | None]] | None = None,
    ) -> None:
        self.config = config
        self.diagnose = dict(diagnose or {})
        self.env = env
        self.base_urls = dict(base_urls or {})
        self.max_retries = max_retries
        self.calls: list[CallRecord] = []
        # AsyncOpenAI's httpx pool is bound to an event loop: one client per (provider, loop).
        self._clients: dict[tuple[str, int], tuple[asyncio.AbstractEventLoop, openai.AsyncOpenAI]] = {}

    def base_url(self, provider: str) -> str:
        """The base URL used for a provider (override first, then the configuration)."""
        return self.base_urls.get(provider) or self.config.provider(provider).base_url

    def _client(self, name: str, provider: ProviderConfig) -> openai.AsyncOpenAI:
        loop = asyncio.get_running_loop()
        key = (name, id(loop))
        cached = self._clients.get(key)
        if cached is not None and cached[0] is loop:
            return cached[1]
        api_key = DUMMY_API_KEY
        if provider.api_key_env is not None:
            found = provider.api_key(self.env)
            if found is None:
                raise ConfigError(
                    f"providers.{name}.api_key_env: environment variable {provider.api_key_env} is not set"
                )
            api_key = found
        client = openai.AsyncOpenAI(
            base_url=self.base_url(name),
            api_key=api_key,
            max_retries=self.max_retries,
            timeout=provider.timeout_seconds,
        )
        self._clients[key] = (loop, client)
        return client

    async def execute(self, capability: str, input: Any) -> dict[str, Any]:
        """Make one model call.

        Args:
            capability: ``INFER.REASONING.SAMPLE``.
            input: ``{"provider"?, "model"?, "messages", "output_schema", "temperature"?,
                "seed"?, "max_tokens"?, "purpose"?}``; provider defaults to ``model.provider``,
                model to the provider's model (or ``model.model``); sampling settings default to
                the provider's.

        Returns:
            ``{"output": dict, "provider", "model", "prompt_tokens", "completion_tokens",
            "seconds", "finish_reason", "purpose"}``.

        Raises:
            InvalidRequest: another capability or malformed input.
            ConfigError: unknown provider, no model name, or the API key variable is unset.
            ModelTransportError, ModelOutputInvalid, ModelOutputTruncated, ModelRefusal: as in
                the module docstring.
        """
        if capability != INFER_REASONING_SAMPLE:
            raise InvalidRequest(f"the Infer Worker does not serve {capability!r}")
        if not isinstance(input, Mapping):
            raise InvalidRequest("INFER.REASONING.SAMPLE input must be a mapping")
        output_schema = input.get("output_schema")
        if not (isinstance(output_schema, type) and issubclass(output_schema, BaseModel)):
            raise InvalidRequest("INFER.REASONING.SAMPLE 'output_schema' must be a pydantic model class")
        messages = input.get("messages")
        if not isinstance(messages, list) or not all(isinstance(m, Mapping) for m in messages):
            raise InvalidRequest("INFER.REASONING.SAMPLE 'messages' must be a list of message mappings")
        name = input.get("provider") or self.config.model.provider
        provider = self.config.provider(name)
        model = input.get("model") or provider.model
        if model is None and name == self.config.model.provider:
            model = self.config.model.model
        if not model:
            raise ConfigError(f"providers.{name}.model: no model name configured or requested")
        purpose = input.get("purpose")
        return await self._call(
            name,
            provider,
            str(model),
            with_schema([dict(m) for m in messages], output_schema),
            output_schema,
            temperature=float(_pick(input, "temperature", provider.temperature)),
            seed=int(_pick(input, "seed", provider.seed)),
            max_tokens=int(_pick(input, "max_tokens", provider.max_tokens)),
            purpose=None if purpose is None else str(purpose),
        )

    async def _call(
        self,
        name: str,
        provider: ProviderConfig,
        model: str,
        messages: list[dict[str, Any]],
        output_schema: type[BaseModel],
        *,
        temperature: float,
        seed: int,
        max_tokens: int,
        purpose: str | None,
    ) -> dict[str, Any]:
        client = self._client(name, provider)
        response_format = response_format_for(provider.structured_output, output_schema)
        extra_body: dict[str, Any] = {} if response_format is None else {"response_format": response_format}
        headers = {PURPOSE_HEADER: purpose} if purpose else {}
        usage = (0, 0)
        finish_reason: str | None = None
        started = time.perf_counter()
        try:
            try:
                async with limited("endpoint", self.base_url(name)):  # shared Redis limit, if any
                    completion = await client.chat.completions.create(
                        model=model,
                        messages=cast(Any, messages),
                        temperature=temperature,
                        seed=seed,
                        max_tokens=max_tokens,
                        extra_body=extra_body or None,
                        extra_headers=headers or None,
                    )
            except openai.APIStatusError as exc:
                raise self._transport_error(
                    name, f"answered HTTP {exc.status_code}: {excerpt(str(exc.message))}"
                ) from exc
            except openai.APIConnectionError as exc:  # includes APITimeoutError
                raise self._transport_error(name, f"unreachable: {exc}") from exc
            except openai.APIError as exc:  # malformed response body and other protocol errors
                raise self._transport_error(name, f"protocol error: {exc}") from exc
            seconds = time.perf_counter() - started
            if completion.usage is not None:
                usage = (completion.usage.prompt_tokens or 0, completion.usage.completion_tokens or 0)
            if not completion.choices:
                raise ModelOutputInvalid(f"{name}/{model} returned no choices")
            choice = completion.choices[0]
            finish_reason = choice.finish_reason
            output = self._parse(name, model, choice, output_schema)
        except ModelError as exc:
            self.calls.append(
                CallRecord(name, model, purpose, usage[0], usage[1], time.perf_counter() - started, finish_reason, type(exc).__name__)
            )
            raise
        self.calls.append(CallRecord(name, model, purpose, usage[0], usage[1], seconds, finish_reason))
        return {
            "output": output,
            "provider": name,
            "model": model,
            "prompt_tokens": usage[0],
            "completion_tokens": usage[1],
            "seconds": seconds,
            "finish_reason": finish_reason,
            "purpose": purpose,
        }

    def _transport_error(self, name: str, what: str) -> ModelError:
        """The error for a failed HTTP exchange: the provider's diagnosis (e.g. the local server
        crashed) when it has one, else a :class:`ModelTransportError`."""
        check = self.diagnose.get(name)
        found = check() if check is not None else None
        if found is not None:
            return found
        return ModelTransportError(f"{name} ({self.base_url(name)}) {what}")

    @staticmethod
    def _parse(name: str, model: str, choice: Any, output_schema: type[BaseModel]) -> dict[str, Any]:
        message = choice.message
        if choice.finish_reason == "length":
            raise ModelOutputTruncated(f"{name}/{model} stopped at max_tokens (finish_reason=length)")
        refusal = getattr(message, "refusal", None)
        if refusal:
            raise ModelRefusal(f"{name}/{model} refused: {excerpt(str(refusal))}")
        if message.content is None:
            raise ModelRefusal(f"{name}/{model} returned no content (null)")
        return decode_output(message.content, output_schema, f"{name}/{model}")

    async def close(self) -> None:
        """Close the HTTP clients created on the running event loop (others are dropped)."""
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        clients, self._clients = self._clients, {}
        for owner, client in clients.values():
            if owner is loop:
                await client.close()


def create_infer_worker(
    config: RuntimeConfig,
    env: Mapping[str, str] = os.environ,
    base_urls: Mapping[str, str] | None = None,
    *,
    max_retries: int = 2,
    diagnose: Mapping[str, Callable[[], ModelError | None]] | None = None,
) -> InferWorker:
    """Create the Infer Worker.

    Args:
        config: the runtime configuration.
        env: environment mapping for API keys (``providers.<name>.api_key_env``).
        base_urls: provider name → base URL overrides (used by the local model launcher).
        max_retries: openai client retries on transport errors and retryable HTTP statuses.
        diagnose: provider name → check for a more precise transport error (see :class:`InferWorker`).

    Returns:
        A Worker serving ``INFER.REASONING.SAMPLE``; ``worker.calls`` lists every call.
    """
    return InferWorker(config, env, base_urls, max_retries=max_retries, diagnose=diagnose)


__all__ = [
    "DUMMY_API_KEY",
    "EXCERPT_CHARACTERS",
    "PURPOSE_HEADER",
    "CallRecord",
    "InferWorker",
    "create_infer_worker",
    "extract_json_object",
    "response_format_for",
    "schema_instruction",
]
