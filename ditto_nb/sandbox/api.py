"""A MediaWiki-compatible subset of ``api.php`` over the sandbox index.

Supported (MediaWiki Action API, https://www.mediawiki.org/wiki/API:Search):

- ``action=query&list=search&srsearch=...&srlimit=..&sroffset=..&srwhat=text|title&format=json``
  → ``{"batchcomplete": "", "continue": {"sroffset": N, "continue": "-||"},
  "query": {"searchinfo": {"totalhits": N}, "search": [{"ns", "title", "pageid", "size",
  "wordcount", "snippet", "timestamp", "fullurl"}]}}``. ``fullurl`` is a sandbox extension
  (MediaWiki offers it through ``prop=info&inprop=url``) mapping the title to its page URL.
- ``action=query&list=prefixsearch&pssearch=...&pslimit=..&format=json`` →
  ``{"batchcomplete": "", "query": {"prefixsearch": [{"ns", "title", "pageid", "fullurl"}]}}``
  (https://www.mediawiki.org/wiki/API:Prefixsearch; titles in title order, no continuation).
- ``action=query&generator=search&gsrsearch=...&prop=info&inprop=url`` →
  ``{"query": {"pages": {"<pageid>": {"pageid", "ns", "title", "index", "fullurl",
  "canonicalurl"}}}}`` with ``gsroffset`` continuation.

Terms are AND-ed like MediaWiki's default search; a query whose words are joined by the upper-case
keyword ``OR`` (``Paris OR Lyon``, as in CirrusSearch syntax) matches any of them instead.

Errors follow MediaWiki's shape ``{"error": {"code", "info"}}`` with HTTP 200.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ditto_nb.sandbox.index import SANDBOX_TIMESTAMP, SearchIndex

MAX_LIMIT = 500
DEFAULT_LIMIT = 10


def _split_mode(query: str) -> tuple[str, str | None]:
    """``(query without the OR keywords, "or")`` when the words are joined by ``OR``, else
    ``(query, None)`` (the index's mode, AND unless the sandbox was built with OR)."""
    words = query.split()
    if len(words) > 2 and "OR" in words[1:-1]:
        return " ".join(w for w in words if w != "OR"), "or"
    return query, None


def _error(code: str, info: str) -> dict[str, Any]:
    return {"error": {"code": code, "info": info, "*": "See the MediaWiki API help for usage."}}


def _int_param(params: Mapping[str, str], name: str, default: int, *, allow_max: bool) -> int | dict[str, Any]:
    raw = params.get(name)
    if raw is None or raw == "":
        return default
    if allow_max and raw == "max":
        return MAX_LIMIT
    try:
        value = int(raw)
    except ValueError:
        return _error("badinteger", f'Invalid value "{raw}" for integer parameter "{name}".')
    if allow_max:
        return min(max(value, 1), MAX_LIMIT)
    return max(value, 0)


def handle_api(params: Mapping[str, str], index: SearchIndex, url_for: Callable[[str], str]) -> dict[str, Any]:
    """Answer one ``api.php`` request.

    Args:
        params: the query-string parameters.
        index: the sandbox search index.
        url_for: maps a corpus URL to its served URL (with the sandbox port).

    Returns:
        The JSON-serializable reply (MediaWiki shape, or its error shape).
    """
    if params.get("format", "json") != "json":
        return _error("badvalue", 'Only "format=json" is supported by the sandbox.')
    if params.get("action") != "query":
        return _error("badvalue", f'Unrecognized value for parameter "action": {params.get("action", "")}.')
    if params.get("list") == "search":
        return _list_search(params, index, url_for)
    if params.get("list") == "prefixsearch":
        return _prefix_search(params, index, url_for)
    if params.get("generator") == "search":
        return _generator_search(params, index, url_for)
    return _error("badvalue", 'The sandbox supports only "list=search", "list=prefixsearch" and "generator=search".')


def _prefix_search(params: Mapping[str, str], index: SearchIndex, url_for: Callable[[str], str]) -> dict[str, Any]:
    prefix = params.get("pssearch", "")
    if not prefix.strip():
        return _error("missingparam", 'The "pssearch" parameter must be set.')
    limit = _int_param(params, "pslimit", DEFAULT_LIMIT, allow_max=True)
    if isinstance(limit, dict):
        return limit
    hits = index.prefix(prefix, limit)
    return {"batchcomplete": "", "query": {"prefixsearch": [
        {"ns": 0, "title": hit.title, "pageid": hit.pageid, "fullurl": url_for(hit.url)} for hit in hits]}}


def _list_search(params: Mapping[str, str], index: SearchIndex, url_for: Callable[[str], str]) -> dict[str, Any]:
    query = params.get("srsearch", "")
    if not query.strip():
        return _error("missingparam", 'The "srsearch" parameter must be set.')
    limit = _int_param(params, "srlimit", DEFAULT_LIMIT, allow_max=True)
    offset = _int_param(params, "sroffset", 0, allow_max=False)
    if isinstance(limit, dict):
        return limit
    if isinstance(offset, dict):
        return offset
    what = params.get("srwhat", "text")
    if what not in ("text", "title", "nearmatch"):
        return _error("badvalue", f'Unrecognized value for parameter "srwhat": {what}.')
    text, mode = _split_mode(query)
    total, hits = index.search(text, limit, offset, what="title" if what != "text" else "text", mode=mode)
    reply: dict[str, Any] = {"batchcomplete": ""}
    if offset + len(hits) < total:
        reply["continue"] = {"sroffset": offset + len(hits), "continue": "-||"}
    reply["query"] = {
        "searchinfo": {"totalhits": total},
        "search": [
            {
                "ns": 0,
                "title": hit.title,
                "pageid": hit.pageid,
                "size": hit.size,
                "wordcount": hit.wordcount,
                "snippet": hit.snippet,
                "timestamp": SANDBOX_TIMESTAMP,
                "fullurl": url_for(hit.url),
            }
            for hit in hits
        ],
    }
    return reply


def _generator_search(params: Mapping[str, str], index: SearchIndex, url_for: Callable[[str], str]) -> dict[str, Any]:
    query = params.get("gsrsearch", "")
    if not query.strip():
        return _error("missingparam", 'The "gsrsearch" parameter must be set.')
    limit = _int_param(params, "gsrlimit", DEFAULT_LIMIT, allow_max=True)
    offset = _int_param(params, "gsroffset", 0, allow_max=False)
    if isinstance(limit, dict):
        return limit
    if isinstance(offset, dict):
        return offset
    text, mode = _split_mode(query)
    total, hits = index.search(text, limit, offset, mode=mode)
    with_url = "url" in params.get("inprop", "").split("|")
    pages: dict[str, Any] = {}
    for position, hit in enumerate(hits, start=offset + 1):
        entry: dict[str, Any] = {"pageid": hit.pageid, "ns": 0, "title": hit.title, "index": position}
        if with_url:
            entry["fullurl"] = entry["canonicalurl"] = url_for(hit.url)
        pages[str(hit.pageid)] = entry
    reply: dict[str, Any] = {"batchcomplete": ""}
    if offset + len(hits) < total:
        reply["continue"] = {"gsroffset": offset + len(hits), "continue": "gsroffset||"}
    reply["query"] = {"pages": pages}
    return reply


__all__ = ["DEFAULT_LIMIT", "MAX_LIMIT", "handle_api"]
