"""Notebook 01 as an analyst uses it: JupyterLab on 127.0.0.1 driven by Playwright with Debian's
Chromium (every request that is not to 127.0.0.1 is blocked).

Run all, then check what is on screen: the notebook's example is answered ("Seine", quoted from
the Paris page that the second hop read), the request form is a widget, typing a question and
pressing Run starts a new task with that question (read back from the task's Memory on disk), every
stage cell shows its own progress widget, frames are HTML tables with links, and no cell has an
error. A screenshot of the page is left in the test's temporary directory.

The model is the notebooks' (``DITTO_BROWSER_PROVIDER``, else ``DITTO_NOTEBOOK_PROVIDER``, else
``local``): README command 2 runs it with the real local model (about 6 minutes on 2 cores; the
suite's shared model server), CI (``DITTO_NOTEBOOK_PROVIDER=scripted``) with the scripted stand-in.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from typing import Any
from pathlib import Path
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Page, Route, sync_playwright

from ditto_nb.notebook import load_task

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TYPED_QUESTION = "How long is the River Thames?"
PROVIDER = os.environ.get("DITTO_BROWSER_PROVIDER") or os.environ.get("DITTO_NOTEBOOK_PROVIDER") or "local"
REAL_MODEL = PROVIDER in ("local", "local-small")
WAIT = float(os.environ.get("DITTO_BROWSER_WAIT") or (1500 if REAL_MODEL else 240))
"""Seconds Run All (and then the typed question's Run) may take."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """JupyterLab serving a copy of notebook 01 from ``tmp_path/lab`` (base URL with token, root)."""
    root = tmp_path / "lab"
    root.mkdir()
    shutil.copy(REPO / "notebooks" / "01_web_qa.ipynb", root / "01_web_qa.ipynb")
    settings = tmp_path / "settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    # Keep every cell in the DOM (no windowing), so the test sees all outputs.
    (settings / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}), encoding="utf-8")
    port, token = _free_port(), secrets.token_hex(16)
    env = {**os.environ, "DITTO_NOTEBOOK_PROVIDER": PROVIDER, "PYTHONPATH": str(REPO),
           "JUPYTERLAB_SETTINGS_DIR": str(tmp_path / "settings"), "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "ws"),
           "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"), "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
           "DITTO_NOTEBOOK_TASKS": str(root / "tasks")}
    log = (tmp_path / "jupyter.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
         "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
         "--allow-root", "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
         "--LabApp.extension_manager=readonly"],
        cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            assert server.poll() is None and time.monotonic() < deadline, (tmp_path / "jupyter.log").read_text()
            time.sleep(0.3)
        yield f"{base}/lab/tree/01_web_qa.ipynb?token={token}", root
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def _started(page: Page) -> bool:
    return any(p.strip() != "[ ]:" for p in page.locator(".jp-CodeCell .jp-InputPrompt").all_inner_texts())


def _run_all(page: Page) -> None:
    """Kernel → idle, then Run → Run All Cells (again if the kernel was not listening yet)."""
    page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=60_000)
    for _attempt in range(5):
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator(".lm-Menu-item:visible", has_text="Run All Cells").first.click()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            if _started(page):
                return
            time.sleep(0.25)
    raise AssertionError("Run All Cells did not start the notebook")


ERROR_OUTPUT = ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']"
"""JupyterLab renders a cell's error (and stderr) with this MIME type."""


def _wait_until_all_ran(page: Page, shot: Path, timeout: float = 240.0) -> None:
    """Wait until every code cell has run; fail at once when a cell shows an error (Run All stops
    there, so the cells after it would never run and the wait would last the whole timeout)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        prompts = page.locator(".jp-CodeCell .jp-InputPrompt").all_inner_texts()
        if prompts and all(p.strip().startswith("[") and p.strip()[1:2].isdigit() for p in prompts):
            return
        errors = page.locator(ERROR_OUTPUT)
        if errors.count():
            page.screenshot(path=str(shot), full_page=True)
            raise AssertionError(f"a cell failed: {errors.all_inner_texts()[-1][-2000:]}")
        time.sleep(0.5)
    page.screenshot(path=str(shot), full_page=True)
    raise AssertionError(f"not every cell ran: {page.locator('.jp-CodeCell .jp-InputPrompt').all_inner_texts()}")


def _example_report(root: Path) -> dict[str, Any]:
    """The published report of the notebook's stage-by-stage task (the only task after Run All)."""
    tasks = [d for d in (root / "tasks").iterdir() if d.is_dir()]
    assert len(tasks) == 1, tasks
    report = load_task(tasks[0]).report
    assert report is not None, f"{tasks[0]} published no report"
    return dict(report)


@pytest.mark.timeout(int(2 * WAIT + 600))
def test_notebook_01_in_a_real_browser(lab: tuple[str, Path], tmp_path: Path) -> None:
    url, root = lab
    blocked: list[str] = []

    def only_loopback(route: Route) -> None:
        if urlparse(route.request.url).hostname == "127.0.0.1":
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            context.route("**/*", only_loopback)
            page = context.new_page()
            page.goto(url)
            page.wait_for_selector(".jp-NotebookPanel .jp-Notebook", timeout=60_000)
            _run_all(page)
            _wait_until_all_ran(page, tmp_path / "not-all-ran.png", WAIT)
            page.screenshot(path=str(tmp_path / "after-run-all.png"), full_page=True)

            # The example is answered from the second hop's page, on screen and in the published report.
            report = _example_report(root)
            answer = report["answer"]
            titles = {c["title"] for claim in answer["claims"] for c in claim["citations"]}
            assert answer["status"] == "answered" and "Seine" in answer["text"], (PROVIDER, answer)
            assert "Paris" in titles, (PROVIDER, titles)
            shown = page.locator(".jp-CodeCell .jp-OutputArea .jp-RenderedMarkdown").all_inner_texts()
            assert any(t.strip().startswith("answered:") and "Seine" in t for t in shown), shown

            # The request form is a live widget with a question box and a Run button.
            form = page.locator(".ditto-ask-form")
            form.wait_for(timeout=30_000)
            form.screenshot(path=str(tmp_path / "form.png"))
            page.locator(".jp-CodeCell", has=page.locator(".ditto-progress")).nth(3).screenshot(
                path=str(tmp_path / "stage-cell.png"))
            question_box = form.locator("textarea").first
            assert question_box.is_visible()
            # Every stage cell shows its own progress widget (stage, model calls, seconds).
            progress = page.locator(".jp-CodeCell .jp-OutputArea .ditto-progress")
            assert progress.count() >= 5
            labels = page.locator(".ditto-progress-label").all_inner_texts()
            assert any("model call" in t and t.rstrip().endswith(" s") for t in labels), labels
            for stage in ("plan", "searched", "read", "selected", "report"):
                assert any(t.startswith(f"{stage} · done") for t in labels), (stage, labels)
            # Frames are HTML tables with clickable links.
            links = page.locator(".jp-OutputArea-output table a[href^='https://']")
            assert links.count() >= 3
            assert page.locator(".ditto-show-quote mark").count() >= 1

            # Type a new question and press Run: a new task asks it.
            before = {d.name for d in (root / "tasks").iterdir()}
            question_box.fill(TYPED_QUESTION)
            form.locator(".ditto-form-message", has_text="valid request").wait_for(timeout=10_000)
            form.locator("button", has_text="Run").click()
            form.locator(".ditto-started", has_text=TYPED_QUESTION).wait_for(timeout=30_000)
            outcome = form.locator(".ditto-outcome")
            outcome.wait_for(timeout=1000 * WAIT)
            assert "Error" not in outcome.inner_text(), outcome.inner_text()
            assert form.locator(".ditto-progress").count() == 1  # the Run shows its progress too
            page.screenshot(path=str(tmp_path / "after-run-button.png"), full_page=True)
            new = [d for d in (root / "tasks").iterdir() if d.is_dir() and d.name not in before]
            assert len(new) == 1
            view = load_task(new[0])
            assert view.request["question"] == TYPED_QUESTION and view.report is not None

            # No cell has an error output: JupyterLab renders errors (and stderr) with this MIME type.
            errors = page.locator(ERROR_OUTPUT)
            assert errors.count() == 0, errors.all_inner_texts()
            assert page.locator(".jp-OutputArea-output").count() >= 15
        finally:
            browser.close()
    assert all(urlparse(u).hostname != "127.0.0.1" for u in blocked)
