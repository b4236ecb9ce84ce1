"""Fixtures for notebook-face tests: the Web QA sandbox corpus, scripted model on the shared Redis."""

from __future__ import annotations

from typing import Any

import pytest

from ditto_nb.patterns.common import SearchSetup
from ditto_nb.runtime.config import RuntimeConfig
from ditto_nb.sandbox import SandboxWeb
from ditto_nb.testing.scripted_config import scripted_runtime_config
from ditto_nb.testing.scripted_model import ScriptedModel
from tests.patterns.web_qa.helpers import CORPUS


@pytest.fixture
def web(sandbox_factory: Any) -> SandboxWeb:
    return sandbox_factory(CORPUS)  # type: ignore[no-any-return]


@pytest.fixture
def search(web: SandboxWeb) -> SearchSetup:
    return SearchSetup.from_sandbox(web, policy_overrides={"retries": 0, "connect_timeout": 2.0, "read_timeout": 5.0})


@pytest.fixture
def config(scripted_model: ScriptedModel, redis_url: str) -> RuntimeConfig:
    return scripted_runtime_config(scripted_model, redis_url=redis_url)
