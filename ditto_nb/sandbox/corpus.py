"""Sandbox corpus: the page records an offline sandbox web serves.

A corpus is a JSONL file, one page per line, either ``{"url", "title", "html"}`` or
``{"url", "title", "paragraphs": [...]}``, plus optional behaviour fields used by tests
(status, redirect, delay, headers, charset, content type, gzip, raw body). Every host must be
under the reserved ``.test`` top-level domain (RFC 2606), so a sandbox URL can never leak onto
the real web.
"""

from __future__ import annotations

import base64
import gzip as gzip_module
import html as html_module
import json
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ditto_nb.errors import ConfigError

DEFAULT_WIKI_HOST = "wiki.test"


class SandboxPage(BaseModel):
    """One page of the sandbox web.

    Exactly one of ``html``, ``paragraphs`` or ``raw_body_b64`` carries the content
    (``html`` and ``paragraphs`` may not both be set; a page with only ``raw_body_b64``
    is served byte for byte).

    Attributes:
        url: absolute ``https://<host>.test/...`` URL (no port; the sandbox adds its own).
        title: page title (used by the search index and the ``/wiki/<Title>`` route).
        html: the HTML document, served encoded in ``charset`` (default UTF-8).
        paragraphs: plain-text paragraphs, rendered as ``<h1>title</h1>`` + one ``<p>`` each.
        status: HTTP status code to answer with.
        redirect: ``Location`` target; with ``status`` 200 the page answers 302.
        delay_seconds: seconds to wait before answering (for timeout tests).
        trickle_seconds: when > 0, the body is sent one byte at a time, this many seconds
            apart (a slow page: every read returns within any read timeout).
        headers: extra response headers.
        charset: encoding of the body and, unless ``content_type`` is given, of the
            ``Content-Type`` header (default ``utf-8``).
        content_type: the exact ``Content-Type`` header value (e.g. bare ``text/html``).
        gzip: send ``Content-Encoding: gzip``; the body is gzip-compressed, except a
            ``raw_body_b64`` body, which is sent as given (already compressed).
        raw_body_b64: base64 of the exact body bytes (gzip bombs, PDFs, JSON replies).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    url: str
    title: str = ""
    html: str | None = None
    paragraphs: list[str] | None = None
    status: int = Field(default=200, ge=100, le=599)
    redirect: str | None = None
    delay_seconds: float = Field(default=0.0, ge=0.0, le=120.0)
    trickle_seconds: float = Field(default=0.0, ge=0.0, le=60.0)
    headers: dict[str, str] = Field(default_factory=dict)
    charset: str | None = None
    content_type: str | None = None
    gzip: bool = False
    raw_body_b64: str | None = None

    @field_validator("url")
    @classmethod
    def _check_url(cls, value: str) -> str:
        parts = urlsplit(value)
        host = (parts.hostname or "").lower()
        if parts.scheme not in ("https", "http") or not host:
            raise ValueError(f"url must be an absolute https URL, got {value!r}")
        if not host.endswith(".test"):
            raise ValueError(f"url host must be under .test (RFC 2606), got {host!r}")
        if parts.port is not None:
            raise ValueError(f"url must not carry a port (the sandbox assigns one), got {value!r}")
        return value

    @field_validator("charset")
    @classmethod
    def _check_charset(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                "".encode(value)
            except LookupError as exc:
                raise ValueError(f"unknown charset {value!r}") from exc
        return value

    @field_validator("raw_body_b64")
    @classmethod
    def _check_b64(cls, value: str | None) -> str | None:
        if value is not None:
            base64.b64decode(value, validate=True)
        return value

    @model_validator(mode="after")
    def _check_content(self) -> SandboxPage:
        if self.html is not None and self.paragraphs is not None:
            raise ValueError("give either html or paragraphs, not both")
        if self.html is None and self.paragraphs is None and self.raw_body_b64 is None and self.redirect is None:
            if self.status < 300:
                raise ValueError("a page needs html, paragraphs or raw_body_b64")
        return self

    @property
    def host(self) -> str:
        """The lower-cased hostname of :attr:`url`."""
        return (urlsplit(self.url).hostname or "").lower()

    @property
    def path(self) -> str:
        """The path of :attr:`url` (``/`` when empty), percent-decoded."""
        return unquote(urlsplit(self.url).path or "/")

    def render_html(self) -> str | None:
        """Return the page's HTML text, rendering ``paragraphs`` when needed.

        Returns:
            ``html`` as given, or (like a MediaWiki article) ``<title>title - Sandbox Wiki</title>``,
            ``<h1 id="firstHeading">title</h1>`` plus one ``<p>`` per paragraph (html-escaped),
            or None for a raw-body or content-less page.
        """
        if self.html is not None:
            return self.html
        if self.paragraphs is None:
            return None
        parts = [
            "<!DOCTYPE html>",
            "<html><head><meta charset=\"utf-8\">"
            f"<title>{html_module.escape(self.title)} - {SITE_NAME}</title></head><body>",
            f"<h1 id=\"firstHeading\" class=\"firstHeading\">{html_module.escape(self.title)}</h1>",
        ]
        parts.extend(f"<p>{html_module.escape(paragraph)}</p>" for paragraph in self.paragraphs)
        parts.append("</body></html>")
        return "\n".join(parts)

    def body_bytes(self) -> bytes:
        """Return the exact bytes to send (encoded, and gzip-compressed when declared).

        Returns:
            The response body in bytes.
        """
        if self.raw_body_b64 is not None:
            return base64.b64decode(self.raw_body_b64)
        text = self.render_html() or ""
        body = text.encode(self.charset or "utf-8")
        if self.gzip:
            body = gzip_module.compress(body, mtime=0)
        return body

    def content_type_header(self) -> str:
        """Return the ``Content-Type`` header value to send.

        Returns:
            ``content_type`` verbatim when declared, else ``application/octet-stream`` for a
            raw body, else ``text/html; charset=<charset or utf-8>``.
        """
        if self.content_type is not None:
            return self.content_type
        if self.raw_body_b64 is not None:
            return "application/octet-stream"
        return f"text/html; charset={self.charset or 'utf-8'}"


SITE_NAME = "Sandbox Wiki"
"""The site name in rendered pages' ``<title>`` (``Title - Sandbox Wiki``, as MediaWiki renders it)."""


def wiki_url(title: str, host: str = DEFAULT_WIKI_HOST) -> str:
    """Return the canonical wiki URL of ``title``: ``https://<host>/wiki/<Title_with_underscores>``.

    Args:
        title: the page title (spaces become underscores, then the path is percent-quoted).
        host: the wiki host.

    Returns:
        The URL string.
    """
    return f"https://{host}/wiki/{quote(title.replace(' ', '_'), safe='/:(),_-.!~*')}"


def demo_corpus_path() -> Path:
    """Path of the packaged demo corpus (``ditto_nb/data/demo_corpus.jsonl``; see its README)."""
    return Path(__file__).resolve().parent.parent / "data" / "demo_corpus.jsonl"


def demo_questions_path() -> Path:
    """Path of the packaged demo questions (``ditto_nb/data/demo_questions.jsonl``, HotpotQA shape)."""
    return Path(__file__).resolve().parent.parent / "data" / "demo_questions.jsonl"


def parse_corpus_lines(lines: Iterable[str], source: str = "<corpus>") -> list[SandboxPage]:
    """Validate JSONL corpus lines into pages.

    Args:
        lines: the JSONL lines (blank lines are skipped).
        source: a name for error messages (the file path).

    Returns:
        The pages, in file order.

    Raises:
        ConfigError: a line is not JSON or not a valid page (the message names the line), or
            two pages share one URL.
    """
    pages: list[SandboxPage] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            page = SandboxPage.model_validate(json.loads(line))
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{source}:{number}: not valid JSON: {exc}") from exc
        except ValidationError as exc:
            raise ConfigError(f"{source}:{number}: invalid sandbox page: {exc}") from exc
        if page.url in seen:
            raise ConfigError(f"{source}:{number}: duplicate url {page.url!r} (first on line {seen[page.url]})")
        seen[page.url] = number
        pages.append(page)
    return pages


def load_corpus(path: str | Path) -> list[SandboxPage]:
    """Load and validate a JSONL sandbox corpus.

    Args:
        path: the ``.jsonl`` file.

    Returns:
        The pages, in file order.

    Raises:
        ConfigError: the file is missing, or a line is invalid (the message names the line).
    """
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read sandbox corpus {file}: {exc}") from exc
    return parse_corpus_lines(text.splitlines(), source=str(file))


def write_corpus(pages: Iterable[SandboxPage], path: str | Path) -> int:
    """Write pages as a JSONL corpus (default-valued fields omitted).

    Args:
        pages: the pages.
        path: the output file (parent directories are created).

    Returns:
        The number of pages written.
    """
    file = Path(path)
    file.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with file.open("w", encoding="utf-8") as out:
        for page in pages:
            out.write(page.model_dump_json(exclude_defaults=True) + "\n")
            count += 1
    return count


__all__ = [
    "DEFAULT_WIKI_HOST",
    "SandboxPage",
    "demo_corpus_path",
    "demo_questions_path",
    "load_corpus",
    "parse_corpus_lines",
    "wiki_url",
    "write_corpus",
]
