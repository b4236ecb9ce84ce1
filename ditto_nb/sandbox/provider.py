"""The offline ``local`` search provider: BM25 over a folder of sandbox corpus files, in process.

No HTTP at all: the corpus is indexed with :class:`~ditto_nb.sandbox.index.SearchIndex` (SQLite
FTS5 ``bm25()``). Hit URLs are the corpus URLs, optionally mapped (e.g. by
:meth:`SandboxWeb.url_for <ditto_nb.sandbox.server.SandboxWeb.url_for>` to add the port).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from ditto_nb.errors import ConfigError
from ditto_nb.sandbox.corpus import SandboxPage, load_corpus
from ditto_nb.sandbox.index import IndexHit, SearchIndex
from ditto_nb.web.config import SearchConfig, register_search_provider
from ditto_nb.web.policy import NetworkPolicy, origin_of
from ditto_nb.web.search.base import SearchHit, check_search_args, strip_html


class LocalIndexProvider:
    """Search a corpus in process (a :class:`~ditto_nb.web.search.base.WebSearchProvider`).

    Args:
        pages: the corpus pages.
        url_for: maps a corpus URL to the URL reported in hits (identity by default).
    """

    name = "local"

    def __init__(self, pages: Iterable[SandboxPage], url_for: Callable[[str], str] | None = None) -> None:
        self._index = SearchIndex()
        self._url_for = url_for or (lambda url: url)
        for page in pages:
            self._index.add(page)

    @classmethod
    def from_directory(cls, directory: str | Path, url_for: Callable[[str], str] | None = None) -> LocalIndexProvider:
        """Index every ``*.jsonl`` corpus file under ``directory`` (sorted, recursive).

        Args:
            directory: the folder.
            url_for: see the class.

        Returns:
            The provider.

        Raises:
            ConfigError: the folder does not exist or holds no corpus file, or a file is invalid.
        """
        folder = Path(directory)
        files = sorted(folder.rglob("*.jsonl")) if folder.is_dir() else []
        if not files:
            raise ConfigError(f"local search index folder {folder} holds no *.jsonl corpus file")
        pages: list[SandboxPage] = []
        for file in files:
            pages.extend(load_corpus(file))
        return cls(pages, url_for)

    async def search(self, query: str, limit: int) -> list[SearchHit]:
        """Rank the corpus for ``query`` with BM25 (every term must match, like a wiki's search).

        Args:
            query: search text.
            limit: most hits (1–100).

        Returns:
            Hits ranked 1..n; ``[]`` when nothing matches.

        Raises:
            InvalidRequest: blank query or bad limit.
        """
        return self._hits(query, limit, "text")

    async def search_titles(self, query: str, limit: int) -> list[SearchHit]:
        """Rank the pages whose title holds every word of ``query`` (like ``srwhat=title``).

        Args:
            query: title words.
            limit: most hits (1–100).

        Returns:
            Hits ranked 1..n; ``[]`` when no title matches.

        Raises:
            InvalidRequest: blank query or bad limit.
        """
        return self._hits(query, limit, "title")

    async def search_prefix(self, prefix: str, limit: int) -> list[SearchHit]:
        """The pages whose title starts with ``prefix`` (like ``list=prefixsearch``), in title order.

        Raises:
            InvalidRequest: blank prefix or bad limit.
        """
        prefix = check_search_args(prefix, limit)
        return self._converted(prefix, self._index.prefix(prefix, limit))

    def _hits(self, query: str, limit: int, what: str) -> list[SearchHit]:
        query = check_search_args(query, limit)
        _, found = self._index.search(query, limit, what=what)
        return self._converted(query, found)

    def _converted(self, query: str, found: Sequence[IndexHit]) -> list[SearchHit]:
        """Index hits as search hits, ranked 1..n in their order (snippet markup stripped)."""
        hits: list[SearchHit] = []
        for rank, hit in enumerate(found, start=1):
            url = self._url_for(hit.url)
            hits.append(
                SearchHit(
                    query=query,
                    rank=rank,
                    title=hit.title,
                    url=url,
                    origin=origin_of(url),
                    snippet=strip_html(hit.snippet),
                    provider=self.name,
                )
            )
        return hits


def _local_provider(settings: SearchConfig, _policy: NetworkPolicy | None) -> LocalIndexProvider:
    """The ``local`` factory of :func:`ditto_nb.web.config.create_search_provider`."""
    if settings.local_index_dir is None:
        raise ConfigError("search.provider is local but search.local_index_dir (DITTO_LOCAL_INDEX_DIR) is not set")
    return LocalIndexProvider.from_directory(settings.local_index_dir)


register_search_provider("local", _local_provider)

__all__ = ["LocalIndexProvider"]
