"""The fixed tuning / check split of the 250 wiki benchmark questions (``benchmarks/data/split.json``).

The 150 bridge questions of ``dev-150.jsonl`` and the 100 comparison questions of
``comparison-100.jsonl`` are split once, stratified by kind, with a fixed seed: each kind's ids
(in file order) are shuffled by ``random.Random(SEED)`` and the first half goes to ``tuning``, the
rest to ``check``. Kinds: ``bridge``, ``comparison-yesno`` (the gold answer is yes or no) and
``comparison-entity`` (the gold answer names an entity or attribute). 150 / 32 / 68 questions give
75 / 16 / 34 per half.

Rules are tuned on the tuning half only; the check half measures whether they carry to questions
no rule was built on. The file is the record: the benchmark reads it, it is not recomputed.

Usage::

    python benchmarks/wiki_split.py            # verify split.json against the data and the seed
    python benchmarks/wiki_split.py --write    # (re)write it (only when the data files change)
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

from hotpot_eval import is_yes_no

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "hotpotqa"
DEV_150 = DATA / "dev-150.jsonl"
COMPARISON_100 = DATA / "comparison-100.jsonl"
SPLIT_FILE = Path(__file__).resolve().parent / "data" / "split.json"
SEED = 30
KINDS = ("bridge", "comparison-yesno", "comparison-entity")
HALVES = ("tuning", "check")


def records(path: Path) -> list[dict[str, Any]]:
    """The HotpotQA records of a JSONL file."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def kind_of(record: dict[str, Any]) -> str:
    """``bridge``, ``comparison-yesno`` or ``comparison-entity``."""
    if (record.get("type") or "bridge") != "comparison":
        return "bridge"
    return "comparison-yesno" if is_yes_no(record["answer"]) else "comparison-entity"


def make_split(sources: list[Path], seed: int = SEED) -> dict[str, Any]:
    """Split the records of ``sources`` in half per kind (see the module docstring)."""
    by_kind: dict[str, list[str]] = {kind: [] for kind in KINDS}
    for source in sources:
        for record in records(source):
            by_kind[kind_of(record)].append(record["_id"])
    rng = random.Random(seed)
    split: dict[str, Any] = {"seed": seed, "sources": [p.name for p in sources],
                             "note": "stratified by kind; per kind, ids in file order shuffled by random.Random(seed), "
                                     "first half tuning, rest check (benchmarks/wiki_split.py)",
                             "tuning": {}, "check": {}}
    for kind in KINDS:
        ids = list(by_kind[kind])
        rng.shuffle(ids)
        half = len(ids) // 2
        split["tuning"][kind], split["check"][kind] = sorted(ids[:half]), sorted(ids[half:])
    return split


def load_split(path: Path = SPLIT_FILE) -> dict[str, str]:
    """``{question id: "tuning" | "check"}`` from the split file."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return {qid: half for half in HALVES for ids in data[half].values() for qid in ids}


def main() -> None:
    """Verify (or with ``--write`` write) the split file."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="write benchmarks/data/split.json")
    args = parser.parse_args()
    split = make_split([DEV_150, COMPARISON_100])
    if args.write:
        SPLIT_FILE.write_text(json.dumps(split, indent=1) + "\n", encoding="utf-8")
    recorded = json.loads(SPLIT_FILE.read_text(encoding="utf-8"))
    same = all(recorded[h] == split[h] for h in HALVES)
    for half in HALVES:
        print(half, {kind: len(ids) for kind, ids in recorded[half].items()})
    print("split.json matches the seed and the data" if same else "split.json DIFFERS from make_split(): check the data")
    raise SystemExit(0 if same else 1)


if __name__ == "__main__":
    main()


__all__ = ["COMPARISON_100", "DEV_150", "HALVES", "KINDS", "SEED", "SPLIT_FILE", "kind_of", "load_split", "make_split",
           "records"]
