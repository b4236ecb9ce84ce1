"""Suite-wide rules for ``pytest tests notebooks --nbval-lax`` (both folders).

- **No llama.cpp server outlives the suite.** Every process the run starts (tests, subprocesses,
  notebook kernels, the servers they start) inherits ``DITTO_TEST_SESSION=<uuid>``; when the run
  ends, this process releases its own servers (``ditto_nb.local_model.stop_all``, the same path as
  at interpreter exit) and then any ``llama_cpp.server`` process carrying that marker fails the
  run.
- **One model server for all notebooks.** When notebooks are collected with a real local provider
  (``DITTO_NOTEBOOK_PROVIDER`` ``local``, the default, or ``local-small``), this process starts (or
  reuses) that server first and holds a lease on it until the end, so every notebook kernel reuses
  the same server and none stops it under the next one's feet.
- **Notebook cells get the time a real model needs.** With a real local provider one cell can run
  a whole task or a batch of questions (measured: 03's batch cell and 02b's resume cell passed
  300 s with the 1.5B model on 2 shared cores), so notebook cells get
  :data:`REAL_MODEL_CELL_TIMEOUT` seconds instead of the suite's 300 (pytest-timeout's marker).
- **A notebook stops at its first failing cell.** After a cell fails, the notebook's later cells
  are skipped (as "Run All" does in JupyterLab), so a dead model shows one typed error, not a
  cascade of ``NameError``s.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

SESSION_ENV = "DITTO_TEST_SESSION"
os.environ.setdefault(SESSION_ENV, uuid.uuid4().hex)
_failed_notebooks: set[str] = set()
REAL_MODEL_CELL_TIMEOUT = 1800
"""Seconds one notebook cell may take with a real local model (the suite default is 300)."""


def session_servers(marker: str | None = None) -> list[int]:
    """Pids of live ``llama_cpp.server`` processes started during this test session."""
    tag = f"{SESSION_ENV}={marker or os.environ[SESSION_ENV]}".encode()
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
            if b"llama_cpp.server" not in argv or tag not in (proc / "environ").read_bytes().split(b"\0"):
                continue
            if (proc / "stat").read_text().rsplit(")", 1)[-1].split()[0] == "Z":
                continue
        except OSError:
            continue
        found.append(int(proc.name))
    return found


def _is_notebook_cell(item: pytest.Item) -> bool:
    return type(item).__name__ == "IPyNbCell"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if (os.environ.get("DITTO_NOTEBOOK_PROVIDER") or "local") in ("local", "local-small"):
        for item in items:
            if _is_notebook_cell(item):
                item.add_marker(pytest.mark.timeout(REAL_MODEL_CELL_TIMEOUT))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if _is_notebook_cell(item) and report.when == "call" and report.failed:
        _failed_notebooks.add(str(item.path))


def pytest_runtest_setup(item: pytest.Item) -> None:
    if _is_notebook_cell(item) and str(item.path) in _failed_notebooks:
        pytest.skip("an earlier cell of this notebook failed; the rest of the notebook is not run")


@pytest.fixture(scope="session", autouse=True)
def no_model_server_left(request: pytest.FixtureRequest) -> Iterator[None]:
    """Start the notebooks' shared model server when notebooks run; check nothing is left."""
    provider = os.environ.get("DITTO_NOTEBOOK_PROVIDER") or "local"
    if provider in ("local", "local-small") and any(_is_notebook_cell(i) for i in request.session.items):
        try:
            from ditto_nb.local_model import ensure_local_provider
            from ditto_nb.runtime.config import load_runtime_config

            ensure_local_provider(load_runtime_config(os.environ), provider)
        except Exception as exc:  # noqa: BLE001 - the notebooks' first model cell reports it, typed
            print(f"notebook model server not started here: {type(exc).__name__}: {exc}")
    yield
    from ditto_nb.local_model import stop_all

    stop_all(include_kept=True)
    deadline = time.monotonic() + 15.0
    left = session_servers()
    while left and time.monotonic() < deadline:
        time.sleep(0.5)
        left = session_servers()
    assert not left, f"llama.cpp server process(es) started by this test run are still running: {left}"
