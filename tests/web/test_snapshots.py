"""SnapshotStore: content addressing, atomic files, re-verification."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from ditto_nb.errors import SnapshotCorrupted
from ditto_nb.web import Page, SnapshotStore

BODY = b"<html><head><title>T</title></head><body><p>One.</p><p>Two.</p></body></html>"


def _page(body: bytes = BODY) -> Page:
    return Page(
        requested_url="https://a.test:8443/x",
        final_url="https://a.test:8443/y",
        status=200,
        title="T",
        fetched_at="2026-01-01T00:00:00+00:00",
        content_type="text/html; charset=utf-8",
        charset="utf-8",
        sha256=hashlib.sha256(body).hexdigest(),
        paragraphs=["One.", "Two."],
        headers={"content-type": "text/html; charset=utf-8"},
        body=body,
    )


def test_put_load_round_trip(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    digest = store.put(_page())
    assert digest == hashlib.sha256(BODY).hexdigest()
    assert (tmp_path / "snapshots" / f"{digest}.body").read_bytes() == BODY
    snapshot = store.load(digest)
    assert snapshot.body == BODY and snapshot.paragraphs == ["One.", "Two."]
    assert snapshot.final_url == "https://a.test:8443/y" and snapshot.fetched_at == "2026-01-01T00:00:00+00:00"
    assert snapshot.headers == {"content-type": "text/html; charset=utf-8"}
    assert snapshot.to_page() == _page()
    store.verify(digest)
    assert store.digests() == [digest] and store.exists(digest)
    assert not any(p.name.endswith(".tmp") for p in (tmp_path / "snapshots").iterdir())


def test_put_is_idempotent(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    assert store.put(_page()) == store.put(_page())
    assert len(list((tmp_path / "snapshots").iterdir())) == 2


def test_altered_body_is_detected(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    digest = store.put(_page())
    (tmp_path / "snapshots" / f"{digest}.body").write_bytes(BODY.replace(b"One", b"Won"))
    with pytest.raises(SnapshotCorrupted):
        store.load(digest)
    with pytest.raises(SnapshotCorrupted):
        store.verify(digest)


def test_altered_paragraphs_are_detected(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    digest = store.put(_page())
    meta_path = tmp_path / "snapshots" / f"{digest}.json"
    meta = json.loads(meta_path.read_text())
    meta["paragraphs"] = ["One.", "Three."]
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(SnapshotCorrupted):
        store.verify(digest)


def test_missing_or_garbled_snapshot(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    with pytest.raises(SnapshotCorrupted):
        store.load("0" * 64)
    with pytest.raises(SnapshotCorrupted):
        store.load("../../etc/passwd")
    digest = store.put(_page())
    (tmp_path / "snapshots" / f"{digest}.json").write_text("{not json")
    with pytest.raises(SnapshotCorrupted):
        store.load(digest)
    assert store.put(_page()) == digest  # a damaged copy is rewritten from the live page
    store.verify(digest)


def test_page_whose_hash_does_not_match_is_refused(tmp_path: Path) -> None:
    page = _page().model_copy(update={"sha256": "f" * 64})
    with pytest.raises(SnapshotCorrupted):
        SnapshotStore(tmp_path).put(page)


def test_a_mirror_with_the_same_body_is_recorded_on_the_one_snapshot(tmp_path: Path) -> None:
    # seen with the real model: a conclusion cited wiki.test while the snapshot held mirror.test
    store = SnapshotStore(tmp_path)
    body = b"<html><body><p>The Seine flows through Paris.</p></body></html>"
    digest = store.put(_page(body).model_copy(update={"final_url": "https://mirror.test:8443/wiki/Paris"}))
    mirror = _page(body).model_copy(update={"final_url": "https://wiki.test:8443/wiki/Paris"})
    assert store.put(mirror) == digest
    assert store.put(mirror) == digest  # recorded once
    snapshot = store.load(digest)
    assert snapshot.final_url == "https://mirror.test:8443/wiki/Paris"
    assert snapshot.other_urls == ["https://wiki.test:8443/wiki/Paris"]
    assert snapshot.serves("https://wiki.test:8443/wiki/Paris") and not snapshot.serves("https://x.test/")
