"""Score main-text extraction on the scrapinghub article-extraction-benchmark layout.

Data layout (https://github.com/scrapinghub/article-extraction-benchmark):

    <data>/ground-truth.json      {"<id>": {"articleBody": "...", "url": "..."}, ...}
    <data>/html/<id>.html.gz      the gzip-compressed page

For each extractor — ours (:func:`ditto_nb.web.extract_paragraphs`) and plain
``trafilatura.extract`` — the script reports bag-of-tokens precision, recall and F1 against
``articleBody`` (tokens: lower-cased ``\\w+`` runs after ``normalize_text``; multiset overlap,
macro-averaged over pages) and pages per second, side by side in one run. The extractors take
turns page by page (each page's HTML goes to one, then the other), so a change of machine load
during the run affects both speeds alike; pages/second is pages over the summed extraction time
of that extractor (gzip decompression and scoring excluded). The upstream ``evaluate.py`` scores
token shingles instead of single tokens, so its figures are not comparable one to one.

Usage::

    python benchmarks/extraction.py [--data DIR] [--limit N] [--json]
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import trafilatura

from ditto_nb.text import normalize_text
from ditto_nb.web import extract_paragraphs

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO_ROOT / ".." / "shared" / "data" / "article-extraction-benchmark"
_TOKEN = re.compile(r"\w+")

Extractor = Callable[[bytes], str]


@dataclass(frozen=True)
class Score:
    """Macro-averaged scores of one extractor (precision/recall/F1 in [0, 1])."""

    extractor: str
    pages: int
    precision: float
    recall: float
    f1: float
    pages_per_second: float


def tokens(text: str) -> Counter[str]:
    """Lower-cased word tokens of ``text`` (after ``normalize_text``) as a multiset."""
    return Counter(_TOKEN.findall(normalize_text(text).lower()))


def prf(predicted: str, expected: str) -> tuple[float, float, float]:
    """Bag-of-tokens precision, recall and F1 of ``predicted`` against ``expected``.

    Both empty count as a perfect match; an empty prediction of a non-empty truth scores 0.
    """
    got, want = tokens(predicted), tokens(expected)
    if not got and not want:
        return 1.0, 1.0, 1.0
    overlap = sum((got & want).values())
    precision = overlap / sum(got.values()) if got else 0.0
    recall = overlap / sum(want.values()) if want else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def ours(html: bytes) -> str:
    """ditto_nb's extractor: paragraphs joined by newlines."""
    return "\n".join(extract_paragraphs(html, None))


def plain_trafilatura(html: bytes) -> str:
    """``trafilatura.extract`` with its defaults."""
    return trafilatura.extract(html) or ""


EXTRACTORS: dict[str, Extractor] = {"ditto_nb": ours, "trafilatura": plain_trafilatura}


def load_dataset(data: Path, limit: int | None = None) -> list[tuple[str, bytes, str]]:
    """Read ``(id, html bytes, articleBody)`` triples from the benchmark layout.

    Raises:
        FileNotFoundError: ``ground-truth.json`` or the ``html/`` folder is missing.
    """
    truth_path, html_dir = data / "ground-truth.json", data / "html"
    if not truth_path.is_file() or not html_dir.is_dir():
        raise FileNotFoundError(
            f"benchmark data not found under {data} (expected ground-truth.json and html/<id>.html.gz; "
            "get it from https://github.com/scrapinghub/article-extraction-benchmark or pass --data DIR)"
        )
    truth = json.loads(truth_path.read_text(encoding="utf-8"))
    items: list[tuple[str, bytes, str]] = []
    for page_id in sorted(truth):
        path = html_dir / f"{page_id}.html.gz"
        if not path.is_file():
            continue
        items.append((page_id, gzip.decompress(path.read_bytes()), str(truth[page_id].get("articleBody") or "")))
        if limit is not None and len(items) >= limit:
            break
    return items


def score_all(extractors: dict[str, Extractor], items: list[tuple[str, bytes, str]]) -> list[Score]:
    """Run every extractor over ``items`` (taking turns page by page) and score each.

    Returns:
        One macro-averaged :class:`Score` per extractor, in ``extractors`` order.
    """
    totals = {name: [0.0, 0.0, 0.0] for name in extractors}
    seconds = dict.fromkeys(extractors, 0.0)
    for _, html, expected in items:
        for name, extractor in extractors.items():
            started = time.perf_counter()
            output = extractor(html)
            seconds[name] += time.perf_counter() - started
            for i, value in enumerate(prf(output, expected)):
                totals[name][i] += value
    count = max(len(items), 1)
    return [
        Score(name, len(items), totals[name][0] / count, totals[name][1] / count, totals[name][2] / count,
              len(items) / seconds[name] if seconds[name] > 0 else 0.0)
        for name in extractors
    ]


def main(argv: list[str] | None = None) -> int:
    """CLI entry point; returns the process exit code (2 when the data is missing)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="benchmark folder (default: %(default)s)")
    parser.add_argument("--limit", type=int, default=None, help="score only the first N pages")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    try:
        items = load_dataset(args.data, args.limit)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not items:
        print(f"error: no pages found under {args.data}", file=sys.stderr)
        return 2
    scores = score_all(EXTRACTORS, items)
    if args.json:
        print(json.dumps([asdict(s) for s in scores], indent=2))
    else:
        print(f"{'extractor':<12} {'pages':>5} {'precision':>9} {'recall':>7} {'F1':>6} {'pages/s':>8}")
        for s in scores:
            print(f"{s.extractor:<12} {s.pages:>5} {s.precision:>9.3f} {s.recall:>7.3f} {s.f1:>6.3f} {s.pages_per_second:>8.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
