"""Fixtures for batch tests: a sandbox web, a scripted model answering per prompt, a Dask cluster."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ditto_nb.batch.demo import batch_demo_responder
from ditto_nb.patterns.common import SearchSetup
from ditto_nb.sandbox import SandboxWeb
from ditto_nb.testing.scripted_model import ScriptedModel
from tests.patterns.web_qa.helpers import CORPUS

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def web(sandbox_factory: Any) -> SandboxWeb:
    return sandbox_factory(CORPUS)  # type: ignore[no-any-return]


@pytest.fixture
def search(web: SandboxWeb) -> SearchSetup:
    return SearchSetup.from_sandbox(web, policy_overrides={"retries": 0, "connect_timeout": 2.0, "read_timeout": 5.0})


@pytest.fixture
def batch_model() -> Iterator[ScriptedModel]:
    """A scripted model whose replies depend only on each prompt (safe for concurrent tasks)."""
    with ScriptedModel() as model:
        model.responder = batch_demo_responder
        yield model


def local_client(n_workers: int) -> Any:
    """A LocalCluster client on 127.0.0.1 whose worker processes import this worktree."""
    from ditto_nb.batch import local_client as start

    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH")) if p)
    return start(n_workers, dashboard=False)


def _two_workers() -> Iterator[Any]:
    """A LocalCluster client with 2 workers, closed (client, then cluster) after use."""
    client = local_client(2)
    try:
        yield client
    finally:
        cluster = client.cluster
        client.close()
        cluster.close()


@pytest.fixture(scope="session")
def client() -> Iterator[Any]:
    """One LocalCluster (2 workers) for the batch tests that keep every worker alive: starting
    worker processes dominates the wall time. Tests scale it to the workers they need."""
    yield from _two_workers()


@pytest.fixture
def own_client() -> Iterator[Any]:
    """A LocalCluster (2 workers) for one test that kills a worker: the nanny's restart of the
    killed process, and any task the kill left behind, stay out of the shared cluster."""
    yield from _two_workers()


@contextlib.contextmanager
def watchdog(client: Any, after: float = 120.0) -> Iterator[None]:
    """If the block is still running after ``after`` seconds, print the cluster's state to stderr
    once (the tasks in processing per worker, each worker's pid) and send each worker ``SIGUSR1``: the
    preload (:mod:`ditto_nb.batch.worker_setup`) makes it print every thread's stack, even while a
    thread holds the GIL. So a batch that hangs says where (pytest shows it with the failure)."""
    done = threading.Event()

    def dump() -> None:
        if done.wait(after):
            return
        with contextlib.suppress(Exception):
            print(f"watchdog: still running after {after:.0f} s", file=sys.stderr)
            print(f"processing: {client.processing()}", file=sys.stderr)
            pids = {name: nanny.process.process.pid for name, nanny in client.cluster.workers.items()
                    if nanny.process is not None and nanny.process.process is not None}
            print(f"worker pids: {pids}", file=sys.stderr)
            for pid in pids.values():
                with contextlib.suppress(OSError, TypeError):
                    os.kill(int(pid), signal.SIGUSR1)

    thread = threading.Thread(target=dump, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
