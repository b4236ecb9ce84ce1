"""The second hop looks up the names of the first pages by page title (real sandbox search,
scripted model): a page titled by a name the first page gives is read even when that name is
not among the two names code would search."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ditto_nb.patterns.common import SearchSetup
from ditto_nb.patterns.common.tools import named_pages, titled_by
from ditto_nb.sandbox import wiki_url
from tests.patterns.web_qa.helpers import Script, make_request, run_once
from tests.patterns.web_qa.test_retrieval_flow import Recorder, claim_for

LUMAMART = ("Lumamart was a hypermarket chain. In 1991 the chain was bought by a group of Ari Kemp, "
            "Lena Strand, Tomas Berg and Vextor Retail.")
VEXTOR = "Vextor Retail is a retail group. At the end of 2016 Vextor Retail operated 1,462 hypermarkets."
QUESTION = "How many hypermarkets did the chain that bought Lumamart in 1991 operate at the end of 2016?"


def test_titled_by_drops_a_qualifier_or_a_place_s_region() -> None:
    assert titled_by("Drifting (motorsport)", "Drifting")
    assert titled_by("Marion, South Australia", "Marion")
    assert titled_by("Vextor Retail", "vextor  retail")
    assert not titled_by("Vextor Retail Park", "Vextor Retail")
    assert not titled_by("Marion", "")


async def test_named_pages_keeps_one_titled_page_per_name_and_skips_pages_read(sandbox_factory: Any) -> None:
    web = sandbox_factory([
        {"url": wiki_url("Lumamart"), "title": "Lumamart", "paragraphs": [LUMAMART]},
        {"url": wiki_url("Vextor Retail"), "title": "Vextor Retail", "paragraphs": [VEXTOR]},
        {"url": wiki_url("Vextor Retail Park"), "title": "Vextor Retail Park", "paragraphs": ["A park."]},
    ])
    provider = SearchSetup.from_sandbox(web).build_provider()
    read = [h.url for h in await provider.search("Lumamart", 3) if h.title == "Lumamart"]
    assert read
    hits = await named_pages(provider, ["Ari Kemp", "Vextor Retail", "Lumamart"], seen=read)
    assert [h["title"] for h in hits] == ["Vextor Retail"]  # no page for Ari Kemp; Lumamart was read


async def test_named_pages_prefers_the_exact_title_else_two_qualified_ones(sandbox_factory: Any) -> None:
    web = sandbox_factory([
        {"url": wiki_url("Marion, Arkansas"), "title": "Marion, Arkansas", "paragraphs": ["A city in Arkansas."]},
        {"url": wiki_url("Marion, South Australia"), "title": "Marion, South Australia",
         "paragraphs": ["A suburb of Adelaide."]},
        {"url": wiki_url("Marion Barry"), "title": "Marion Barry", "paragraphs": ["A politician."]},
        {"url": wiki_url("Vextor Retail"), "title": "Vextor Retail", "paragraphs": [VEXTOR]},
        {"url": wiki_url("Vextor Retail (album)"), "title": "Vextor Retail (album)", "paragraphs": ["An album."]},
    ])
    provider = SearchSetup.from_sandbox(web).build_provider()
    assert [h["title"] for h in await named_pages(provider, ["Marion"], seen=[])] == [
        "Marion, Arkansas", "Marion, South Australia"]  # not "Marion Barry": another name
    assert [h["title"] for h in await named_pages(provider, ["Vextor Retail"], seen=[])] == ["Vextor Retail"]


async def test_second_hop_reads_the_page_a_later_name_titles(tmp_path: Path, sandbox_factory: Any, config,
                                                               scripted_model) -> None:
    """Four names stand equally before "bought by"; only the fourth has a page. The hop's query and
    its alternates find only the page read, but the title lookup finds Vextor Retail."""
    web = sandbox_factory([
        {"url": wiki_url("Lumamart"), "title": "Lumamart", "paragraphs": [LUMAMART]},
        {"url": wiki_url("Vextor Retail"), "title": "Vextor Retail", "paragraphs": [VEXTOR]},
    ])

    def answer(chunks: list[tuple[str, str, str]]) -> dict[str, Any]:
        return {"status": "answered", "answer": "1,462", "claims": [
            claim_for(chunks, "At the end of 2016 Vextor Retail operated 1,462 hypermarkets.",
                      "Vextor Retail operated 1,462 hypermarkets.")]}

    scripted_model.responder = Recorder(Script(queries=["Lumamart"], answer=answer))
    report = await run_once(tmp_path / "t", make_request(web, question=QUESTION, max_queries=2, max_pages=4),
                            config, SearchSetup.from_sandbox(web), scripted_model)
    hop = report.searches[-1]
    assert hop.hits[0]["title"] == "Vextor Retail"
    assert len(report.queries) == 2 and report.queries[1] != "Vextor Retail"  # not found by the query itself
    assert "Vextor Retail" in {c.title for c in report.evidence}
    assert report.answer.text == "1,462"
