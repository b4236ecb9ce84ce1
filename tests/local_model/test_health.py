"""Crash reports, the start-up probe's prompt, the portable build flags and server leases
(real processes and files; no model needed)."""

from __future__ import annotations

import asyncio
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import BaseModel

from ditto_nb.errors import ModelServerCrashed, ModelTransportError
from ditto_nb.local_model.health import (
    PORTABLE_CMAKE_ARGS,
    REINSTALL_HELP,
    crash_error,
    describe_exit,
    probe_messages,
)
from ditto_nb.local_model.ownership import ServerLeases, pid_alive
from ditto_nb.runtime.capabilities import INFER_REASONING_SAMPLE
from ditto_nb.runtime.config import parse_runtime_config
from ditto_nb.workers import create_infer_worker

REPO = Path(__file__).resolve().parents[2]


def test_exit_statuses_are_named() -> None:
    assert describe_exit(-signal.SIGILL).startswith("signal SIGILL (illegal instruction")
    assert describe_exit(132) == "signal SIGILL (illegal instruction, exit code 132)"
    assert describe_exit(-signal.SIGKILL).startswith("signal SIGKILL")
    assert describe_exit(1) == "exit code 1"
    assert "unknown" in describe_exit(None)


def test_sigill_report_names_signal_log_and_reinstall(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    log.write_text("".join(f"line {i}\n" for i in range(40)) + "llama_model_load: loaded\n", encoding="utf-8")
    error = crash_error("local", 8765, -signal.SIGILL, log, pid=4242, when="during a model call")
    text = str(error)
    assert isinstance(error, ModelServerCrashed) and isinstance(error, ModelTransportError)
    assert error.retryable is False and error.returncode == -signal.SIGILL and error.log_path == str(log)
    assert "(pid 4242) exited during a model call: signal SIGILL" in text
    assert "CPU instructions this machine cannot run" in text and "scripts/setup.sh" in text
    assert f"server log: {log}" in text
    assert text.rstrip().endswith("llama_model_load: loaded") and "line 0\n" not in text  # the tail only
    assert error.help == REINSTALL_HELP and "API key" not in text + error.help
    other = crash_error("local", 8765, 1, log)
    assert "exit code 1" in str(other) and "CPU instructions" not in str(other)


def test_setup_script_builds_with_the_documented_portable_flags() -> None:
    script = (REPO / "scripts" / "setup.sh").read_text(encoding="utf-8")
    flags = re.search(r'^PORTABLE_CMAKE_ARGS="([^"]+)"', script, re.M)
    assert flags is not None and flags.group(1) == PORTABLE_CMAKE_ARGS
    assert "-DGGML_NATIVE=OFF" in PORTABLE_CMAKE_ARGS and "-DGGML_AVX2=ON" in PORTABLE_CMAKE_ARGS
    assert all(f"-DGGML_{name}=OFF" in PORTABLE_CMAKE_ARGS for name in ("AVX512", "AMX_TILE", "AMX_INT8", "AMX_BF16"))
    assert "--no-cache-dir" in script and "--no-binary llama-cpp-python" in script
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    commands = re.findall(r"```bash\n(.+?)\n```", readme)
    assert commands[:2] == [
        "bash scripts/setup.sh .venv local && .venv/bin/ditto-nb demo",
        "bash scripts/setup.sh .venv dev,local,local-small && .venv/bin/python -m pytest -q tests notebooks --nbval-lax",
    ]
    assert commands[1] in (REPO / ".ci" / "run").read_text(encoding="utf-8")


def test_probe_prompt_is_several_hundred_tokens_and_never_cached() -> None:
    first, second = probe_messages(), probe_messages()
    words = sum(len(m["content"].split()) for m in first)
    assert 350 <= words <= 700  # several hundred tokens, so the matrix kernels run
    assert first[0]["content"] != second[0]["content"]  # a nonce opens it: no prompt-cache hit


def test_leases_survive_the_starter_and_the_last_user_counts(tmp_path: Path) -> None:
    leases = ServerLeases(tmp_path / "servers")
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        leases.join(9999)
        leases.join(9999, other.pid)
        assert leases.live_users(9999) == sorted([other.pid, __import__("os").getpid()])
        assert leases.leave(9999) == [other.pid]  # process B still uses it: not stopped
        other.kill()
        other.wait()
        assert not pid_alive(other.pid)
        assert leases.live_users(9999) == []  # a dead user's lease is ignored and pruned
        assert not any((tmp_path / "servers" / "9999.users").iterdir())
    finally:
        if other.poll() is None:
            other.kill()
            other.wait()


def test_record_of_a_dead_or_foreign_process_is_dropped(tmp_path: Path) -> None:
    from ditto_nb.local_model.ownership import ServerRecord

    leases = ServerLeases(tmp_path)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        leases.write(ServerRecord(pid=sleeper.pid, port=9998, profile="local-small", model_alias="m",
                                  log_path="x.log", started_by=sleeper.pid, started_at=0.0))
        assert leases.read(9998) is None  # alive, but not a llama_cpp.server: a reused pid is never trusted
        assert not (tmp_path / "9998.json").exists()
    finally:
        sleeper.kill()
        sleeper.wait()


class _Out(BaseModel):
    answer: str


def test_infer_reports_the_providers_diagnosis_instead_of_unreachable() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = parse_runtime_config(
        f"model: {{provider: p, model: m}}\nproviders:\n  p: {{base_url: 'http://127.0.0.1:{port}/v1', model: m,"
        " structured_output: none, timeout_seconds: 5}\n", {})
    crash = ModelServerCrashed("llama.cpp server for 'local' exited: signal SIGILL", returncode=-4, log_path="l.log")
    messages = [{"role": "user", "content": "hi"}]
    job = {"messages": messages, "output_schema": _Out}
    diagnosed = create_infer_worker(config, {}, max_retries=0, diagnose={"p": lambda: crash})
    with pytest.raises(ModelServerCrashed) as info:
        asyncio.run(diagnosed.execute(INFER_REASONING_SAMPLE, job))
    assert info.value is crash and diagnosed.calls[-1].error == "ModelServerCrashed"
    plain = create_infer_worker(config, {}, max_retries=0, diagnose={"p": lambda: None})
    with pytest.raises(ModelTransportError, match="unreachable") as other:
        asyncio.run(plain.execute(INFER_REASONING_SAMPLE, job))
    assert not isinstance(other.value, ModelServerCrashed)
