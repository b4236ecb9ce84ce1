"""Fixtures for batch tests: a sandbox web, a scripted model answering per prompt, a Dask cluster."""

from __future__ import annotations

import os
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


@pytest.fixture(scope="session")
def client() -> Iterator[Any]:
    """One LocalCluster (2 workers) for every batch test: starting worker processes dominates the
    wall time. Tests scale it to the workers they need."""
    client = local_client(2)
    try:
        yield client
    finally:
        cluster = client.cluster
        client.close()
        cluster.close()
