"""Web search providers (discovery only): MediaWiki API, Brave Search API, and the search tool.

See docs/ARCHITECTURE.md §Web. Snippets are never evidence.
"""

from ditto_nb.web.search.base import SearchHit, WebSearchProvider, strip_html
from ditto_nb.web.search.brave import BRAVE_ENDPOINT, BraveProvider
from ditto_nb.web.search.mediawiki import MediaWikiProvider
from ditto_nb.web.search.tool import create_web_search_tool

__all__ = [
    "BRAVE_ENDPOINT",
    "BraveProvider",
    "MediaWikiProvider",
    "SearchHit",
    "WebSearchProvider",
    "create_web_search_tool",
    "strip_html",
]
