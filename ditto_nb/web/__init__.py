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

# --- search (owned by the search engineer; names are added here by the lead) ---------------
# from ditto_nb.web.search import ...
# __all__ += [...]
