"""Search settings for replaying task directories of earlier code without reaching anything."""

from __future__ import annotations

from collections.abc import Iterable

from ditto_nb.patterns.common import SearchSetup


def offline_search(origins: Iterable[str]) -> SearchSetup:
    """Search settings that reach nothing (the wiki origin's API): a replay must not need them.

    Args:
        origins: the request's allowed origins (one of them on ``wiki.test``).

    Returns:
        A MediaWiki :class:`SearchSetup` pointed at that origin's ``/w/api.php``.

    Raises:
        StopIteration: no origin on ``wiki.test``.
    """
    wiki = next(o for o in origins if "wiki.test" in o)
    return SearchSetup(provider="mediawiki", mediawiki_api_url=f"{wiki}/w/api.php")
