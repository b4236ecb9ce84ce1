"""ditto_nb.web: policy-checked fetching, decoding, extraction, snapshots and search.

Public names are re-exported here; see docs/ARCHITECTURE.md §Web.
"""

from ditto_nb.web.decode import decode_html
from ditto_nb.web.extract import analyze_html, classify_page, extract_paragraphs, extract_title
from ditto_nb.web.fetch import Page, RawResponse, fetch, parse_retry_after, read_page
from ditto_nb.web.policy import NetworkPolicy, origin_of
from ditto_nb.web.snapshots import Snapshot, SnapshotStore

__all__ = [
    "NetworkPolicy",
    "Page",
    "RawResponse",
    "Snapshot",
    "SnapshotStore",
    "analyze_html",
    "classify_page",
    "decode_html",
    "extract_paragraphs",
    "extract_title",
    "fetch",
    "origin_of",
    "parse_retry_after",
    "read_page",
]

# --- search ---------------------------------------------------------------------------------
from ditto_nb.web.config import SearchConfig, create_search_provider, search_config  # noqa: E402
from ditto_nb.web.search import (  # noqa: E402
    BraveProvider,
    MediaWikiProvider,
    SearchHit,
    WebSearchProvider,
    create_web_search_tool,
)

__all__ += [
    "BraveProvider",
    "MediaWikiProvider",
    "SearchConfig",
    "SearchHit",
    "WebSearchProvider",
    "create_search_provider",
    "create_web_search_tool",
    "search_config",
]
