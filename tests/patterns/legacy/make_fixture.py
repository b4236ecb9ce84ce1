"""Write the legacy task directories (run ONCE, with the code of commit 4f160f9, before issue 11).

Usage: ``python -m tests.patterns.legacy.make_fixture`` (needs Redis). It runs one Web QA task and
one deep research task to completion on the sandbox web with the scripted model and copies the
task directories (Memory SQLite, snapshots, output, task.json) to ``tests/patterns/legacy/tasks``.
``test_legacy_replay.py`` replays them with zero model calls on today's code.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sqlite3
import tempfile
from pathlib import Path

import trustme

from ditto_nb.patterns.common import SearchSetup
from ditto_nb.sandbox import SandboxPage, SandboxWeb
from ditto_nb.testing.scripted_config import scripted_runtime_config
from ditto_nb.testing.scripted_model import ScriptedModel
from tests.patterns.deep_research import helpers as research
from tests.patterns.web_qa import helpers as web_qa

OUT = Path(__file__).parent / "tasks"


async def main() -> None:
    redis_url = os.environ.get("DITTO_WORKER_CONTEXT_REDIS_URL", "redis://127.0.0.1:6379/0")
    ca = trustme.CA()
    tmp = Path(tempfile.mkdtemp())
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    with ScriptedModel() as model:
        config = scripted_runtime_config(model, redis_url=redis_url)
        pages = [SandboxPage.model_validate(p) for p in web_qa.CORPUS]
        with SandboxWeb(pages, tmp / "sb1", "wiki.test", ca=ca) as web:
            search = SearchSetup.from_sandbox(web)
            model.responder = web_qa.Script()
            request = web_qa.make_request(web, task_id="legacy-web-qa")
            await web_qa.run_once(tmp / "web_qa", request, config, search, model)
            (OUT / "web_qa.request.json").write_text(request.model_dump_json(indent=2) + "\n")
        pages = [SandboxPage.model_validate(p) for p in research.bridge_corpus()]
        with SandboxWeb(pages, tmp / "sb2", "wiki.test", ca=ca) as web:
            model.responder = research.bridge_script()
            request = research.make_request(web, max_model_calls=10).model_copy(update={"id": "legacy-research"})
            await research.run_once(web, config, tmp / "research", request)
    for name in ("web_qa", "research"):
        src = tmp / name
        for db in src.glob("*.sqlite*"):
            if db.suffix == ".sqlite":
                con = sqlite3.connect(db)
                con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                con.close()
        shutil.copytree(src, OUT / name, ignore=shutil.ignore_patterns("*-wal", "*-shm", "*.lock"))
    shutil.rmtree(tmp)


if __name__ == "__main__":
    asyncio.run(main())
