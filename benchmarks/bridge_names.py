"""Bridge names offline: does code name the second page of a bridge question from the first page?

No model, no wiki: for each HotpotQA bridge question (default ``dev-150.jsonl``) whose two
supporting pages are one the question names (the first page: the supporting title sharing most
words with the question) and one it does not (the second page), the first page's paragraph is
given to :func:`ditto_nb.patterns.common.relevance.bridge_candidates` and the second page's title
is looked for among its names: first, or in the first two (a name matches when its words are the
title's words, parenthetical qualifier dropped, or a part of them, or them plus one word).

Run::

    python benchmarks/bridge_names.py [--data FILE] [--show]

Prints one line per setting (Web QA's hop admits one-word names; deep research does not):
questions, second page named first, named in the first two, and how many second pages the
first page names at all (the ceiling).
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from ditto_nb.patterns.common.relevance import bridge_candidates
from ditto_nb.patterns.common.retrieval import title_key

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "hotpotqa" / "dev-150.jsonl"


def _words(title: str) -> set[str]:
    return {w for w in re.findall(r"\w+", title_key(title)) if len(w) > 2}


def cases(path: Path) -> list[tuple[str, str, str, str]]:
    """``(question, first title, second title, first page text)`` of each bridge question."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        gold = list(dict.fromkeys(title for title, _ in record["supporting_facts"]))
        if len(gold) != 2:
            continue
        asked = set(re.findall(r"\w+", title_key(record["question"])))
        share = {t: len(_words(t) & asked) / max(1, len(_words(t))) for t in gold}
        first, second = sorted(gold, key=lambda t: share[t], reverse=True)
        if share[second] >= 0.5:  # the question names both pages
            continue
        texts = {title: " ".join(sentences) for title, sentences in record["context"]}
        out.append((record["question"], first, second, texts[first]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA, help="HotpotQA JSONL (default: %(default)s)")
    parser.add_argument("--show", action="store_true", help="print the questions whose second page is not named first")
    args = parser.parse_args()
    found = cases(args.data)
    ceiling = sum(bool(_words(b)) and all(w in text.lower() for w in _words(b)) for _q, _a, b, text in found)
    for one_word in (False, True):
        first = two = 0
        for question, a, b, text in found:
            names = bridge_candidates(question, [text], [a], limit=2, one_word=one_word)
            hits = [i for i, n in enumerate(names) if _words(n) and (
                _words(n) <= _words(b) or (_words(b) <= _words(n) and len(_words(n)) <= len(_words(b)) + 1))]
            first += bool(hits) and hits[0] == 0
            two += bool(hits)
            if args.show and one_word and not (hits and hits[0] == 0):
                print(f"  {question}\n    second page {b!r}; names {names}")
        print(f"one_word={one_word}: {len(found)} bridge questions, second page named first {first}, "
              f"in the first two {two}, named by the first page at all {ceiling}")


if __name__ == "__main__":
    main()
