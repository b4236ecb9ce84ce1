"""A scripted OpenAI-compatible model server: the one fake used by tests, notebooks and benchmarks.

:class:`ScriptedModel` serves ``POST /v1/chat/completions`` and ``GET /v1/models`` over real HTTP
on 127.0.0.1 (a free port) from a background thread (``http.server.ThreadingHTTPServer``), in the
wire format of the OpenAI Chat Completions API. Replies come from, in order:

1. ``responder(request) -> reply | None`` when set (a reply may be a :class:`ScriptedReply`, a
   str, a dict (JSON-dumped) — None means "fall through to the queue"); the request dict passed
   to it is the JSON body plus ``"purpose"`` taken from the ``X-Ditto-Purpose`` header (sent by
   the Infer Worker), so a responder can pick a reply per stage;
2. the FIFO queue filled by :meth:`ScriptedModel.enqueue` (simonw/llm ``MockModel`` style).

With neither, the server answers HTTP 500 ``no scripted reply`` (counted in ``unanswered``).
Token usage is reported as characters / 4 (rounded up) of the prompt and completion texts.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

PURPOSE_HEADER = "X-Ditto-Purpose"
"""HTTP header carrying the Infer request's ``purpose`` (stage name)."""


@dataclass(frozen=True)
class ScriptedReply:
    """One scripted answer.

    Attributes:
        content: the assistant message content (None → JSON null).
        finish_reason: ``stop``, ``length``, ...
        status: HTTP status; not 200 → an OpenAI-style error body.
        delay_seconds: extra sleep before answering (seconds).
        refusal: the message's ``refusal`` field.
    """

    content: str | None
    finish_reason: str = "stop"
    status: int = 200
    delay_seconds: float = 0.0
    refusal: str | None = None


Reply = ScriptedReply | str | dict[str, Any]
Responder = Callable[[dict[str, Any]], "Reply | None"]


def _as_reply(reply: Reply | None) -> ScriptedReply:
    if isinstance(reply, ScriptedReply):
        return reply
    if reply is None or isinstance(reply, str):
        return ScriptedReply(content=reply)
    return ScriptedReply(content=json.dumps(reply))


def _tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


class ScriptedModel:
    """An OpenAI-compatible chat server with scripted replies (see the module docstring).

    Args:
        model_name: the id listed by ``/v1/models`` and echoed when a request names none.
        latency_seconds: sleep added to every call (seconds); can be changed at any time.

    Attributes:
        requests: every received ``/chat/completions`` JSON body, in order.
        responder: optional per-request reply function.
        unanswered: calls that found neither a responder reply nor a queued one.
        max_in_flight: the most ``/chat/completions`` calls ever being served at once.
        overlaps: calls that arrived while another call was still being served (0 means the
            endpoint never saw two calls at the same time).
    """

    def __init__(self, model_name: str = "scripted", *, latency_seconds: float = 0.0) -> None:
        self.model_name = model_name
        self.latency_seconds = latency_seconds
        self.responder: Responder | None = None
        self.requests: list[dict[str, Any]] = []
        self.unanswered = 0
        self.max_in_flight = 0
        self.overlaps = 0
        self._in_flight = 0
        self._queue: deque[ScriptedReply] = deque()
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -----------------------------------------------------------------------
    def start(self) -> ScriptedModel:
        """Start serving on 127.0.0.1 at a free port (idempotent).

        Returns:
            self.
        """
        if self._server is not None:
            return self
        server = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="scripted-model", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket (idempotent)."""
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> ScriptedModel:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The TCP port (the server must be started)."""
        if self._server is None:
            raise RuntimeError("ScriptedModel is not started")
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """The OpenAI base URL, ``http://127.0.0.1:PORT/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    # -- script --------------------------------------------------------------------------
    def enqueue(
        self,
        content: str | dict[str, Any] | None,
        *,
        finish_reason: str = "stop",
        status: int = 200,
        delay_seconds: float = 0.0,
        refusal: str | None = None,
    ) -> None:
        """Queue one reply (FIFO).

        Args:
            content: message content; a dict is JSON-dumped; None is sent as JSON null.
            finish_reason: the choice's ``finish_reason``.
            status: HTTP status; not 200 → an OpenAI-style error body instead of a completion.
            delay_seconds: extra sleep before this reply (seconds).
            refusal: the message's ``refusal`` field.
        """
        text = json.dumps(content) if isinstance(content, dict) else content
        reply = ScriptedReply(text, finish_reason, status, delay_seconds, refusal)
        with self._lock:
            self._queue.append(reply)

    @property
    def pending(self) -> int:
        """Queued replies not yet served."""
        with self._lock:
            return len(self._queue)

    @property
    def call_count(self) -> int:
        """Number of ``/chat/completions`` requests received."""
        with self._lock:
            return len(self.requests)

    def reset(self) -> None:
        """Drop queued replies, recorded requests, the responder and the latency."""
        with self._lock:
            self._queue.clear()
            self.requests.clear()
            self.unanswered = 0
            self.max_in_flight = 0
            self.overlaps = 0
        self.responder = None
        self.latency_seconds = 0.0

    # -- serving (called from handler threads) --------------------------------------------
    def _enter(self) -> None:
        with self._lock:
            if self._in_flight > 0:
                self.overlaps += 1
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)

    def _leave(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def _next_reply(self, body: dict[str, Any], purpose: str | None) -> ScriptedReply | None:
        with self._lock:
            self.requests.append(body)
        responder = self.responder
        if responder is not None:
            request = dict(body)
            request.setdefault("purpose", purpose)
            chosen = responder(request)
            if chosen is not None:
                return _as_reply(chosen)
        with self._lock:
            if self._queue:
                return self._queue.popleft()
            self.unanswered += 1
            return None

    def _completion(self, body: dict[str, Any], reply: ScriptedReply) -> dict[str, Any]:
        messages = body.get("messages") or []
        prompt = "".join(str(m.get("content") or "") for m in messages if isinstance(m, dict))
        with self._lock:
            number = len(self.requests)
        return {
            "id": f"chatcmpl-scripted-{number}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model") or self.model_name,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply.content, "refusal": reply.refusal},
                    "finish_reason": reply.finish_reason,
                    "logprobs": None,
                }
            ],
            "usage": {
                "prompt_tokens": _tokens(prompt),
                "completion_tokens": _tokens(reply.content or ""),
                "total_tokens": _tokens(prompt) + _tokens(reply.content or ""),
            },
        }


def _make_handler(model: ScriptedModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (stdlib signature)
            return

        def _send_json(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _error(self, status: int, message: str) -> None:
            self._send_json(status, {"error": {"message": message, "type": "scripted_error", "code": status}})

        def do_GET(self) -> None:  # noqa: N802 (stdlib name)
            if self.path.rstrip("/") == "/v1/models":
                self._send_json(
                    200, {"object": "list", "data": [{"id": model.model_name, "object": "model", "owned_by": "ditto"}]}
                )
            else:
                self._error(404, f"no route {self.path}")

        def do_POST(self) -> None:  # noqa: N802 (stdlib name)
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._error(404, f"no route {self.path}")
                return
            try:
                body = json.loads(raw)
            except ValueError:
                self._error(400, "request body is not JSON")
                return
            if not isinstance(body, dict):
                self._error(400, "request body is not a JSON object")
                return
            model._enter()
            try:
                self._serve(body)
            finally:
                model._leave()

        def _serve(self, body: dict[str, Any]) -> None:
            try:
                reply = model._next_reply(body, self.headers.get(PURPOSE_HEADER))
            except Exception as exc:  # a broken responder must not kill the server thread silently
                self._error(500, f"scripted responder raised {type(exc).__name__}: {exc}")
                return
            delay = model.latency_seconds + (reply.delay_seconds if reply else 0.0)
            if delay > 0:
                time.sleep(delay)
            if reply is None:
                self._error(500, "no scripted reply queued")
            elif reply.status != 200:
                self._error(reply.status, f"scripted HTTP {reply.status}")
            else:
                self._send_json(200, model._completion(body, reply))

    return Handler


__all__ = ["PURPOSE_HEADER", "Reply", "Responder", "ScriptedModel", "ScriptedReply"]
