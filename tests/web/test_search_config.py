"""search_config / create_search_provider: config file section overridden by the environment."""

from __future__ import annotations

from pathlib import Path

import pytest

from ditto_nb.errors import ConfigError
from ditto_nb.runtime.config import parse_runtime_config
from ditto_nb.sandbox import LocalIndexProvider, demo_corpus_path
from ditto_nb.web.config import create_search_provider, search_config
from ditto_nb.web.policy import NetworkPolicy
from ditto_nb.web.search import BraveProvider, MediaWikiProvider

CONFIG = """
model: {provider: local, model: m}
providers:
  local: {base_url: "http://127.0.0.1:8765/v1", model: m}
search: {provider: mediawiki, mediawiki_api_url: "https://wiki.test/w/api.php", brave_api_key_env: MY_BRAVE_KEY}
"""


def test_config_section_and_env_overrides() -> None:
    config = parse_runtime_config(CONFIG, {})
    settings = search_config(config, env={})
    assert settings.provider == "mediawiki" and settings.mediawiki_api_url == "https://wiki.test/w/api.php"
    assert settings.brave_api_key is None
    env = {"DITTO_SEARCH_PROVIDER": "brave", "MY_BRAVE_KEY": "k-123", "DITTO_MEDIAWIKI_API_URL": "https://w.test/api.php"}
    settings = search_config(config, env=env)
    assert settings.provider == "brave" and settings.mediawiki_api_url == "https://w.test/api.php"
    assert settings.brave_api_key is not None and settings.brave_api_key.get_secret_value() == "k-123"
    assert "k-123" not in repr(settings)
    assert search_config(None, env={"BRAVE_API_KEY": "b"}).brave_api_key is not None
    with pytest.raises(ConfigError, match="unknown"):
        search_config(config, env={"DITTO_SEARCH_PROVIDER": "altavista"})


def test_create_search_provider(tmp_path: Path) -> None:
    policy = NetworkPolicy(allowed_origins=("https://wiki.test:443",))
    provider = create_search_provider(search_config(parse_runtime_config(CONFIG, {}), env={}), policy)
    assert isinstance(provider, MediaWikiProvider) and provider.api_url == "https://wiki.test/w/api.php"
    brave = create_search_provider(search_config(None, env={"DITTO_SEARCH_PROVIDER": "brave", "BRAVE_API_KEY": "k"}))
    assert isinstance(brave, BraveProvider)
    with pytest.raises(ConfigError, match="API key"):
        create_search_provider(search_config(None, env={"DITTO_SEARCH_PROVIDER": "brave"}))
    with pytest.raises(ConfigError):
        create_search_provider(search_config(None, env={"DITTO_SEARCH_PROVIDER": "local"}))
    with pytest.raises(ConfigError, match="no \\*.jsonl"):
        create_search_provider(search_config(None, env={"DITTO_SEARCH_PROVIDER": "local", "DITTO_LOCAL_INDEX_DIR": str(tmp_path)}))


async def test_local_provider_searches_offline(tmp_path: Path) -> None:
    (tmp_path / "corpus.jsonl").write_bytes(demo_corpus_path().read_bytes())
    settings = search_config(None, env={"DITTO_SEARCH_PROVIDER": "local", "DITTO_LOCAL_INDEX_DIR": str(tmp_path)})
    provider = create_search_provider(settings)
    assert isinstance(provider, LocalIndexProvider)
    hits = await provider.search("Colosseum amphitheatre", 3)
    assert hits[0].title == "Colosseum" and hits[0].url == "https://wiki.test/wiki/Colosseum"
    assert "<" not in hits[0].snippet
