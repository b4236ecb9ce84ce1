"""Content-addressed page snapshots under ``<directory>/snapshots/``.

Each snapshot is two files named by the SHA-256 of the raw body: ``<sha256>.body`` (the raw
body bytes) and ``<sha256>.json`` (final URL, fetched_at, headers, title, paragraphs, ... and
``paragraphs_sha256``). Both are written atomically (temporary file in the same directory,
``fsync``, ``os.replace``); the JSON is written last, so a snapshot exists only once complete.
:meth:`SnapshotStore.load` and :meth:`SnapshotStore.verify` re-hash the body and the paragraphs
before any reuse; a mismatch raises :class:`~ditto_nb.errors.SnapshotCorrupted`.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ditto_nb.errors import SnapshotCorrupted
from ditto_nb.web.fetch import Page

_SHA256 = re.compile(r"^[0-9a-f]{64}$")


def _paragraphs_digest(paragraphs: list[str]) -> str:
    return hashlib.sha256(json.dumps(paragraphs, ensure_ascii=False).encode("utf-8")).hexdigest()


class Snapshot(BaseModel):
    """A stored page: the raw body and what was read from it.

    Attributes:
        sha256: hex SHA-256 of ``body`` (the snapshot's address).
        body: raw body bytes (after content-encoding decoding); excluded from JSON dumps.
        paragraphs_sha256: hex SHA-256 of the paragraphs as a JSON array (UTF-8).
        other_urls: final URLs of other pages whose body was byte-identical (a mirror), stored
            once under the same address; ``final_url`` is the first one stored.
    """

    model_config = ConfigDict(frozen=True)

    sha256: str
    requested_url: str
    final_url: str
    status: int
    title: str | None = None
    fetched_at: str
    content_type: str | None = None
    charset: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    paragraphs: list[str] = Field(default_factory=list)
    paragraphs_sha256: str
    other_urls: list[str] = Field(default_factory=list)
    body: bytes = Field(default=b"", exclude=True, repr=False)

    def serves(self, url: str) -> bool:
        """Whether ``url`` is this snapshot's final URL or one of its byte-identical mirrors."""
        return url == self.final_url or url in self.other_urls

    def to_page(self) -> Page:
        """The :class:`~ditto_nb.web.fetch.Page` this snapshot was stored from (failure None)."""
        return Page(
            requested_url=self.requested_url,
            final_url=self.final_url,
            status=self.status,
            title=self.title,
            fetched_at=self.fetched_at,
            content_type=self.content_type,
            charset=self.charset,
            sha256=self.sha256,
            paragraphs=list(self.paragraphs),
            failure=None,
            headers=dict(self.headers),
            body=self.body,
        )


def _write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class SnapshotStore:
    """Snapshots of pages in ``<directory>/snapshots/``, addressed by the body's SHA-256.

    Args:
        directory: the task directory (``snapshots/`` is created inside on first write).
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.root = Path(directory) / "snapshots"

    def _paths(self, sha256: str) -> tuple[Path, Path]:
        if not _SHA256.match(sha256 or ""):
            raise SnapshotCorrupted(f"not a SHA-256 hex digest: {sha256!r}")
        return self.root / f"{sha256}.body", self.root / f"{sha256}.json"

    def put(self, page: Page) -> str:
        """Store ``page`` (body, headers, final URL, fetched_at, paragraphs); idempotent. A page
        whose body is already stored under another final URL (a mirror) adds that URL to the
        snapshot's ``other_urls``.

        Args:
            page: a page whose ``body`` hashes to ``page.sha256``.

        Returns:
            The SHA-256 (hex) under which it is stored.

        Raises:
            SnapshotCorrupted: ``page.body`` does not hash to ``page.sha256``.
        """
        digest = hashlib.sha256(page.body).hexdigest()
        if digest != page.sha256:
            raise SnapshotCorrupted(f"page body hashes to {digest}, not its recorded sha256 {page.sha256}")
        body_path, meta_path = self._paths(digest)
        if meta_path.exists():
            try:
                stored = self.load(digest)
            except SnapshotCorrupted:
                pass  # rewrite a damaged copy from the live page below
            else:
                if not stored.serves(page.final_url):  # a mirror: the same bytes at another URL
                    extended = stored.model_copy(update={"other_urls": [*stored.other_urls, page.final_url]})
                    _write_atomic(meta_path, extended.model_dump_json(indent=1).encode("utf-8"))
                return digest
        self.root.mkdir(parents=True, exist_ok=True)
        snapshot = Snapshot(
            sha256=digest,
            requested_url=page.requested_url,
            final_url=page.final_url,
            status=page.status,
            title=page.title,
            fetched_at=page.fetched_at,
            content_type=page.content_type,
            charset=page.charset,
            headers=page.headers,
            paragraphs=page.paragraphs,
            paragraphs_sha256=_paragraphs_digest(page.paragraphs),
        )
        _write_atomic(body_path, page.body)
        _write_atomic(meta_path, snapshot.model_dump_json(indent=1).encode("utf-8"))
        return digest

    def exists(self, sha256: str) -> bool:
        """True when a (complete) snapshot is stored under ``sha256``; does not verify it."""
        return self._paths(sha256)[1].exists()

    def load(self, sha256: str) -> Snapshot:
        """Load and re-verify the snapshot stored under ``sha256``.

        Returns:
            The :class:`Snapshot`, with ``body``.

        Raises:
            SnapshotCorrupted: missing, unreadable, or the body/paragraphs no longer match
                their SHA-256.
        """
        body_path, meta_path = self._paths(sha256)
        try:
            body = body_path.read_bytes()
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            snapshot = Snapshot.model_validate({**meta, "body": body})
        except FileNotFoundError as exc:
            raise SnapshotCorrupted(f"snapshot {sha256} is missing ({exc.filename})") from exc
        except (OSError, ValueError, ValidationError) as exc:
            raise SnapshotCorrupted(f"snapshot {sha256} is unreadable: {exc}") from exc
        actual = hashlib.sha256(body).hexdigest()
        if actual != sha256 or snapshot.sha256 != sha256:
            raise SnapshotCorrupted(f"snapshot {sha256}: body now hashes to {actual}")
        if _paragraphs_digest(snapshot.paragraphs) != snapshot.paragraphs_sha256:
            raise SnapshotCorrupted(f"snapshot {sha256}: stored paragraphs were altered")
        return snapshot

    def verify(self, sha256: str) -> None:
        """Re-hash the snapshot under ``sha256``.

        Raises:
            SnapshotCorrupted: missing or altered (see :meth:`load`).
        """
        self.load(sha256)

    def digests(self) -> list[str]:
        """The SHA-256 of every complete snapshot, sorted."""
        if not self.root.exists():
            return []
        return sorted(p.stem for p in self.root.glob("*.json") if _SHA256.match(p.stem))


__all__ = ["Snapshot", "SnapshotStore"]
