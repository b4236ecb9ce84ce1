"""``ditto-nb research --provider local-small`` starts the 0.5B server and talks to it.

Before the one model resolver (issue 11) the research CLI started the 1.5B server on 8765 and then
called 8766; the plan call failed with a transport error. Here the plan stage runs end to end
with the real 0.5B model and the ledger records the local-small provider and model.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from ditto_nb.sandbox import demo_corpus_path

pytestmark = [pytest.mark.local_model, pytest.mark.timeout(900)]

REPO = Path(__file__).resolve().parents[2]


def test_research_with_provider_local_small_talks_to_the_server_it_started(tmp_path: Path, redis_url: str) -> None:
    task_dir = tmp_path / "research"
    env = {**os.environ, "PYTHONPATH": str(REPO), "DITTO_WORKER_CONTEXT_REDIS_URL": redis_url}
    done = subprocess.run(
        [sys.executable, "-c", "from ditto_nb.cli import main; main()", "research", "The river Seine in Paris",
         "--provider", "local-small", "--sandbox", str(demo_corpus_path()), "--stop-after", "plan",
         "--dir", str(task_dir), "--config", str(REPO / "ditto.yaml")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=800,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    db = sqlite3.connect(f"{(task_dir / 'memory.sqlite3').as_uri()}?mode=ro", uri=True)
    try:
        rows = [json.loads(v) for (k, v) in db.execute("SELECT key, value FROM memory WHERE key LIKE 'ledger/model:%'")]
    finally:
        db.close()
    assert rows, "no model call was recorded"
    plan = rows[0]
    assert plan["status"] == "done"
    assert plan["output"]["provider"] == "local-small"
    assert plan["output"]["model"] == "qwen2.5-coder-0.5b-instruct"
    assert plan["output"]["prompt_tokens"] > 0  # a real server answered (the scripted model reports none)
