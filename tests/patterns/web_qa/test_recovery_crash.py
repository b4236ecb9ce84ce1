"""Web QA: a run SIGKILLed inside each stage resumes in-process (SPEC §5).

For each stage a child process (:mod:`tests.patterns.web_qa.crash_child`) runs a task against
its own sandbox web, its own scripted model and the test Redis. The parent holds the child inside
the stage (a scripted-model delay for ``plan`` / ``selected`` / ``report``, a slow search endpoint
for ``searched``, a slow page for ``read``), checks in Memory that the stage started and is not
committed, SIGKILLs the child, and resumes in-process with the same request and directory. The
five children run concurrently (interpreter start-up dominates the test time).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis

from ditto_nb.patterns.common import SearchSetup
from ditto_nb.patterns.web_qa import WebQaReport, WebQaRequest
from ditto_nb.sandbox import SandboxPage, SandboxWeb
from ditto_nb.testing.scripted_config import scripted_runtime_config
from ditto_nb.testing.scripted_model import ScriptedModel, ScriptedReply
from ditto_nb.workers import open_task_store
from tests.patterns.web_qa.helpers import CORPUS, Script, make_request, purpose_of, run_once

REPO_ROOT = Path(__file__).resolve().parents[3]
HOLD_SECONDS = 30.0
"""How long a held dispatch would take (seconds); the child is killed long before."""
WAIT_SECONDS = 30.0
"""How long the parent waits for the child to reach the held point (seconds)."""

BETA_URL = "https://beta.test/bridges/golden-gate"
ALPHA_URL = "https://alpha.test/wiki/Golden_Gate_Bridge"
SLOW_SEARCH_URL = "https://wiki.test/w/slow.php"


def memory_rows(directory: Path, request: WebQaRequest) -> dict[str, Any]:
    """Every Memory row of the task (read from the SQLite file; safe while the child runs)."""

    async def read() -> dict[str, Any]:
        store = open_task_store(directory)
        await store.setup()
        try:
            return dict(await store.items(request.namespace))
        finally:
            await store.close()

    return asyncio.run(read())


def _url_hash(url: str) -> str:
    """The ledger key suffix of a page read (``read:<sha256(url)[:16]>``, docs/PATTERNS.md)."""
    return hashlib.sha256(url.encode("utf-8")).hexdigest()[:16]


def wait_until(check: Callable[[], bool], what: str, child: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not check():
        if child.poll() is not None:
            pytest.fail(f"the child exited ({child.returncode}) before {what}")
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.05)


@dataclass
class Case:
    """How one stage is held and what the resume must (not) redo.

    Attributes:
        stage: the stage the child is killed in.
        held_purpose: model purpose answered with a long delay (None: a web delay holds it).
        resumed_purposes: model purposes the resume must call, in order.
        committed: stages committed before the kill.
    """

    stage: str
    held_purpose: str | None
    resumed_purposes: list[str]
    committed: list[str]


CASES = [
    Case("plan", "plan", ["plan", "select", "answer", "ground"], []),
    Case("searched", None, ["select", "answer", "ground"], ["plan"]),
    Case("read", None, ["select", "answer", "ground"], ["plan", "searched"]),
    Case("selected", "select", ["select", "answer", "ground"], ["plan", "searched", "read"]),
    Case("report", "ground", ["ground"], ["plan", "searched", "read", "selected", "hop-searched", "hop-read"]),
]


def _crash_pages() -> list[dict[str, Any]]:
    """The bridge corpus with the beta page held, plus a slow search endpoint on the wiki host."""
    pages = [dict(page) for page in CORPUS]
    for page in pages:
        if page["url"] == BETA_URL:
            page["delay_seconds"] = HOLD_SECONDS
    pages.append({"url": SLOW_SEARCH_URL, "status": 503, "delay_seconds": HOLD_SECONDS})
    return pages


def _unhold_beta(web: SandboxWeb) -> None:
    beta = next(page for page in CORPUS if page["url"] == BETA_URL)
    web.set_page(SandboxPage.model_validate(beta))


class Crash:
    """One stage's crash: its sandbox web, scripted model, task directory and child process."""

    def __init__(self, case: Case, web: SandboxWeb, model: ScriptedModel, directory: Path, redis_url: str) -> None:
        self.case, self.web, self.model, self.directory = case, web, model, directory
        self.request = make_request(web, task_id=f"crash-{case.stage}-{uuid.uuid4().hex[:10]}")
        self.reached = threading.Event()
        self.first = Script()
        if case.stage != "read":
            _unhold_beta(web)  # only the read case keeps the slow page
        model.responder = self._holding
        api_url = web.url_for(SLOW_SEARCH_URL) if case.stage == "searched" else web.api_url
        args = {"base_url": model.base_url, "redis_url": redis_url, "api_url": api_url, "ca": str(web.ca_path),
                "overrides": dict(web.resolve_overrides), "read_timeout": 60.0, "dir": str(directory),
                "request": self.request.model_dump(mode="json")}
        self.child = subprocess.Popen([sys.executable, "-m", "tests.patterns.web_qa.crash_child", json.dumps(args)],
                                      cwd=REPO_ROOT, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
        self.before: dict[str, Any] = {}

    def _holding(self, body: dict[str, Any]) -> Any:
        if self.case.held_purpose is not None and purpose_of(body) == self.case.held_purpose:
            self.reached.set()
            return ScriptedReply(content="{}", delay_seconds=HOLD_SECONDS)
        return self.first(body)

    def wait_and_kill(self) -> None:
        """Wait until the child is inside its stage, snapshot Memory, SIGKILL it."""
        case, web = self.case, self.web
        if case.held_purpose is not None:
            wait_until(self.reached.is_set, f"the {case.held_purpose!r} model call", self.child)
        elif case.stage == "searched":
            wait_until(lambda: ("wiki.test", "/w/slow.php") in web.requests, "the search dispatch", self.child)
        else:
            alpha_key = "ledger/read:" + _url_hash(web.url_for(ALPHA_URL))

            def beta_held_alpha_done() -> bool:
                if ("beta.test", "/bridges/golden-gate") not in web.requests:
                    return False
                row = memory_rows(self.directory, self.request).get(alpha_key) or {}
                return bool(row.get("status") == "done")

            wait_until(beta_held_alpha_done, "alpha read done while beta is held", self.child)
        self.before = memory_rows(self.directory, self.request)
        self.child.send_signal(signal.SIGKILL)
        self.child.wait(10)

    def reap(self) -> None:
        if self.child.poll() is None:
            self.child.kill()
            self.child.wait(10)

    def check_resume(self, redis_url: str) -> None:
        """Resume in-process and check the report, reuse and the interrupted dispatches."""
        case, web, before, directory = self.case, self.web, self.before, self.directory
        where = f"[killed in {case.stage}]"
        assert self.child.returncode == -signal.SIGKILL, where
        # Memory shows the stage started but not committed; earlier stages are committed.
        started = [k for k, v in before.items() if k.startswith("ledger/") and v["status"] == "started"]
        assert started, f"{where} no dispatch had started"
        assert f"stage/{case.stage}" not in before, where
        assert sorted(k.removeprefix("stage/") for k in before if k.startswith("stage/")) == sorted(case.committed), where
        done_before = {k: v for k, v in before.items() if k.startswith("ledger/") and v["status"] == "done"}
        # The dead child's lock file is still there, naming it; the OS released its flock.
        assert (directory / ".lock").read_text().strip() == str(self.child.pid), where

        _unhold_beta(web)
        resumed = Script()
        self.model.responder = resumed
        web_before = len(web.requests)
        search = SearchSetup.from_sandbox(web, policy_overrides={"retries": 0, "connect_timeout": 2.0,
                                                                 "read_timeout": 5.0})
        config = scripted_runtime_config(self.model, redis_url=redis_url)
        report = asyncio.run(run_once(directory, self.request, config, search, self.model))

        assert isinstance(report, WebQaReport), where
        assert report.answer.status == "answered" and report.answer.claims, where
        for claim in report.answer.claims:
            assert claim.verification.quotes_verified and claim.verification.grounded, where
            for citation in claim.citations:
                chunk = next(c for c in report.evidence if c.chunk_id == citation.chunk_id)
                assert chunk.text[citation.start:citation.end] == citation.quote, where
        published = json.loads((directory / "output" / "report.json").read_text())
        assert published["task_id"] == self.request.id, where

        # Completed model outputs were reused: only the listed purposes were called again.
        assert resumed.seen == case.resumed_purposes, where
        new_requests = web.requests[web_before:]
        api = [r for r in new_requests if r == ("wiki.test", "/w/api.php")]
        pages = sorted(host for host, path in new_requests if path != "/w/api.php")
        # A search dispatch asks the API twice (text search, then title search); the second hop
        # (hop-searched, after selected) searches once more and looks up the one name its
        # evidence gives by page title (one more request).
        if case.stage in ("plan", "searched"):
            assert len(api) == 5 and pages == ["alpha.test", "beta.test"], (where, new_requests)
        elif case.stage == "read":
            assert len(api) == 3 and pages == ["beta.test"], (where, new_requests)  # alpha's read was reused
        elif case.stage == "selected":
            assert len(api) == 3 and pages == [], (where, new_requests)  # only the second hop's search
        else:
            assert new_requests == [], (where, new_requests)  # searches and pages all reused
        after = memory_rows(directory, self.request)
        for key, row in done_before.items():
            assert after[key]["status"] == "done" and after[key]["at"] == row["at"], (where, key)  # not redone
        for key in started:
            assert after[key]["status"] == "done", (where, key)  # the interrupted dispatch was redone


def test_sigkill_inside_each_stage_resumes(tmp_path: Path, sandbox_factory: Any, redis_url: str) -> None:
    with contextlib.ExitStack() as stack:
        crashes: list[Crash] = []
        try:
            for case in CASES:
                model = stack.enter_context(ScriptedModel())
                web = sandbox_factory(_crash_pages())
                crashes.append(Crash(case, web, model, tmp_path / case.stage, redis_url))
            for crash in crashes:
                crash.wait_and_kill()
        finally:
            for crash in crashes:
                crash.reap()
        try:
            for crash in crashes:
                crash.check_resume(redis_url)
        finally:
            _drop_context(redis_url, [crash.request.scope for crash in crashes])


def _drop_context(redis_url: str, scopes: list[str]) -> None:
    client = redis.Redis.from_url(redis_url, socket_timeout=2)
    try:
        client.delete(*scopes)
    finally:
        client.close()
