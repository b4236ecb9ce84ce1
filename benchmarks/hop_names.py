"""The second hop's page lookup offline: does it reach the second page of a bridge question?

No model, no wiki server: for each bridge question of the 250-question benchmark
(``wiki_targets.load_benchmark``), per half of the fixed split, whose first supporting page's
paragraph names the second page (and the question does not), the paragraph is given to the hop's
name pickers, and the second page is looked for:

- ``before``: among code's two names (``bridge_candidates(limit=2)``), which the hop searched;
- ``after``: among the first two pages the names title, looked up the way
  :func:`ditto_nb.patterns.common.tools.named_pages` does (the hop's order of names: code's two,
  the best-described, the question's own, then loose one-word names; an exact title, else two
  qualified ones) against the titles the benchmark wiki holds (every context paragraph's title).

A real wiki holds more titles than this one, so ``after`` is an upper bound of what the lookup
finds there; :mod:`benchmarks.bridge_names` measures the name pickers alone on dev-150.

Run::

    python benchmarks/hop_names.py

Prints one line per half: questions, ``before``, ``after``.
"""

from __future__ import annotations

import json

from ditto_nb.patterns.common.relevance import bridge_candidates
from ditto_nb.patterns.common.retrieval import question_entities, title_key
from ditto_nb.patterns.common.tools import titled_by
from ditto_nb.patterns.web_qa.hop import MAX_NAMES

from wiki_split import COMPARISON_100, DEV_150
from wiki_targets import Question, load_benchmark


def _pages(question: Question) -> tuple[str, str] | None:
    """``(first, second)``: the supporting page whose paragraph names the other, or None."""
    titles = list(question.gold_titles)
    if len(titles) != 2:
        return None
    for first, second in (titles, titles[::-1]):
        if second.split(" (")[0].split(",")[0] in question.gold_paragraphs.get(first, ""):
            return first, second
    return None


def _looked_up(question: str, text: str, first: str, titles: list[str]) -> list[str]:
    """The pages the hop's names title, in the hop's order (the first page excluded)."""
    code = bridge_candidates(question, [text], [first], limit=2, one_word=True)
    every = bridge_candidates(question, [text], [first], limit=3 * MAX_NAMES, one_word=True, loose=True)
    unread = [e for e in question_entities(question) if title_key(e) != title_key(first)]
    names = list(dict.fromkeys([*code, *every[:MAX_NAMES // 2], *unread, *every]))[:MAX_NAMES]
    found: list[str] = []
    for name in names:
        pages = [t for t in titles if titled_by(t, name) and t != first]
        exact = [t for t in pages if title_key(t) == title_key(name) and "(" not in t]
        found += (exact or pages)[:1 if exact else 2]
    return list(dict.fromkeys(found))


def main() -> None:
    titles = sorted({title for source in (DEV_150, COMPARISON_100)
                     for line in source.read_text(encoding="utf-8").splitlines() if line.strip()
                     for title, _ in json.loads(line)["context"]})
    for half in ("tuning", "check"):
        counts = {"questions": 0, "before": 0, "after": 0}
        for q in load_benchmark():
            pair = _pages(q) if q.kind == "bridge" and q.half == half else None
            if pair is None or any(titled_by(pair[1], e) for e in question_entities(q.question)):
                continue
            first, second = pair
            counts["questions"] += 1
            code = bridge_candidates(q.question, [q.gold_paragraphs[first]], [first], limit=2, one_word=True)
            counts["before"] += any(titled_by(second, name) for name in code)
            counts["after"] += second in _looked_up(q.question, q.gold_paragraphs[first], first, titles)[:2]
        print(f"{half}: {counts['questions']} questions; second page among code's two names {counts['before']}, "
              f"among the first two pages the names title {counts['after']}")


if __name__ == "__main__":
    main()
