"""Notebooks fail honestly when their model is unreachable: one typed error at the first model
cell (the rest of the notebook is skipped), and notebook 03 fails instead of reporting a batch in
which every question failed. Real kernels under nbval; the model endpoint is a closed port."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_unreachable_model_stops_each_notebook_at_its_first_model_cell(tmp_path: Path) -> None:
    env = dict(os.environ)
    # ``ollama`` in ditto.yaml points at 127.0.0.1:11434 and starts no server: nothing answers there.
    env.update(DITTO_NOTEBOOK_PROVIDER="ollama", DITTO_EVAL_LIMIT="2", PYTHONPATH=str(REPO),
               DITTO_TEST_SESSION=uuid.uuid4().hex)  # its own run: it must not check this run's servers
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfs", "--nbval-lax",
         "notebooks/01_web_qa.ipynb", "notebooks/03_evaluation.ipynb"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=600,
    )
    out = result.stdout + result.stderr
    assert result.returncode == 1, out
    summary = out.strip().splitlines()[-1]
    assert re.search(r"\b2 failed\b", summary), summary  # one failing cell per notebook
    assert "skipped" in summary  # the cells after it did not run
    assert "ModelTransportError" in out and "unreachable" in out
    assert "every one of the 2 questions failed with a model error" in out  # notebook 03
    assert "NameError" not in out
