"""Shared fixtures: real Redis, real SQLite files, the sandbox HTTPS web, the scripted model.

Fixture implementations live in ``tests/fixtures/`` (one module per concern) and are loaded
here as pytest plugins.
"""

pytest_plugins = [
    "tests.fixtures.redis_fixtures",
    "tests.fixtures.sandbox_fixtures",
    "tests.fixtures.model_fixtures",
]
