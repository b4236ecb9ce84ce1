"""Is the local llama.cpp server able to work? The start-up probe and crash reports.

- :func:`run_probe`: one short real chat completion whose prompt is several hundred tokens, so the
  matrix-multiplication kernels of prompt processing run (a server built for CPU instructions this
  machine cannot execute answers ``GET /v1/models`` and dies with SIGILL on the first real
  prompt). A nonce opens the prompt so the server's prompt cache cannot skip the work.
- :func:`crash_error`: the :class:`~ditto_nb.errors.ModelServerCrashed` for a server that exited:
  exit code or signal, the log's path and last lines, and for SIGILL how to reinstall the portable
  build (:data:`PORTABLE_CMAKE_ARGS`, the flags ``scripts/setup.sh`` builds with).
"""

from __future__ import annotations

import signal
import time
import uuid
from pathlib import Path
from typing import Final

import httpx

from ditto_nb.errors import ModelServerCrashed, ModelTransportError

PORTABLE_CMAKE_ARGS: Final = (
    "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON "
    "-DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF -DLLAVA_BUILD=OFF"
)
"""CMake flags of the portable llama.cpp build (no ``-march=native``, never AMX, AVX2/FMA/F16C
baseline, no AVX-512; ``LLAVA_BUILD=OFF``: text only, no multimodal ``mtmd`` library, which
llama-cpp-python imports only for vision chat handlers). ``scripts/setup.sh`` uses exactly these (a test compares them)."""

REINSTALL_HELP: Final = (
    "Reinstall a portable llama.cpp build: from the repository run `bash scripts/setup.sh .venv local`, or "
    f'CMAKE_ARGS="{PORTABLE_CMAKE_ARGS}" pip install --force-reinstall --no-deps --no-cache-dir '
    "--no-binary llama-cpp-python 'llama-cpp-python[server]==0.3.36'"
)
"""What to do after a SIGILL: the installed build uses instructions this CPU cannot run."""

LOG_TAIL_LINES: Final = 12
"""How many of the server log's last lines a crash report quotes."""

PROBE_MAX_TOKENS: Final = 4
"""Tokens the probe asks the model to generate."""

_PROBE_SENTENCES = (
    "The river rises in the hills north of the old market town and flows south through farmland.",
    "In spring the water is high and the ferry at the bridge stops running for a few weeks.",
    "A museum beside the harbour keeps maps, ship models and the diaries of three lighthouse keepers.",
    "The railway reached the valley in the last century and the station still has its wooden roof.",
    "Local bakers sell a dark rye bread with seeds, and the Saturday market opens at seven.",
    "Cyclists follow the towpath for forty kilometres between the two locks and the estuary.",
)


def probe_messages(nonce: str | None = None, sentences: int = 24) -> list[dict[str, str]]:
    """The probe's chat messages: a nonce, then ``sentences`` plain sentences (~20 tokens each).

    Args:
        nonce: text opening the prompt (default: a random one), so no prompt cache is reused.
        sentences: how many sentences of filler text (24 → about 450-500 prompt tokens).

    Returns:
        ``[{"role": "system", ...}, {"role": "user", ...}]``.
    """
    tag = nonce or uuid.uuid4().hex
    body = " ".join(_PROBE_SENTENCES[i % len(_PROBE_SENTENCES)] for i in range(sentences))
    return [
        {"role": "system", "content": f"Probe {tag}. Reply with one word."},
        {"role": "user", "content": f"{body}\nWhich town is described? One word."},
    ]


def run_probe(base_url: str, model: str, *, timeout_seconds: float = 300.0) -> tuple[float, int]:
    """Make the start-up probe: one real chat completion with a prompt of several hundred tokens.

    Args:
        base_url: the server's OpenAI-compatible base URL (``http://127.0.0.1:P/v1``).
        model: the model alias the server serves.
        timeout_seconds: how long the call may take (seconds).

    Returns:
        ``(seconds, prompt_tokens)`` of the call (prompt_tokens 0 when the server reports none).

    Raises:
        ModelTransportError: the call failed (connection dropped, HTTP error, no choices).
    """
    started = time.monotonic()
    body = {"model": model, "messages": probe_messages(), "max_tokens": PROBE_MAX_TOKENS, "temperature": 0.0}
    try:
        response = httpx.post(f"{base_url}/chat/completions", json=body, timeout=timeout_seconds)
    except httpx.HTTPError as exc:
        raise ModelTransportError(f"start-up probe of {base_url} failed: {type(exc).__name__}: {exc}") from exc
    if response.status_code != 200:
        raise ModelTransportError(
            f"start-up probe of {base_url} answered HTTP {response.status_code}: {response.text[:200]}"
        )
    try:
        payload = response.json()
        choices = payload["choices"]
        tokens = int((payload.get("usage") or {}).get("prompt_tokens") or 0)
    except (ValueError, KeyError, TypeError) as exc:
        raise ModelTransportError(f"start-up probe of {base_url}: malformed reply {response.text[:200]!r}") from exc
    if not choices:
        raise ModelTransportError(f"start-up probe of {base_url}: the reply has no choices")
    return time.monotonic() - started, tokens


def describe_exit(returncode: int | None) -> str:
    """Name an exit status: ``signal SIGILL (illegal instruction)``, ``exit code 1``, ...

    Args:
        returncode: ``Popen.returncode`` (negative: killed by that signal; 128+N from a shell is
            read as signal N too), or None when unknown.

    Returns:
        A short phrase.
    """
    if returncode is None:
        return "exit status unknown (the server was not started by this process)"
    number = -returncode if returncode < 0 else returncode - 128 if 128 < returncode < 160 else None
    if number is not None:
        try:
            sig = signal.Signals(number)
        except ValueError:
            return f"exit code {returncode}"
        text = signal.strsignal(sig) or sig.name
        suffix = f", exit code {returncode}" if returncode > 0 else ""
        return f"signal {sig.name} ({text.lower()}{suffix})"
    return f"exit code {returncode}"


def is_sigill(returncode: int | None) -> bool:
    """True for an exit by SIGILL (``-4`` from Popen, ``132`` from a shell)."""
    return returncode in (-signal.SIGILL, 128 + signal.SIGILL)


def log_tail(path: Path, lines: int = LOG_TAIL_LINES, limit_bytes: int = 16_000) -> str:
    """The last ``lines`` lines of a log file (``<no log>`` when unreadable)."""
    try:
        with open(path, "rb") as handle:
            handle.seek(0, 2)
            size = handle.tell()
            handle.seek(max(0, size - limit_bytes))
            text = handle.read().decode("utf-8", errors="replace")
    except OSError:
        return "<no log>"
    return "\n".join(text.splitlines()[-lines:]) or "<empty log>"


def crash_error(
    profile: str, port: int, returncode: int | None, log_path: Path, *, pid: int | None = None, when: str = ""
) -> ModelServerCrashed:
    """Build the typed error for a llama.cpp server that exited.

    Args:
        profile: weight profile name.
        port: the server's port.
        returncode: its exit status (see :func:`describe_exit`), None when unknown.
        log_path: the server log.
        pid: the server's process id.
        when: what was happening (``"during its start-up probe"``, ``"during a model call"``).

    Returns:
        The :class:`~ditto_nb.errors.ModelServerCrashed` (to raise).
    """
    who = f"llama.cpp server for {profile!r} on port {port}" + (f" (pid {pid})" if pid else "")
    lines = [f"{who} exited {when}: {describe_exit(returncode)}".replace("  ", " ").strip()]
    help_text = ModelServerCrashed.help
    if is_sigill(returncode):
        lines.append(
            "The llama.cpp build uses CPU instructions this machine cannot run (illegal instruction, e.g. AMX or "
            "AVX-512 from a -march=native build). " + REINSTALL_HELP
        )
        help_text = REINSTALL_HELP
    lines.append(f"server log: {log_path}")
    lines.append(log_tail(log_path))
    return ModelServerCrashed("\n".join(lines), returncode=returncode, log_path=str(log_path), help=help_text)


__all__ = [
    "LOG_TAIL_LINES",
    "PORTABLE_CMAKE_ARGS",
    "REINSTALL_HELP",
    "crash_error",
    "describe_exit",
    "is_sigill",
    "log_tail",
    "probe_messages",
    "run_probe",
]
