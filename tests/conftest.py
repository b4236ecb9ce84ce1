"""Shared fixtures: real Redis, real SQLite files, real PostgreSQL, the sandbox HTTPS web, the scripted model.

Fixture implementations live in ``tests/fixtures/`` (one module per concern) and are loaded
here as pytest plugins.
"""

pytest_plugins = [
    "tests.fixtures.redis_fixtures",
    "tests.fixtures.sandbox_fixtures",
    "tests.fixtures.model_fixtures",
    "tests.fixtures.postgres_fixtures",
]
