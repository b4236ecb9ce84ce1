"""A process that uses the local model server, driven line by line on stdin (for the tests of
server sharing across processes).

    python -m tests.local_model_qa.server_user CONFIG PROVIDER

Starts (or reuses) the provider's server and prints ``ready <pid> <reused>``; then for each line
on stdin: ``call`` makes one real chat completion and prints ``ok <content>`` (or ``error ...``),
``exit`` ends the process (its ``atexit`` releases the server: the last user stops it).
"""

from __future__ import annotations

import sys

import httpx

from ditto_nb.local_model import ensure_local_provider, running_servers
from ditto_nb.runtime.config import load_runtime_config


def main() -> None:
    config = load_runtime_config({}, sys.argv[1])
    provider = sys.argv[2]
    base_url = ensure_local_provider(config, provider)
    server = running_servers()[config.provider(provider).launch.port]  # type: ignore[union-attr]
    record = server.leases.read(server.port)
    print(f"ready {record.pid if record else 0} {server.reused}", flush=True)
    for line in sys.stdin:
        command = line.strip()
        if command == "exit":
            return
        if command == "call":
            body = {"model": server.model_alias, "max_tokens": 8, "temperature": 0.0,
                    "messages": [{"role": "user", "content": "Name the capital of France in one word."}]}
            try:
                reply = httpx.post(f"{base_url}/chat/completions", json=body, timeout=300).json()
                print(f"ok {reply['choices'][0]['message']['content']!r}", flush=True)
            except Exception as exc:  # noqa: BLE001 - reported to the test
                print(f"error {type(exc).__name__}: {exc}", flush=True)


if __name__ == "__main__":
    main()
