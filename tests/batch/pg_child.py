"""Child process for the PostgreSQL Web QA crash test: run one task with Memory in PostgreSQL
until done (or until SIGKILLed). ``python -m tests.batch.pg_child '<json>'`` from the repository
root; the JSON holds ``base_url``, ``redis_url``, ``dsn``, ``api_url``, ``ca``, ``overrides``,
``dir`` and ``request``."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from ditto_nb.patterns.common import SearchSetup
from ditto_nb.patterns.tasks import create_task
from ditto_nb.patterns.web_qa import WebQaRequest, open_web_qa, run_web_qa
from ditto_nb.runtime.config import ContextConfig, MemoryConfig, ModelSelection, ProviderConfig, RuntimeConfig


async def main(args: dict[str, Any]) -> None:
    """Create, open and run the task described by ``args``."""
    config = RuntimeConfig(
        model=ModelSelection(provider="scripted", model="scripted"),
        providers={"scripted": ProviderConfig(base_url=args["base_url"], model="scripted", timeout_seconds=120)},
        context=ContextConfig(redis_url=args["redis_url"]),
        memory=MemoryConfig(backend="postgres", dsn=args["dsn"]),
    )
    search = SearchSetup(provider="mediawiki", mediawiki_api_url=args["api_url"], ca_bundle=args["ca"],
                         resolve_overrides=args["overrides"], policy_overrides={"retries": 0})
    request = WebQaRequest.parse(args["request"])
    await create_task(args["dir"], request, search, memory=config.memory)
    app = await open_web_qa(args["dir"], request, config, search)
    try:
        await run_web_qa(app.runtime, {"request": request, "model": {"provider": "scripted", "model": "scripted"}})
    finally:
        await app.close()


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.argv[1])))
