"""The one text normalization used everywhere quotes are matched.

Extraction (``ditto_nb.web``), quote verification (``ditto_nb.evidence``) and export all call
:func:`normalize_text`, so a quote that matches here matches everywhere.

Rules, applied in this order:

1. Unicode NFC (``unicodedata.normalize("NFC", ...)``).
2. NO-BREAK SPACE (U+00A0) and the other Unicode space separators (category ``Zs``),
   tabs and line breaks become a plain space.
3. SOFT HYPHEN (U+00AD) and zero-width characters (U+200B, U+200C, U+200D, U+2060, U+FEFF)
   are removed.
4. Runs of whitespace collapse to one space; leading and trailing spaces are stripped.
"""

from __future__ import annotations

import re
import unicodedata

_REMOVED = dict.fromkeys(map(ord, "\u00ad\u200b\u200c\u200d\u2060\ufeff"))
_WHITESPACE = re.compile(r"\s+")


def normalize_text(text: str) -> str:
    """Return ``text`` normalized for quote matching (rules in the module docstring).

    Args:
        text: any string.

    Returns:
        The normalized string (may be empty).
    """
    text = unicodedata.normalize("NFC", text).translate(_REMOVED)
    text = "".join(" " if unicodedata.category(ch) == "Zs" else ch for ch in text) if any(
        ord(ch) > 127 for ch in text
    ) else text
    return _WHITESPACE.sub(" ", text).strip()


__all__ = ["normalize_text"]
