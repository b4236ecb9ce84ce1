"""Write the mid-run task directories of ``midrun/`` (run ONCE, with the code of commit 28c8559,
the last before both patterns ran on one stage runner and one grounded-answer component).

Usage (in a checkout of 28c8559, with Redis): ``python -m tests.patterns.legacy.make_midrun_fixture
OUT``. It runs, on the sandbox web with the scripted model:

- a deep research task stopped after its last round (``stop_after="round"`` until round 2 is
  recorded: plan, both rounds and their stop decision are in Memory, the report is not), and the
  same request to completion in another directory, whose ``report.json`` is kept as
  ``research.expected.json``;
- a Web QA task stopped after ``report`` (the report stage committed, nothing published) and the
  same request to completion, kept as ``web_qa.expected.json``.

``test_legacy_midrun.py`` resumes both directories with today's code, with no search and no page
read left to do, and compares the result with the earlier code's one-go report.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

import trustme

from ditto_nb.patterns.common import SearchSetup
from ditto_nb.sandbox import SandboxPage, SandboxWeb
from ditto_nb.testing.scripted_config import scripted_runtime_config
from ditto_nb.testing.scripted_model import ScriptedModel
from tests.patterns.deep_research import helpers as research
from tests.patterns.web_qa import helpers as web_qa


def _dump(report: Any) -> Any:
    return report.model_dump(mode="json") if hasattr(report, "model_dump") else report


async def main(out: Path) -> None:
    redis_url = os.environ.get("DITTO_WORKER_CONTEXT_REDIS_URL", "redis://127.0.0.1:6379/0")
    ca = trustme.CA()
    tmp = Path(tempfile.mkdtemp())
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    with ScriptedModel() as model:
        config = scripted_runtime_config(model, redis_url=redis_url)
        pages = [SandboxPage.model_validate(p) for p in research.bridge_corpus()]
        with SandboxWeb(pages, tmp / "sb1", "wiki.test", ca=ca) as web:
            model.responder = research.bridge_script()
            request = research.make_request(web, max_searches=3).model_copy(update={"id": "midrun-research"})
            full = await research.run_once(web, config, tmp / "research-full", request)
            for _ in range(request.max_rounds):
                result = await research.run_once(web, config, tmp / "research", request, "round")
                if result["round"] == 2:
                    break
            (out / "research.request.json").write_text(request.model_dump_json(indent=2) + "\n")
            (out / "research.expected.json").write_text(json.dumps(_dump(full), indent=2) + "\n")
        pages = [SandboxPage.model_validate(p) for p in web_qa.CORPUS]
        with SandboxWeb(pages, tmp / "sb2", "wiki.test", ca=ca) as web:
            search = SearchSetup.from_sandbox(web)
            model.responder = web_qa.Script()
            request = web_qa.make_request(web, task_id="midrun-web-qa")
            full = await web_qa.run_once(tmp / "web_qa-full", request, config, search, model)
            await web_qa.run_once(tmp / "web_qa", request, config, search, model, stop_after="report")
            (out / "web_qa.request.json").write_text(request.model_dump_json(indent=2) + "\n")
            (out / "web_qa.expected.json").write_text(json.dumps(_dump(full), indent=2) + "\n")
    for name in ("web_qa", "research"):
        src = tmp / name
        for db in src.glob("*.sqlite*"):
            if db.suffix == ".sqlite3":
                con = sqlite3.connect(db)
                con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                con.close()
        shutil.copytree(src, out / name, ignore=shutil.ignore_patterns("*-wal", "*-shm", "*.lock"))
    shutil.rmtree(tmp)


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))
