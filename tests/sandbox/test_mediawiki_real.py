"""The kit against a real MediaWiki (Debian's ``mediawiki`` package, SQLite search, HTTPS on loopback).

The wiki holds the context paragraphs of the first three HotpotQA dev questions
(``tests/fixtures/data/hotpotqa-dev-first-3.jsonl``; HotpotQA, Yang et al. 2018, CC BY-SA 4.0).
It needs ``apt-get install mediawiki php-cli php-sqlite3 php-intl php-mbstring php-xml``
(``scripts/setup.sh`` installs them with the ``dev`` extra, README command 2); without them the
fixture fails with a ConfigError naming them.
"""

from __future__ import annotations

import re
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ditto_nb.patterns.common import SearchSetup
from ditto_nb.patterns.web_qa import WebQaReport
from ditto_nb.runtime.config import RuntimeConfig
from ditto_nb.sandbox import import_hotpotqa
from ditto_nb.sandbox.mediawiki import MediaWikiSite
from ditto_nb.testing.scripted_model import ScriptedModel
from ditto_nb.text import normalize_text
from ditto_nb.web import read_page
from ditto_nb.web.search import MediaWikiProvider
from tests.patterns.web_qa.helpers import Script, make_request, run_once

DATA = Path(__file__).resolve().parents[1] / "fixtures" / "data" / "hotpotqa-dev-first-3.jsonl"
FILM = "Kiss and Tell (1945 film)"
QUOTE = "Kiss and Tell is a 1945 American comedy film starring then 17-year-old Shirley Temple as Corliss Archer."


@pytest.fixture(scope="module")
def wiki(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MediaWikiSite]:
    site = MediaWikiSite(tmp_path_factory.mktemp("mediawiki"))
    site.install()
    assert site.import_pages(import_hotpotqa(DATA)) == 30
    with site:
        yield site


def _provider(wiki: MediaWikiSite, **kwargs: Any) -> MediaWikiProvider:
    return MediaWikiProvider(wiki.api_url, wiki.policy(retries=0), **kwargs)


async def test_search_requires_every_term(wiki: MediaWikiSite) -> None:
    hits = await _provider(wiki).search("Corliss Archer", 10)
    titles = [hit.title for hit in hits]
    assert "Meet Corliss Archer" in titles and FILM in titles
    assert all(hit.url == wiki.page_url(hit.title) and hit.origin == wiki.origin for hit in hits)
    # MediaWiki's default search ANDs the terms: one word no page holds empties the result.
    assert await _provider(wiki).search("Corliss Archer nationality", 10) == []
    assert await _provider(wiki).search("Shirley Temple diplomat", 10) != []


async def test_title_search_puts_the_shortest_titles_first(wiki: MediaWikiSite) -> None:
    # SQLite's title search returns matches unranked; the provider keeps the shortest titles (the
    # main article before its sub-pages), ranked 1..n
    hits = await _provider(wiki).search_titles("Corliss", 3)
    assert [hit.title for hit in hits] == ["Meet Corliss Archer", "A Kiss for Corliss", "Meet Corliss Archer (TV series)"]
    assert [hit.rank for hit in hits] == [1, 2, 3]
    assert [hit.title for hit in await _provider(wiki).search_titles("Corliss", 1)] == ["Meet Corliss Archer"]


async def test_prefix_search_finds_a_name_s_qualified_page(wiki: MediaWikiSite) -> None:
    # list=prefixsearch reads the title index: "Kiss and Tell" is the start of the film's title
    hits = await _provider(wiki).search_prefix("Kiss and Tell", 5)
    assert FILM in [hit.title for hit in hits]
    assert all(hit.title.startswith("Kiss and Tell") and hit.url == wiki.page_url(hit.title) for hit in hits)
    assert [hit.rank for hit in hits] == list(range(1, len(hits) + 1))
    assert [hit.title for hit in await _provider(wiki).search_prefix("shirley Temple", 5)] == ["Shirley Temple"]
    assert await _provider(wiki).search_prefix("Zzyzx Qwerty", 5) == []


async def test_search_follows_real_continuation(wiki: MediaWikiSite) -> None:
    everything = await _provider(wiki).search("film", 50)
    paged = await _provider(wiki, page_size=2).search("film", 5)
    assert len(everything) > 5
    assert [hit.rank for hit in paged] == [1, 2, 3, 4, 5]
    assert [hit.url for hit in paged] == [hit.url for hit in everything[:5]]


async def test_pages_are_read_over_https_from_the_wiki(wiki: MediaWikiSite) -> None:
    offset = wiki.log_offset()
    page = await read_page(wiki.page_url(FILM), policy=wiki.policy())
    assert QUOTE in normalize_text(" ".join(page.paragraphs))
    assert wiki.pages_requested(offset) == [FILM]


def _answer_from_film(chunks: list[tuple[str, str, str]]) -> dict[str, Any]:
    claims = [{"claim": "Shirley Temple played Corliss Archer in Kiss and Tell.", "chunk_id": label, "quote": QUOTE}
              for label, _origin, text in chunks if QUOTE in text]
    return {"status": "answered" if claims else "insufficient-evidence",
            "answer": "Shirley Temple played Corliss Archer in Kiss and Tell (1945).", "claims": claims[:1]}


async def test_web_qa_publishes_a_verified_quote_from_the_wiki(
    wiki: MediaWikiSite, scripted_model: ScriptedModel, redis_url: str, tmp_path: Path
) -> None:
    from ditto_nb.testing.scripted_config import scripted_runtime_config

    config: RuntimeConfig = scripted_runtime_config(scripted_model, redis_url=redis_url)
    scripted_model.responder = Script(queries=["Kiss and Tell 1945 film"], answer=_answer_from_film)
    search = SearchSetup(provider="mediawiki", mediawiki_api_url=wiki.api_url, ca_bundle=str(wiki.ca_path),
                         resolve_overrides=wiki.resolve_overrides, policy_overrides={"retries": 0})
    request = make_request(wiki, "wiki-1", question="Who played Corliss Archer in the film Kiss and Tell?")  # type: ignore[arg-type]
    offset = wiki.log_offset()
    report = await run_once(tmp_path / "task", request, config, search, scripted_model)
    assert isinstance(report, WebQaReport)
    assert report.answer.status == "answered", report.answer
    citation = report.answer.claims[0].citations[0]
    assert citation.quote == QUOTE and citation.origin == wiki.origin
    assert citation.final_url == wiki.page_url(FILM)
    assert report.answer.claims[0].verification.quotes_verified
    assert FILM in wiki.pages_requested(offset)
    served = await read_page(citation.final_url, policy=wiki.policy())
    assert QUOTE in normalize_text(served.paragraphs[citation.paragraph_index])


def test_stop_ends_the_servers_and_start_serves_again(wiki: MediaWikiSite) -> None:
    port = wiki.port
    wiki.stop()
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=2):
        pass
    assert MediaWikiSite.attach(wiki.folder) is None
    wiki.start()
    attached = MediaWikiSite.attach(wiki.folder)
    assert attached is not None and attached.port == wiki.port
    assert re.fullmatch(r"https://wiki\.test:\d+/w/api\.php", attached.api_url)
