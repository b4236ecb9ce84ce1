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
from typing import Any

from pydantic import SecretStr
from typing_extensions import TypedDict

import ditto_nb.sandbox.provider  # noqa: F401  (registers the ``local`` search provider)
from ditto_nb.web.config import SearchConfig, create_search_provider, search_config
from ditto_nb.web.policy import NetworkPolicy, normalize_origins, origin_of
from ditto_nb.web.search.base import WebSearchProvider


class PolicyOverrides(TypedDict, total=False):
    """Extra :class:`~ditto_nb.web.policy.NetworkPolicy` fields: body cap (bytes), deadline and
    timeouts (seconds), redirects, retries and backoff."""

    max_body_bytes: int
    deadline_seconds: float
    connect_timeout: float
    read_timeout: float
    max_redirects: int
    retries: int
    backoff_seconds: float
    max_retry_after_seconds: float


@dataclass(frozen=True)
class SearchSetup:
    """Search provider choice and fetch-policy extras for one task.

    Attributes:
        provider: ``"mediawiki"`` (default), ``"brave"`` or ``"local"``.
        mediawiki_api_url: MediaWiki ``api.php`` URL (``provider="mediawiki"``).
        brave_api_key: Brave Search API key (``provider="brave"``); never stored in Memory.
        local_index_dir: folder of pages for the ``local`` provider.
        brave_endpoint: the Brave endpoint (None = the public API).
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
    brave_endpoint: str | None = None
    ca_bundle: str | None = None
    resolve_overrides: Mapping[str, str] = field(default_factory=dict)
    permitted_origins: tuple[str, ...] | None = None
    results_per_query: int = 5
    policy_overrides: PolicyOverrides = field(default_factory=lambda: PolicyOverrides())

    def effective_origins(self, allowed_origins: tuple[str, ...] | list[str]) -> tuple[str, ...]:
        """The origins a task may fetch now: the request's, minus those no longer permitted.

        Args:
            allowed_origins: the request's allowed origins.

        Returns:
            Normalized origins (``https://host:port``).

        Raises:
            InvalidRequest: an origin (of the request or the grant) is not ``https://host[:port]``.
        """
        wanted = normalize_origins(tuple(allowed_origins))
        if self.permitted_origins is None:
            return wanted
        granted = set(normalize_origins(self.permitted_origins))
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
            **self.policy_overrides,
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
            **self.policy_overrides,
        )

    def search_config(self) -> SearchConfig:
        """This setup's provider choice as a ``ditto_nb.web.SearchConfig``."""
        fields: dict[str, object] = {"provider": self.provider, "local_index_dir": self.local_index_dir}
        if self.mediawiki_api_url:
            fields["mediawiki_api_url"] = self.mediawiki_api_url
        if self.brave_api_key:
            fields["brave_api_key"] = SecretStr(self.brave_api_key)
        if self.brave_endpoint:
            fields["brave_endpoint"] = self.brave_endpoint
        return SearchConfig.model_validate(fields)

    def build_provider(self) -> WebSearchProvider:
        """Construct the search provider through ``ditto_nb.web.create_search_provider``.

        Returns:
            An object with ``async search(query, limit) -> list[SearchHit]``.

        Raises:
            ConfigError: the provider is unknown or misconfigured.
        """
        policy = self.search_policy() if self.provider == "mediawiki" else None
        return create_search_provider(self.search_config(), policy)

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
        setup = cls(provider="mediawiki", mediawiki_api_url=str(web.api_url), ca_bundle=str(web.ca_path),
                    resolve_overrides=dict(web.resolve_overrides))
        return replace(setup, **changes)

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
        return cls.from_search_config(search_config(config, environment), **changes)

    @classmethod
    def from_search_config(cls, settings: SearchConfig, **changes: Any) -> SearchSetup:
        """Build a setup from ``ditto_nb.web.search_config()``'s result.

        Args:
            settings: the resolved search settings.
            changes: other :class:`SearchSetup` fields (e.g. ``ca_bundle``).

        Returns:
            A :class:`SearchSetup`.
        """
        setup = cls(
            provider=settings.provider,
            mediawiki_api_url=settings.mediawiki_api_url,
            brave_api_key=settings.brave_api_key.get_secret_value() if settings.brave_api_key else None,
            brave_endpoint=settings.brave_endpoint,
            local_index_dir=settings.local_index_dir,
        )
        return replace(setup, **changes)

    @classmethod
    def coerce(cls, search: SearchSetup | SearchConfig | None) -> SearchSetup:
        """Accept what an analyst passes as ``search``: a setup, ``search_config()``'s result, or None
        (the configured default).

        Args:
            search: the value to convert.

        Returns:
            A :class:`SearchSetup`.
        """
        if isinstance(search, SearchSetup):
            return search
        if isinstance(search, SearchConfig):
            return cls.from_search_config(search)
        if search is None:
            return cls.from_config()
        raise TypeError(f"search must be a SearchSetup or SearchConfig, not {type(search).__name__}")


__all__ = ["SearchSetup"]
