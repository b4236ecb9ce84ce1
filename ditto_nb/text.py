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

from text_to_num import alpha2digit

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


_BOUNDARY = {marks: re.compile(rf"(?<=[{re.escape(marks)}])\s+") for marks in (".!?", ".!?;")}
_NOT_AN_END = re.compile(
    r"(?:(?<![\w.])[A-Z]|(?<![\w.])(?:Mr|Mrs|Ms|Dr|Prof|St|Mt|Ft|Jr|Sr|Gen|Col|Lt|Sgt|Capt|Rev|Inc|Co|Ltd|"
    r"Bros|vs|etc|No|Vol|ca|c|U\.S|e\.g|i\.e))\.$"
)
"""A period that ends an initial (``K. A. Applegate``) or a common abbreviation (``Dr.``,
``U.S.``, ``St.``), not a sentence."""


def split_sentences(text: str, marks: str = ".!?") -> list[str]:
    """Split ``text`` into sentences at whitespace after one of ``marks``.

    A period after a single capital letter (an initial: ``K. A. Applegate``) or after a common
    abbreviation (``Dr.``, ``St.``, ``U.S.``, ``e.g.``) does not end a sentence. The pieces keep
    their own characters; the whitespace between them is dropped, so ``" ".join(pieces)`` equals
    ``text`` when it holds single spaces (normalized text).

    Args:
        text: the text to split (normally already :func:`normalize_text`-ed).
        marks: the characters that can end a sentence: ``".!?"`` or ``".!?;"``.

    Returns:
        The non-empty sentences in order.
    """
    pieces: list[str] = []
    start = 0
    for match in _BOUNDARY[marks].finditer(text):
        piece = text[start: match.start()]
        if piece.endswith(".") and _NOT_AN_END.search(piece):
            continue
        pieces.append(piece)
        start = match.end()
    pieces.append(text[start:])
    return [p for p in pieces if p]


_DANGLING = frozenset("a an the and or but of to in on at by for from with as than that which who whose".split())


_SENTENCE_END = frozenset(".!?\"')”’")


def uncut(text: str, limit: int) -> str:
    """``text`` without the word a length cap cut in half.

    A local model's output grammar stops a string at its schema ``maxLength``, often mid-word
    ("... the Georgia Army Nat"); the fragment would then read as a name or word the quote lacks.
    When ``text`` is at least ``limit`` characters long and does not end at a word boundary, its
    last (partial) word, then any dangling function words ("… to the south and the") and trailing
    punctuation are dropped, and `` …`` marks the cut. When it is that long and ends in padding
    after a whole word (the grammar filled the cap with spaces), the padding and dangling words
    are dropped and `` …`` marks the cut, unless the text ends a sentence. Otherwise ``text`` is
    returned unchanged.

    Args:
        text: the generated string.
        limit: the schema's ``maxLength`` for it (characters).

    Returns:
        The string, possibly shortened at its end (then ending in `` …``).
    """
    if len(text) < limit or not text:
        return text
    if text[-1].isspace():
        # the cap fell on padding after a whole word ("… and the Right  "): keep the word, but
        # the sentence was still cut unless it ends like one
        head = text.rstrip()
        if not head or head[-1] in _SENTENCE_END:
            return head
    elif not text[-1].isalnum():
        return text
    else:
        head = text.rsplit(None, 1)[0] if " " in text.strip() else text
        if head == text:
            return text
    words = head.rstrip(" ,;:-–(").split(" ")
    while len(words) > 1 and words[-1].lower() in _DANGLING:
        words.pop()
    return " ".join(words).rstrip(" ,;:-–(") + " …"


def with_digits(text: str) -> str:
    """``text`` with its written-out numbers as digits ("an opera in three acts" → "an opera in 3
    acts", "about seventy species" → "about 70 species"), by text2num's ``alpha2digit`` (English;
    a lone "one", as in "one of the", and ordinals up to "third" stay words). A reading aid for
    numbers, not part of :func:`normalize_text`: quotes are never rewritten. Pure."""
    return str(alpha2digit(text, "en"))


__all__ = ["normalize_text", "split_sentences", "uncut", "with_digits"]
