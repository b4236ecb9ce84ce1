"""The tables of the wiki benchmark, from its rows (``web_qa.py --mediawiki``; also ``--report-only``).

- :func:`halves_table`: per question kind and system, the two halves side by side: questions,
  HotpotQA EM and F1, gold contained, wrong-but-answered, insufficient, failed, both pages read, s/q.
- :func:`cost_table`: per half and system: model calls, tokens, seconds, quote exceptions.
- :func:`rules_table`: per answer rule (the report's ``answer.rules`` trace) and half: times it
  fired, answers it changed, made right (the answer after contains the gold, the one before did
  not) and made wrong (the reverse).
- :func:`by_purpose`: ditto's model calls per purpose.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from hotpot_eval import contains
from wiki_split import HALVES, KINDS

SYSTEM_ORDER = ("ditto", "naive", "oracle")
_KIND_ORDER = (*KINDS, "comparison", "all")


def _expand(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Rows plus copies under kind ``comparison`` (both comparison kinds) and ``all``."""
    frame = pd.DataFrame(rows)
    comparison = frame[frame["kind"].astype(str).str.startswith("comparison")].assign(kind="comparison")
    return pd.concat([frame, comparison, frame.assign(kind="all")], ignore_index=True)


def _order(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    keys = {"kind": _KIND_ORDER, "system": SYSTEM_ORDER, "half": HALVES}
    for column in reversed(columns):
        order = {value: n for n, value in enumerate(keys.get(column, ()))}
        frame = frame.sort_values(column, key=lambda s, o=order: s.map(lambda v: o.get(v, len(o))), kind="stable")
    return frame


def halves_table(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Kind × system rows, (half, metric) columns."""
    if not rows:
        return pd.DataFrame()
    out = []
    for (kind, system, half), group in _expand(rows).groupby(["kind", "system", "half"], sort=False):
        status = group["status"].astype(str)
        out.append({
            "kind": kind, "system": system, "half": half, "n": len(group),
            "EM": int(group["em"].sum()), "F1": round(float(group["f1"].mean()), 3),
            "contained": int(group["contained"].sum()),
            "wrong": int(((status == "answered") & ~group["contained"].astype(bool)).sum()),
            "insuff": int((status == "insufficient-evidence").sum()), "failed": int(status.str.startswith("failed").sum()),
            "both read": int(group["both_read"].sum()), "s/q": round(float(pd.to_numeric(group["seconds"]).mean()), 1),
        })
    frame = _order(pd.DataFrame(out), ["kind", "system", "half"])
    wide = frame.pivot_table(index=["kind", "system"], columns="half", sort=False, aggfunc="first",
                             values=["n", "EM", "F1", "contained", "wrong", "insuff", "failed", "both read", "s/q"])
    halves = [h for h in HALVES if h in set(frame["half"])]
    metrics = ["n", "contained", "EM", "F1", "wrong", "insuff", "failed", "both read", "s/q"]
    wide = wide.reorder_levels([1, 0], axis=1)[[(h, m) for h in halves for m in metrics]]
    return wide.reindex(pd.MultiIndex.from_frame(frame[["kind", "system"]].drop_duplicates()))


def cost_table(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Half × system: calls, tokens, seconds and quote exceptions per question."""
    if not rows:
        return pd.DataFrame()
    frame = pd.DataFrame(rows)
    out = []
    for (half, system), group in frame.groupby(["half", "system"], sort=False):
        out.append({
            "half": half, "system": system, "n": len(group),
            "calls / q": round(float(group["calls"].mean()), 2), "max calls": int(group["calls"].max()),
            "prompt tok / q": round(float(group["prompt_tokens"].mean())),
            "completion tok / q": round(float(group["completion_tokens"].mean())),
            "s / q": round(float(pd.to_numeric(group["seconds"]).mean()), 1),
            "quote exceptions": int(pd.to_numeric(group.get("quote_exceptions", pd.Series(dtype=float))).fillna(0).sum()),
        })
    return _order(pd.DataFrame(out), ["half", "system"]).reset_index(drop=True)


def rules_table(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Rule × (half, fired / changed / made right / made wrong / blocked right / blocked wrong), from
    ditto rows' ``rules`` traces (a check rule "blocked" the draft it fired on: right when that draft
    held the gold answer)."""
    records = []
    for row in rows:
        if row.get("system") != "ditto":
            continue
        for rule in row.get("rules") or []:
            if not isinstance(rule, dict):
                continue
            before, after, gold = str(rule.get("before", "")), str(rule.get("after", "")), str(row.get("gold", ""))
            changed = bool(rule.get("changed"))
            check = rule.get("phase") == "check"
            records.append({
                "rule": str(rule.get("rule", "?")), "half": row.get("half", ""), "fired": 1, "changed": int(changed),
                "made right": int(changed and contains(after, gold) and not contains(before, gold)),
                "made wrong": int(changed and contains(before, gold) and not contains(after, gold)),
                # a check that fired on a draft holding the gold blocked a right answer (the repair may
                # still have mended it); on one without it, it kept a wrong answer out
                "blocked right": int(check and contains(before, gold)),
                "blocked wrong": int(check and bool(before) and not contains(before, gold)),
            })
    if not records:
        return pd.DataFrame()
    frame = pd.DataFrame(records).groupby(["rule", "half"]).sum().unstack("half", fill_value=0)
    halves = [h for h in HALVES if h in frame.columns.get_level_values(1)]
    metrics = ["fired", "changed", "made right", "made wrong", "blocked right", "blocked wrong"]
    return frame.reorder_levels([1, 0], axis=1)[[(h, m) for h in halves for m in metrics]]


def by_purpose(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Ditto's model calls (made in this run of each task) per purpose: calls per question, mean
    prompt / completion tokens and seconds per call."""
    ditto = [r for r in rows if r.get("system") == "ditto"]
    calls = [c for r in ditto for c in r.get("by_purpose") or []]
    if not calls:
        return pd.DataFrame()
    frame = pd.DataFrame(calls, columns=["purpose", "prompt", "completion", "seconds"])
    out = frame.groupby("purpose", sort=False).agg(
        calls=("prompt", "size"), prompt_tok=("prompt", "mean"), completion_tok=("completion", "mean"),
        s_per_call=("seconds", "mean")).reset_index()
    out["calls / q"] = (out["calls"] / len(ditto)).round(2)
    return out.round(1)


__all__ = ["by_purpose", "cost_table", "halves_table", "rules_table"]
