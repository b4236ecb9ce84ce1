"""Fixtures for notebook-face tests: the same sandbox corpus, search setup and scripted-model
config as the Web QA tests (re-used from ``tests/patterns/web_qa/conftest.py``, not copied)."""

from tests.patterns.web_qa.conftest import config, search, web

__all__ = ["config", "search", "web"]
