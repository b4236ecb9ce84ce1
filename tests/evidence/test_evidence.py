"""Unit tests of ditto_nb.evidence: chunk ids, exact quote location, cross-check, conflicts."""

from __future__ import annotations

import hashlib

from ditto_nb.evidence import (
    Chunk,
    chunk_id_for,
    chunks_by_id,
    chunks_from_page,
    crosscheck,
    dedupe_mirrors,
    locate_quote,
    verify_conflict,
    verify_quote,
)


def _page(host: str, paragraphs: list[str], body: bytes | None = None) -> dict[str, object]:
    raw = body if body is not None else ("|".join(paragraphs) + host).encode()
    return {
        "url": f"https://{host}:8443/p",
        "final_url": f"https://{host}:8443/p",
        "title": f"Page on {host}",
        "fetched_at": "2024-01-01T00:00:00+00:00",
        "sha256": hashlib.sha256(raw).hexdigest(),
        "paragraphs": paragraphs,
    }


def test_chunk_ids_are_stable_and_skip_empty_paragraphs() -> None:
    page = _page("a.test", ["First.", "", "Third\u00a0one."])
    chunks = chunks_from_page(page)
    sha = str(page["sha256"])
    assert [c.chunk_id for c in chunks] == [f"{sha[:12]}:0", f"{sha[:12]}:2"]
    assert chunks[1].text == "Third one."
    assert chunks[0].origin == "https://a.test:8443"
    assert chunk_id_for(sha, 2) == chunks[1].chunk_id
    assert chunks_from_page(page) == chunks


def test_locate_quote_gives_paragraph_and_offsets() -> None:
    paragraphs = ["Alpha beta.", "The bridge is 1,280 m long and opened in 1937."]
    loc = locate_quote("1,280 m long", paragraphs)
    assert loc is not None
    assert (loc.paragraph_index, loc.start, loc.end) == (1, 14, 26)
    assert paragraphs[1][loc.start : loc.end] == "1,280 m long"


def test_nbsp_in_page_matches_plain_space_quote() -> None:
    loc = locate_quote("final words.", ["These are the final&nbsp;words.".replace("&nbsp;", "\u00a0")])
    assert loc is not None and loc.quote == "final words."


def test_ellipsis_never_bridges_removed_negation() -> None:
    paragraphs = ["The water is not safe to drink after floods."]
    assert locate_quote("The water is ... safe to drink", paragraphs) is None
    assert locate_quote("The water is \u2026 safe to drink", paragraphs) is None
    assert locate_quote("The water is safe to drink", paragraphs) is None
    assert locate_quote("...is not safe to drink...", paragraphs) is not None


def test_empty_and_changed_numbers_rejected() -> None:
    paragraphs = ["It weighs 12 kg."]
    assert locate_quote("", paragraphs) is None
    assert locate_quote("  ...  ", paragraphs) is None
    assert locate_quote("It weighs 12 lb.", paragraphs) is None
    assert locate_quote("weighs 12 kg", paragraphs) is not None


def test_verify_quote_only_against_cited_chunk() -> None:
    chunks = chunks_by_id(chunks_from_page(_page("a.test", ["Cats sleep a lot.", "Dogs bark loudly."])))
    first, second = list(chunks)
    assert verify_quote(first, "Cats sleep", chunks).ok
    wrong = verify_quote(first, "Dogs bark", chunks)
    assert not wrong.ok and wrong.reason == "not-found"
    unknown = verify_quote("deadbeef0000:0", "Cats sleep", chunks)
    assert not unknown.ok and unknown.reason == "unknown-chunk"
    ok = verify_quote(second, "bark loudly", chunks)
    assert ok.location is not None and ok.location.paragraph_index == 1 and ok.location.start == 5


def test_the_one_quote_rule_forgives_quote_marks_and_one_final_punctuation_only() -> None:
    text = "It was designed by engineer Ilse Marrek and completed in 1931, after two floods."
    chunks = chunks_by_id(chunks_from_page(_page("a.test", [text])))
    [cid] = list(chunks)
    check = verify_quote(cid, "\u201cIt was designed by engineer Ilse Marrek and completed in 1931.\u201d", chunks)
    assert check.ok and check.location is not None
    assert text[check.location.start:check.location.end] == check.location.quote == (
        "It was designed by engineer Ilse Marrek and completed in 1931")
    assert not verify_quote(cid, "It was designed by Ilse Marrek", chunks).ok  # a paraphrase never passes
    assert not verify_quote(cid, "designed by engineer Ilse Marrek in 1931", chunks).ok
    assert not verify_quote(cid, "completed in 1931!", chunks).ok  # only . , ; : are forgiven
    assert verify_quote(cid, " . ", chunks).reason == "empty-quote"


def _checks(pages: list[dict[str, object]], quote: str) -> list:
    out = []
    for page in pages:
        chunks = chunks_by_id(chunks_from_page(page))
        for chunk_id in chunks:
            out.append(verify_quote(chunk_id, quote, chunks))
    return out


def test_crosscheck_needs_two_origins_with_different_text() -> None:
    a = _page("a.test", ["The tower is 330 m tall, says A."])
    b = _page("b.test", ["Measured at 330 m tall, per B."])
    result = crosscheck(_checks([a, b], "330 m tall"))
    assert result.passed and result.independent == 2
    single = crosscheck(_checks([a], "330 m tall"))
    assert not single.passed and single.independent == 1


def test_mirrors_count_once() -> None:
    text = ["The tower is 330 m tall, says A."]
    a = _page("a.test", text)
    mirror = _page("mirror.test", text)
    result = crosscheck(_checks([a, mirror], "330 m tall"))
    assert not result.passed
    assert result.independent == 1
    assert set(result.mirrored_origins) == {"https://a.test:8443", "https://mirror.test:8443"}
    assert len(dedupe_mirrors(chunks_from_page(a) + chunks_from_page(mirror))) == 1


def test_two_texts_on_one_origin_count_once() -> None:
    a = _page("a.test", ["330 m tall, one.", "330 m tall, two."])
    result = crosscheck(_checks([a], "330 m tall"))
    assert not result.passed and result.independent == 1


def test_failed_quotes_do_not_count() -> None:
    a = _page("a.test", ["The tower is 330 m tall."])
    b = _page("b.test", ["The tower is 300 m tall."])
    assert not crosscheck(_checks([a, b], "330 m tall")).passed


def test_conflict_keeps_both_sides() -> None:
    a = chunks_from_page(_page("a.test", ["The dam opened in 1931."]))[0]
    b = chunks_from_page(_page("b.test", ["The dam opened in 1936."]))[0]
    index: dict[str, Chunk] = {a.chunk_id: a, b.chunk_id: b}
    conflict = verify_conflict("opening year", (a.chunk_id, "opened in 1931"), (b.chunk_id, "opened in 1936"), index)
    assert conflict is not None
    assert [side.location.quote for side in conflict.sides if side.location] == ["opened in 1931", "opened in 1936"]
    assert verify_conflict("x", (a.chunk_id, "opened in 1999"), (b.chunk_id, "opened in 1936"), index) is None
    assert verify_conflict("x", (a.chunk_id, "opened"), (a.chunk_id, "dam"), index) is None
