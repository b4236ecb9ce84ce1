"""Web QA's comparison deciders offline: what code decides from the gold sentences, per half.

No model, no wiki server: for each comparison question of the 250-question benchmark (two
compared sides by :func:`~ditto_nb.patterns.common.retrieval.comparison_entities`), the sentences
HotpotQA marks as supporting facts are given to the code deciders of the answer-rule layer as if
they were the verified claims (claim = quote = the sentence, citation title = its page):
``compare-order`` (:func:`~ditto_nb.patterns.common.compare.comparison.decide_order`),
``compare-nationality`` and ``compare-kind``, in the layer's order. This is what the rules can
decide when the model quotes the right sentences; a real run decides less (the model quotes
fewer) and never more.

A decision is *right* when it is the gold yes/no, or, for a choice, the compared side whose name
shares more words with the gold answer (HotpotQA's gold is often the page's full name: "Ulf
Dietrich Merbold" for "Ulf Merbold"); *wrong* otherwise.

Run::

    python benchmarks/comparison_deciders.py [--list]

Prints per half: comparison questions, decided right / wrong per rule, undecided; ``--list``
also prints every decision.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from ditto_nb.patterns.common.retrieval import comparison_entities
from ditto_nb.patterns.common.compare.comparison import decide_order
from ditto_nb.patterns.common.compare.nationality import decide_nationality
from ditto_nb.patterns.common.compare.kinds import decide_kind

from hotpot_eval import normalize_answer
from wiki_split import COMPARISON_100, DEV_150, load_split

DECIDERS = (("compare-order", decide_order), ("compare-nationality", decide_nationality), ("compare-kind", decide_kind))


def _words(text: str) -> set[str]:
    return set(normalize_answer(text).split())


def right(decided: str, gold: str, sides: list[str]) -> bool:
    """Whether a decision is right (see the module docstring)."""
    if normalize_answer(gold) in ("yes", "no"):
        return normalize_answer(decided) == normalize_answer(gold)
    overlap = {side: len(_words(side) & _words(gold)) for side in sides}
    best = max(overlap.values())
    return best > 0 and overlap.get(decided, -1) == best and list(overlap.values()).count(best) == 1


def main() -> None:
    """Run the deciders on every comparison question; print the per-half counts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="print every decision")
    args = parser.parse_args()
    halves = load_split()
    counts: Counter[tuple[str, str]] = Counter()
    for source in (DEV_150, COMPARISON_100):
        for line in Path(source).read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            half = halves.get(record["_id"], "")
            sides = comparison_entities(record["question"])
            if not half or len(sides) != 2:
                continue
            counts[(half, "questions")] += 1
            context = {title: sentences for title, sentences in record["context"]}
            claims = [{"claim": context[title][n].strip(), "citations": [{"quote": context[title][n].strip(), "title": title}]}
                      for title, n in record["supporting_facts"] if n < len(context.get(title, []))]
            for name, decide in DECIDERS:
                decided = decide(record["question"], sides, claims)  # type: ignore[arg-type]
                if decided is not None:
                    ok = right(decided, record["answer"], sides)
                    counts[(half, f"{name} {'right' if ok else 'wrong'}")] += 1
                    if args.list:
                        print(f"{half:6} {name:19} {'right' if ok else 'WRONG'}  {record['question'][:80]} -> {decided} "
                              f"(gold {record['answer'][:30]})")
                    break
            else:
                counts[(half, "undecided")] += 1
    keys = sorted({key for _half, key in counts}, key=lambda k: (k != "questions", k == "undecided", k))
    for half in ("tuning", "check"):
        print(half, ", ".join(f"{key} {counts[(half, key)]}" for key in keys))


if __name__ == "__main__":
    main()
