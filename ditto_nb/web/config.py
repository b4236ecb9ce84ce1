"""Which search provider a task uses: :func:`search_config` and :func:`create_search_provider`.

Settings come from the ``search`` section of ``ditto.yaml`` (:class:`ditto_nb.runtime.config.
SearchSettings`); environment variables override them:

- ``DITTO_SEARCH_PROVIDER``: ``mediawiki`` | ``brave`` | ``local``
- ``DITTO_MEDIAWIKI_API_URL``: the MediaWiki ``api.php`` URL
- ``BRAVE_API_KEY`` (or the variable named by ``search.brave_api_key_env``): the Brave key
- ``DITTO_BRAVE_ENDPOINT``: the Brave web-search endpoint (tests, proxies)
- ``DITTO_LOCAL_INDEX_DIR``: folder of sandbox corpus files for the ``local`` provider

The ``local`` provider lives in :mod:`ditto_nb.sandbox.provider`, above this layer (the web layer
never imports the sandbox): importing it registers its factory with
:func:`register_search_provider`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, SecretStr

from ditto_nb.errors import ConfigError
from ditto_nb.runtime.config import RuntimeConfig, SearchSettings
from ditto_nb.web.policy import NetworkPolicy
from ditto_nb.web.search.base import WebSearchProvider
from ditto_nb.web.search.brave import BRAVE_ENDPOINT, BraveProvider
from ditto_nb.web.search.mediawiki import MediaWikiProvider

ProviderName = Literal["mediawiki", "brave", "local"]
_PROVIDERS: tuple[str, ...] = ("mediawiki", "brave", "local")


class SearchConfig(BaseModel):
    """Resolved search settings (config file + environment).

    Attributes:
        provider: the provider name.
        mediawiki_api_url: MediaWiki ``api.php`` URL.
        brave_api_key: the Brave key (a SecretStr: never printed), or None.
        brave_endpoint: the Brave web-search endpoint.
        local_index_dir: folder of corpus files for the ``local`` provider, or None.
    """

    model_config = ConfigDict(frozen=True)

    provider: ProviderName = "mediawiki"
    mediawiki_api_url: str = "https://en.wikipedia.org/w/api.php"
    brave_api_key: SecretStr | None = None
    brave_endpoint: str = BRAVE_ENDPOINT
    local_index_dir: str | None = None


def search_config(config: RuntimeConfig | None = None, env: Mapping[str, str] = os.environ) -> SearchConfig:
    """Resolve the search settings: the config's ``search`` section, overridden by the environment.

    Args:
        config: the runtime configuration (None → the section's defaults).
        env: environment variables (see the module docstring).

    Returns:
        The resolved :class:`SearchConfig`.

    Raises:
        ConfigError: unknown provider name.
    """
    section = config.search if config is not None else SearchSettings()
    provider = (env.get("DITTO_SEARCH_PROVIDER") or section.provider).strip().lower()
    if provider not in _PROVIDERS:
        raise ConfigError(
            f"search provider {provider!r} is unknown (DITTO_SEARCH_PROVIDER / search.provider); "
            f"use one of {', '.join(_PROVIDERS)}"
        )
    key = env.get(section.brave_api_key_env or "BRAVE_API_KEY") or None
    return SearchConfig(
        provider=provider,  # type: ignore[arg-type]
        mediawiki_api_url=env.get("DITTO_MEDIAWIKI_API_URL") or section.mediawiki_api_url,
        brave_api_key=SecretStr(key) if key else None,
        brave_endpoint=env.get("DITTO_BRAVE_ENDPOINT") or BRAVE_ENDPOINT,
        local_index_dir=env.get("DITTO_LOCAL_INDEX_DIR") or section.local_index_dir,
    )


SearchProviderFactory = Callable[[SearchConfig, NetworkPolicy | None], WebSearchProvider]
"""Builds a provider from the resolved settings and the network policy."""

_FACTORIES: dict[str, SearchProviderFactory] = {}


def register_search_provider(name: ProviderName, factory: SearchProviderFactory) -> None:
    """Register the factory of a provider that lives above the web layer (``local``: the sandbox).

    Args:
        name: the provider name (one of ``mediawiki``, ``brave``, ``local``).
        factory: called by :func:`create_search_provider` with ``(settings, policy)``.
    """
    _FACTORIES[name] = factory


def create_search_provider(settings: SearchConfig, policy: NetworkPolicy | None = None) -> WebSearchProvider:
    """Build the provider named by ``settings``.

    Args:
        settings: from :func:`search_config`.
        policy: the network policy the provider's requests obey (required for ``mediawiki``;
            for ``brave`` None means "only the Brave endpoint's origin").

    Returns:
        A :class:`WebSearchProvider`.

    Raises:
        ConfigError: missing policy (mediawiki), missing API key (brave) or index folder (local).
    """
    if settings.provider == "mediawiki":
        if policy is None:
            raise ConfigError("the mediawiki search provider needs a NetworkPolicy allowing the API origin")
        return MediaWikiProvider(settings.mediawiki_api_url, policy)
    if settings.provider == "brave":
        if settings.brave_api_key is None:
            raise ConfigError("search.provider is brave but no API key is set (BRAVE_API_KEY)")
        return BraveProvider(settings.brave_api_key.get_secret_value(), policy, endpoint=settings.brave_endpoint)
    if settings.local_index_dir is None:
        raise ConfigError("search.provider is local but search.local_index_dir (DITTO_LOCAL_INDEX_DIR) is not set")
    factory = _FACTORIES.get(settings.provider)
    if factory is None:
        raise ConfigError(
            f"search provider {settings.provider!r} is not registered",
            help="Import ditto_nb.sandbox first: it registers the local provider.",
        )
    return factory(settings, policy)


__all__ = ["SearchConfig", "SearchProviderFactory", "create_search_provider", "register_search_provider", "search_config"]
