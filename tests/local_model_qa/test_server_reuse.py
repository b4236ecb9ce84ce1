"""Reuse of a busy local model server: a held port is probed patiently and never gets a second
server (real TCP/HTTP servers on 127.0.0.1; no model needed)."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from ditto_nb.errors import ModelTransportError
from ditto_nb.local_model.server import LocalModelServer
from ditto_nb.patterns.common.failures import FAILURE_PREFIX, START_UP_STAGE, open_recorded
from ditto_nb.workers import open_task_store

ALIAS = "qwen2.5-coder-0.5b-instruct"


class _SlowModels(BaseHTTPRequestHandler):
    """Answers ``GET /v1/models`` and chat completions (the start-up probe) after ``delay``
    seconds, like a server busy generating."""

    delay = 3.0
    probes: list[int] = []

    def do_GET(self) -> None:  # noqa: N802 - http.server API
        time.sleep(self.delay)
        self._send({"object": "list", "data": [{"id": ALIAS, "object": "model"}]})

    def do_POST(self) -> None:  # noqa: N802 - http.server API
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        time.sleep(self.delay)
        prompt = " ".join(m["content"] for m in request["messages"])
        _SlowModels.probes.append(len(prompt.split()))
        self._send({"id": "x", "object": "chat.completion", "model": ALIAS,
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": "Town"},
                                 "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": len(prompt.split()), "completion_tokens": 1}})

    def _send(self, payload: object) -> None:
        body = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - silence the test log
        return


@pytest.fixture
def slow_server() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _SlowModels)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts TCP connections but never answers HTTP."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    try:
        yield int(sock.getsockname()[1])
    finally:
        sock.close()


def test_busy_server_is_reused_after_a_slow_probe(slow_server: int) -> None:
    server = LocalModelServer("local-small", port=slow_server, model_alias=ALIAS)
    began = time.monotonic()
    server.start()
    assert server.reused and server.pid is None
    assert time.monotonic() - began >= _SlowModels.delay  # the 2 s probe alone would have given up
    # a reused server is probed too: one real chat completion with a prompt of several hundred words
    assert len(_SlowModels.probes) == 1 and _SlowModels.probes[0] >= 300
    assert server.probe_seconds is not None and server.probe_seconds >= _SlowModels.delay


def test_held_port_without_answer_never_gets_a_second_server(silent_port: int) -> None:
    server = LocalModelServer("local-small", port=silent_port, model_alias=ALIAS)
    server.busy_wait_seconds = 3.0
    with pytest.raises(ModelTransportError, match="not starting a second server"):
        server.start()
    assert server.pid is None and not server.reused


class _BrokenChat(_SlowModels):
    """Answers ``/v1/models`` at once, but every chat completion with HTTP 500."""

    delay = 0.0

    def do_POST(self) -> None:  # noqa: N802 - http.server API
        self.rfile.read(int(self.headers["Content-Length"]))
        body = b'{"error": {"message": "ggml_compute failed"}}'
        self.send_response(500)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def test_server_failing_its_probe_is_a_start_up_failure_recorded_in_memory(tmp_path: Path) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _BrokenChat)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        local = LocalModelServer("local-small", port=int(server.server_address[1]), model_alias=ALIAS,
                                 cache_dir=tmp_path / "cache")
        with pytest.raises(ModelTransportError, match="failed its start-up probe") as info:
            local.start()
    finally:
        server.shutdown()
        server.server_close()

    async def open_then_read() -> list[dict[str, object]]:
        store = open_task_store(tmp_path / "task")
        await store.setup()
        await store.close()

        async def opening() -> None:
            raise info.value

        with pytest.raises(ModelTransportError):
            await open_recorded(tmp_path / "task", "web_qa:t1", opening())
        store = open_task_store(tmp_path / "task")
        await store.setup()
        try:
            return [row for _key, row in await store.items("web_qa:t1", FAILURE_PREFIX)]
        finally:
            await store.close()

    rows = asyncio.run(open_then_read())
    assert [(r["stage"], r["error_type"]) for r in rows] == [(START_UP_STAGE, "ModelTransportError")]
    assert "failed its start-up probe" in str(rows[0]["message"])


def test_a_busy_server_this_kit_started_is_waited_for_longer_than_a_foreign_one(slow_server: int,
                                                                              tmp_path: Path) -> None:
    """llama-cpp-python's server answers /v1/models only between two completions: a live server
    the kit started (a lease record with a live llama_cpp.server process) is waited for up to
    OWN_BUSY_WAIT_SECONDS, not the 60 s given to an unknown server (a notebook gave up after 60 s
    while a benchmark shared the server)."""
    import subprocess
    import sys

    from ditto_nb.local_model.ownership import ServerRecord

    # stands in for the server's process: alive, and its command line names llama_cpp.server
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", "llama_cpp.server",
                               "--port", str(slow_server)])
    try:
        foreign = LocalModelServer("local-small", port=slow_server, model_alias=ALIAS, cache_dir=tmp_path / "other")
        foreign.busy_wait_seconds = 1.0
        with pytest.raises(ModelTransportError, match="did not answer within 1 s"):
            foreign.start()
        own = LocalModelServer("local-small", port=slow_server, model_alias=ALIAS, cache_dir=tmp_path / "cache")
        own.leases.write(ServerRecord(pid=holder.pid, port=slow_server, profile="local-small", model_alias=ALIAS,
                                      log_path=str(tmp_path / "s.log"), started_by=holder.pid, started_at=time.time()))
        own.busy_wait_seconds = 1.0
        own.start()  # the 3 s answer is waited for: the record says the kit started this server
        assert own.reused
    finally:
        holder.kill()
        holder.wait()
