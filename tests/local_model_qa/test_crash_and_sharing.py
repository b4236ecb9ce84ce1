"""The real llama.cpp server (``local-small``) crashing and being shared across processes.

- A server killed with SIGILL during a Web QA stage → the run fails with ``ModelServerCrashed``
  naming SIGILL and the log path, ``show`` reports the failed run, and a fresh process resumes
  the task and completes it.
- A server started by process A and reused by process B survives A's exit while B works; B, the
  last user, stops it when it exits.
- A server that crashed is restarted at most once per process, then the crash is raised.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ditto_nb.errors import ModelServerCrashed
from ditto_nb.local_model import ensure_local_provider, running_servers, stop_local_server
from ditto_nb.local_model.ownership import pid_alive
from ditto_nb.local_model.weights import default_cache_dir
from ditto_nb.runtime.config import load_runtime_config
from ditto_nb.sandbox import demo_corpus_path

# The real 1.5B model on 2 cores: a question takes ~100-150 s idle; a busy machine doubles it.
pytestmark = [pytest.mark.local_model, pytest.mark.timeout(900)]

REPO = Path(__file__).resolve().parents[2]
ALIAS = "qwen2.5-coder-0.5b-instruct"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _config(tmp_path: Path, redis_url: str) -> tuple[Path, int]:
    port = _free_port()
    path = tmp_path / "ditto.yaml"
    path.write_text(
        f"model: {{provider: small, model: {ALIAS}}}\n"
        "providers:\n"
        f"  small: {{base_url: 'http://127.0.0.1:{port}/v1', model: {ALIAS}, structured_output: json_object_schema,"
        f" launch: {{kind: llama-cpp, profile: local-small, port: {port}}}}}\n"
        f"context: {{redis_url: '{redis_url}', ttl_seconds: 600}}\n",
        encoding="utf-8",
    )
    return path, port


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO)}


def _no_core() -> None:  # SIGILL dumps core by default; keep the test's disk clean
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _record(port: int, timeout_seconds: float = 600) -> dict[str, object]:
    path = default_cache_dir() / "servers" / f"{port}.json"
    deadline = time.monotonic() + timeout_seconds
    while not path.is_file():
        assert time.monotonic() < deadline, "the server record never appeared"
        time.sleep(0.2)
    return dict(json.loads(path.read_text(encoding="utf-8")))


def _ledger_started(task_dir: Path, key: str) -> bool:
    db_path = task_dir / "memory.sqlite3"
    if not db_path.is_file():
        return False
    try:
        db = sqlite3.connect(f"{db_path.as_uri()}?mode=ro", uri=True, timeout=5)
        try:
            rows = db.execute("SELECT value FROM memory WHERE key = ?", (f"ledger/{key}",)).fetchall()
        finally:
            db.close()
    except sqlite3.Error:
        return False
    return any(json.loads(value).get("status") == "started" for (value,) in rows)


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-c", "from ditto_nb.cli import main; main()", *args]


def test_sigill_during_a_stage_is_named_and_a_fresh_process_completes_the_task(
    tmp_path: Path, redis_url: str
) -> None:
    config, port = _config(tmp_path, redis_url)
    task_dir = tmp_path / "task"
    ask = subprocess.Popen(
        _cli("ask", "Which river flows through Paris?", "--config", str(config), "--dir", str(task_dir),
             "--max-queries", "1", "--max-pages", "2", "--sandbox", str(demo_corpus_path()), "--quiet"),
        cwd=tmp_path, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_no_core,
    )
    try:
        record = _record(port)
        deadline = time.monotonic() + 600
        while not _ledger_started(task_dir, "model:select"):  # the select stage's model call is in flight
            assert ask.poll() is None, ask.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.05)
        os.kill(int(record["pid"]), signal.SIGILL)  # type: ignore[call-overload]
        out, err = ask.communicate(timeout=300)
    finally:
        if ask.poll() is None:
            ask.kill()
    assert ask.returncode == 2, out + err
    assert "signal SIGILL" in err and "CPU instructions this machine cannot run" in err
    assert f"server log: {record['log_path']}" in err
    assert "API key" not in err and "Traceback" not in err

    shown = subprocess.run(_cli("show", str(task_dir)), env=_env(), capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    assert "state:    failed" in shown.stdout and "ModelServerCrashed" in shown.stdout

    resumed = subprocess.run(_cli("resume", str(task_dir), "--quiet"), cwd=tmp_path, env=_env(),
                             capture_output=True, text=True, timeout=900, preexec_fn=_no_core)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    report = json.loads((task_dir / "output" / "report.json").read_text(encoding="utf-8"))
    assert report["answer"]["status"] in ("answered", "insufficient-evidence", "conflicting-evidence")
    assert not pid_alive(int(record["pid"]))  # type: ignore[call-overload]


def _user(config: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.local_model_qa.server_user", str(config), "small"], cwd=REPO, env=_env(),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def _line(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line, process.stderr.read() if process.stderr else "no output"
    return line.strip()


def _send(process: subprocess.Popen[str], command: str) -> None:
    assert process.stdin is not None
    process.stdin.write(command + "\n")
    process.stdin.flush()


def test_server_started_by_a_survives_a_exit_while_b_works(tmp_path: Path, redis_url: str) -> None:
    config, port = _config(tmp_path, redis_url)
    a = _user(config)
    b: subprocess.Popen[str] | None = None
    try:
        ready_a = _line(a).split()
        assert ready_a[0] == "ready" and ready_a[2] == "False"  # A started it
        pid = int(ready_a[1])
        b = _user(config)
        ready_b = _line(b).split()
        assert ready_b == ["ready", str(pid), "True"]  # B reuses A's server
        _send(a, "exit")
        assert a.wait(timeout=60) == 0
        time.sleep(1.0)
        assert pid_alive(pid), "A's exit stopped a server B still uses"
        _send(b, "call")
        assert _line(b).startswith("ok "), "B could not use the server after A left"
        _send(b, "exit")
        assert b.wait(timeout=60) == 0
        deadline = time.monotonic() + 20
        while pid_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not pid_alive(pid), "the last user's exit left the server running"
    finally:
        for process in (a, b):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()


def test_a_crashed_server_is_restarted_at_most_once_per_process(tmp_path: Path, redis_url: str) -> None:
    config_path, port = _config(tmp_path, redis_url)
    config = load_runtime_config({}, config_path)
    try:
        ensure_local_provider(config, "small")
        first = running_servers()[port]
        first_pid = first.pid
        assert first_pid is not None
        os.kill(first_pid, signal.SIGKILL)
        ensure_local_provider(config, "small")  # restarted once, with a note of the crash
        assert first.last_crash is not None and "signal SIGKILL" in str(first.last_crash)
        second_pid = first.pid
        assert second_pid is not None and second_pid != first_pid
        os.kill(second_pid, signal.SIGKILL)
        with pytest.raises(ModelServerCrashed, match="not restarted again") as info:
            ensure_local_provider(config, "small")
        assert "signal SIGKILL" in str(info.value) and str(first.log_path) in str(info.value)
        assert first.pid is None
    finally:
        stop_local_server(port)
