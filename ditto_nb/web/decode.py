"""Bytes → text for HTML bodies.

Charset precedence: the HTTP ``Content-Type`` charset, then a byte-order mark, then a
``<meta charset>`` / ``<meta http-equiv="Content-Type">`` declaration in the first 4096 bytes,
then detection (strict UTF-8 first, then ``charset-normalizer``). ``text/html`` without a
declared charset is never assumed to be Latin-1. Labels are mapped as in the WHATWG Encoding
Standard where Python's codec differs (``gb2312`` → ``gbk``, ``iso-8859-1`` → ``cp1252``, ...).
"""

from __future__ import annotations

import codecs
import re
from email.message import Message

import charset_normalizer

_META_SCAN_BYTES = 4096
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9._:\-]+)""", re.IGNORECASE)

# WHATWG label → the Python codec that decodes it like a browser does.
_WHATWG_ALIASES = {
    "gb2312": "gbk",
    "gb_2312-80": "gbk",
    "x-gbk": "gbk",
    "iso-8859-1": "cp1252",
    "iso8859-1": "cp1252",
    "latin1": "cp1252",
    "latin-1": "cp1252",
    "l1": "cp1252",
    "us-ascii": "cp1252",
    "ascii": "cp1252",
    "iso-8859-9": "cp1254",
    "tis-620": "cp874",
    "iso-8859-11": "cp874",
    "ks_c_5601-1987": "euc-kr",
    "x-sjis": "shift_jis",
    "unicode-1-1-utf-8": "utf-8",
    "utf8": "utf-8",
}
_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def media_type_of(content_type: str | None) -> str | None:
    """The lower-cased media type of a ``Content-Type`` value (``"text/html"``), or None."""
    if not content_type or not content_type.strip():
        return None
    return content_type.split(";", 1)[0].strip().lower() or None


def charset_of(content_type: str | None) -> str | None:
    """The ``charset`` parameter of a ``Content-Type`` value, lower-cased, or None."""
    if not content_type:
        return None
    message = Message()
    message["content-type"] = content_type
    value = message.get_param("charset")
    if isinstance(value, tuple):  # RFC 2231 form
        value = value[2]
    return str(value).strip().strip("\"'").lower() if value else None


def codec_for(label: str | None) -> str | None:
    """The Python codec name for a charset label, or None when Python has no such codec."""
    if not label:
        return None
    label = label.strip().lower()
    label = _WHATWG_ALIASES.get(label, label)
    try:
        return codecs.lookup(label).name
    except LookupError:
        return None


def meta_charset(body: bytes) -> str | None:
    """The charset declared by a ``<meta>`` tag in the first 4096 bytes of ``body``, or None."""
    match = _META_CHARSET.search(body[:_META_SCAN_BYTES])
    return match.group(1).decode("ascii", "replace").lower() if match else None


def detect_charset(body: bytes) -> str:
    """Guess the charset of undeclared bytes: strict UTF-8 first, then ``charset-normalizer``.

    Returns:
        A Python codec name (``"utf-8"`` when nothing better is found; never a Latin-1 default).
    """
    try:
        body.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError:
        pass
    best = charset_normalizer.from_bytes(body).best()
    if best is not None:
        codec = codec_for(best.encoding)
        if codec is not None:
            return codec
    return "utf-8"


_BINARY_SAMPLE_CHARS = 8192
_BINARY_SHARE = 0.05
_TEXT_CONTROLS = frozenset("\t\n\r\f\v")


def looks_binary(text: str) -> bool:
    """True when decoded text is really binary data (an image, archive, PDF served as HTML).

    Looks at the first 8192 characters: more than 5% NULs, other C0/C1 control characters
    (tab, newlines and form feed excepted) or U+FFFD replacement characters means binary.

    Args:
        text: the decoded body (see :func:`decode_html`).
    """
    sample = text[:_BINARY_SAMPLE_CHARS]
    if not sample:
        return False
    odd = sum(
        1
        for ch in sample
        if ch == "\ufffd" or ((ch < " " or "\x7f" <= ch <= "\x9f") and ch not in _TEXT_CONTROLS)
    )
    return odd > _BINARY_SHARE * len(sample)


def decode_html(body: bytes, content_type: str | None) -> tuple[str, str]:
    """Decode an HTML body to text following the module's charset precedence.

    Args:
        body: the response body (after content-encoding decoding).
        content_type: the ``Content-Type`` header value, or None.

    Returns:
        ``(text, codec)``: the text (BOM removed; undecodable bytes replaced with U+FFFD) and
        the Python codec name used.
    """
    codec = codec_for(charset_of(content_type))
    start = 0
    if codec is None:
        for bom, name in _BOMS:
            if body.startswith(bom):
                codec, start = name, len(bom)
                break
    if codec is None:
        codec = codec_for(meta_charset(body))
        if codec is not None and codec.startswith("utf-16"):
            codec = "utf-8"  # a meta tag readable as ASCII cannot be UTF-16 (WHATWG)
    if codec is None:
        codec = detect_charset(body)
    text = body[start:].decode(codec, errors="replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    return text, codec


__all__ = [
    "charset_of", "codec_for", "decode_html", "detect_charset", "looks_binary", "media_type_of", "meta_charset",
]
