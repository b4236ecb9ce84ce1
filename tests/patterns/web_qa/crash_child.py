"""Child process for the Web QA crash tests: run one task until done (or until SIGKILLed).

Run as ``python -m tests.patterns.web_qa.crash_child '<json>'`` from the repository root. The JSON
argument holds ``base_url`` (the parent's scripted model), ``redis_url``, ``api_url`` (the
sandbox search API — the parent may point it at a slow URL to hold the child in ``searched``),
``ca`` and ``overrides`` (the sandbox CA bundle and ``.test`` pins), ``read_timeout`` (seconds),
``dir`` (the task directory) and ``request`` (the WebQaRequest as JSON). The parent holds the
child inside a stage (scripted-model or sandbox delays) and kills it; nothing here knows about
the crash.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from ditto_nb.patterns.common import SearchSetup
from ditto_nb.patterns.web_qa import WebQaRequest, open_web_qa, run_web_qa
from ditto_nb.runtime.config import ContextConfig, ModelSelection, ProviderConfig, RuntimeConfig


async def main(args: dict[str, Any]) -> None:
    """Open the task described by ``args`` and run it to the end."""
    config = RuntimeConfig(
        model=ModelSelection(provider="scripted", model="scripted"),
        providers={"scripted": ProviderConfig(base_url=args["base_url"], model="scripted", timeout_seconds=120)},
        context=ContextConfig(redis_url=args["redis_url"]),
    )
    search = SearchSetup(
        provider="mediawiki",
        mediawiki_api_url=args["api_url"],
        ca_bundle=args["ca"],
        resolve_overrides=args["overrides"],
        policy_overrides={"retries": 0, "connect_timeout": 2.0, "read_timeout": float(args["read_timeout"])},
    )
    request = WebQaRequest.parse(args["request"])
    app = await open_web_qa(args["dir"], request, config, search)
    try:
        await run_web_qa(app.runtime, {"request": request, "model": {"provider": "scripted", "model": "scripted"}})
    finally:
        await app.close()


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.argv[1])))
