"""The ``search`` argument of a pattern: provider choice plus network-policy extras.

:class:`SearchSetup` carries what ``ditto_nb.web.search.search_config()`` chooses (the provider and
its endpoint) and what the fetcher needs beyond the request's allowed origins: an extra CA bundle,
``.test`` resolve overrides (the offline sandbox), and the host application's *current* grant of
origins (``permitted_origins``) used to detect revoked permissions on resume.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from ditto_nb.web.policy import NetworkPolicy, origin_of


class _SearchProvider(Protocol):
    async def search(self, query: str, limit: int) -> list[Any]: ...


@dataclass(frozen=True)
class SearchSetup:
    """Search provider choice and fetch-policy extras for one task.

    Attributes:
        provider: ``"mediawiki"`` (default), ``"brave"`` or ``"local"``.
        mediawiki_api_url: MediaWiki ``api.php`` URL (``provider="mediawiki"``).
        brave_api_key: Brave Search API key (``provider="brave"``); never stored in Memory.
        local_index_dir: folder of pages for the ``local`` provider.
        ca_bundle: extra PEM CA bundle path trusted by every fetch (the sandbox CA).
        resolve_overrides: ``{".test hostname": ip}`` pins (sandbox only).
        permitted_origins: the host application's current grant; None = everything the request
            allows. An origin the task used that is missing here → ``PermissionRevoked``.
        results_per_query: search hits requested per query.
        policy_overrides: extra ``NetworkPolicy`` fields (timeouts, retries, body cap).
    """

    provider: str = "mediawiki"
    mediawiki_api_url: str | None = None
    brave_api_key: str | None = field(default=None, repr=False)
    local_index_dir: str | None = None
    ca_bundle: str | None = None
    resolve_overrides: Mapping[str, str] = field(default_factory=dict)
    permitted_origins: tuple[str, ...] | None = None
    results_per_query: int = 5
    policy_overrides: Mapping[str, Any] = field(default_factory=dict)

    def effective_origins(self, allowed_origins: tuple[str, ...] | list[str]) -> tuple[str, ...]:
        """The origins a task may fetch now: the request's, minus those no longer permitted.

        Args:
            allowed_origins: the request's allowed origins.

        Returns:
            Normalized origins (``https://host:port``).
        """
        wanted = NetworkPolicy(allowed_origins=tuple(allowed_origins)).allowed_origins
        if self.permitted_origins is None:
            return wanted
        granted = set(NetworkPolicy(allowed_origins=self.permitted_origins).allowed_origins)
        return tuple(origin for origin in wanted if origin in granted)

    def page_policy(self, allowed_origins: tuple[str, ...] | list[str]) -> NetworkPolicy:
        """The NetworkPolicy for reading pages of a task.

        Args:
            allowed_origins: the request's allowed origins.

        Returns:
            A policy allowing :meth:`effective_origins`, with this setup's CA and overrides.
        """
        return NetworkPolicy(
            allowed_origins=self.effective_origins(allowed_origins),
            ca_bundle=self.ca_bundle,
            resolve_overrides=dict(self.resolve_overrides),
            **dict(self.policy_overrides),
        )

    def search_policy(self) -> NetworkPolicy:
        """The NetworkPolicy for the search provider's own endpoint (MediaWiki API origin).

        Returns:
            A policy allowing only the API's origin (or nothing for other providers).
        """
        origins: tuple[str, ...] = ()
        if self.provider == "mediawiki" and self.mediawiki_api_url:
            origins = (origin_of(self.mediawiki_api_url),)
        return NetworkPolicy(
            allowed_origins=origins,
            ca_bundle=self.ca_bundle,
            resolve_overrides=dict(self.resolve_overrides),
            **dict(self.policy_overrides),
        )

    def build_provider(self) -> _SearchProvider:
        """Construct the search provider (``ditto_nb.web.search``).

        Returns:
            An object with ``async search(query, limit) -> list[SearchHit]``.

        Raises:
            ConfigError: the provider is unknown or misconfigured.
        """
        from ditto_nb.errors import ConfigError
        from ditto_nb.web import search as web_search

        if self.provider == "mediawiki":
            if not self.mediawiki_api_url:
                raise ConfigError("search.mediawiki_api_url is required for the mediawiki provider")
            provider: _SearchProvider = web_search.MediaWikiProvider(self.mediawiki_api_url, self.search_policy())
            return provider
        if self.provider == "brave":
            if not self.brave_api_key:
                raise ConfigError("the brave search provider needs an API key (search.brave_api_key_env)")
            return web_search.BraveProvider(self.brave_api_key)
        if self.provider == "local":
            factory = getattr(web_search, "LocalIndexProvider", None)
            if factory is None or not self.local_index_dir:
                raise ConfigError("the local search provider needs search.local_index_dir")
            return factory(self.local_index_dir)  # type: ignore[no-any-return]
        raise ConfigError(f"unknown search provider {self.provider!r}")

    def with_permitted(self, origins: tuple[str, ...] | None) -> SearchSetup:
        """Return a copy with another current grant of origins.

        Args:
            origins: the new grant (None = all the request allows).

        Returns:
            A new :class:`SearchSetup`.
        """
        return replace(self, permitted_origins=origins)

    @classmethod
    def from_sandbox(cls, web: Any, **changes: Any) -> SearchSetup:
        """Build a setup for a running ``ditto_nb.sandbox.SandboxWeb``.

        Args:
            web: the started sandbox (``api_url``, ``ca_path``, ``resolve_overrides``).
            changes: other :class:`SearchSetup` fields.

        Returns:
            A MediaWiki setup pointing at the sandbox's search API, trusting its CA.
        """
        fields: dict[str, Any] = {
            "provider": "mediawiki",
            "mediawiki_api_url": str(web.api_url),
            "ca_bundle": str(web.ca_path),
            "resolve_overrides": dict(web.resolve_overrides),
        }
        fields.update(changes)
        return cls(**fields)

    @classmethod
    def from_config(cls, config: Any = None, env: Mapping[str, str] | None = None, **changes: Any) -> SearchSetup:
        """Build a setup from ``RuntimeConfig.search`` (or ``ditto_nb.web.search.search_config``).

        Args:
            config: a ``RuntimeConfig`` (or None for defaults).
            env: environment for the Brave API key variable (default ``os.environ``).
            changes: other :class:`SearchSetup` fields (e.g. ``ca_bundle``).

        Returns:
            A :class:`SearchSetup`.
        """
        environment = os.environ if env is None else env
        settings = getattr(config, "search", None)
        if settings is None:
            from ditto_nb.runtime.config import SearchSettings

            settings = SearchSettings()
        return cls(
            provider=settings.provider,
            mediawiki_api_url=settings.mediawiki_api_url,
            brave_api_key=environment.get(settings.brave_api_key_env) or None,
            local_index_dir=settings.local_index_dir,
            **changes,
        )


__all__ = ["SearchSetup"]
