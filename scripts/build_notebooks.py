"""Write the walkthrough notebooks (notebooks/*.ipynb) from the cell sources below.

Run ``python scripts/build_notebooks.py`` after editing; outputs are left empty (nbval runs them).
Cell ids are derived from the notebook name and the cell's position, so rebuilding is stable.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"

SETUP = '''env = open_notebook_env()  # model from DITTO_NOTEBOOK_PROVIDER (default: local)
tasks = tasks_folder()  # tasks/ next to this notebook: task folders survive a kernel restart
print(env.provider, env.model["model"], "· tasks in", tasks)
stand_in_banner(env.provider, env.model["model"])'''

NB01 = [
    ("markdown", '''# Web QA: ask a question, follow every quote to its page

One question answered offline: the sandbox web serves the packaged demo corpus over real HTTPS on
127.0.0.1, Context lives in Redis (`DITTO_WORKER_CONTEXT_REDIS_URL`, else an embedded server),
Memory in SQLite in a task folder under `tasks/` next to this notebook, and the model is the local
llama.cpp model (`DITTO_NOTEBOOK_PROVIDER=local`, default) or the scripted stand-in (`scripted`,
quick runs only — a banner says so when it is used).'''),
    ("code", '''from IPython.display import Markdown, display

from ditto_nb.notebook import (budget_frame, claims_frame, evidence_frame, export_markdown, failures_frame,
                               pages_frame, query_plan_frame, search_hits_frame)
from ditto_nb.notebook.ask import AskForm, request_defaults, tasks_folder, web_qa_runner
from ditto_nb.notebook.demo import open_notebook_env
from ditto_nb.notebook.display import show, show_budget, show_failures, show_hits, show_question, stand_in_banner
from ditto_nb.notebook.progress import CellProgress
from ditto_nb.notebook.quotes import evidence_text, show_quote
from ditto_nb.patterns.web_qa import WebQaReport, WebQaRequest, create_task, open_web_qa, run_web_qa
from ditto_nb.sandbox import demo_questions_path, load_hotpotqa_questions'''),
    ("code", SETUP),
    ("markdown", '''## Ask

Type your question (and, if you like, the origins, budgets and cross-check). The form checks the
values as you type. **Run** starts a *new* task with a fresh id and runs it to the end below the
form; or run the next cells to go through the same request stage by stage. Changing the question
always makes a new task: an old one is never rerun silently.

The example asks two hops: the Eiffel Tower's page says it stands in Paris, and only the Paris page
says which river flows through it. The budgets start at the request's defaults, as in `ditto-nb ask`:
2 queries and 6 pages, so after the first search and read a second hop searches and reads the Paris
page (no model call of its own). Expect **answered**, "Seine", with a quote from the Paris page.'''),
    ("code", '''example = load_hotpotqa_questions(demo_questions_path())[0]  # two hops: Eiffel Tower → Paris → the Seine
question = example.question
# the budgets start at the request's defaults (2 queries, 6 pages: room for a second hop), as in `ditto-nb ask`
form = AskForm(WebQaRequest,
               {"question": question, "allowed_origins": list(env.web.allowed_origins),
                **request_defaults(WebQaRequest, "max_queries", "max_pages", "cross_check")},
               fixed={"tenant": "demo", "principal": "analyst", "allow_partial": True},
               prefix="web-qa", tasks_dir=tasks, runner=web_qa_runner(env))
form'''),
    ("markdown", '''## Stage by stage

`form.request()` validates the form's current values and gives them a fresh task id.'''),
    ("code", '''request = form.request()
task_dir = tasks / request.id
await create_task(task_dir, request, env.search)
app = await open_web_qa(task_dir, request, env.config, env.search)
task_input = {"request": request, "model": env.model}
show_question(request.question)'''),
    ("markdown", "### plan: understand the question, produce the queries (one model call)"),
    ("code", '''async with CellProgress.for_app(app, "plan", limit=6) as progress:
    result = await run_web_qa(app.runtime, task_input, stop_after="plan", on_graph=progress)
assert result == {"status": "checkpoint", "stage": "plan"}
plan = query_plan_frame(task_dir)
assert 1 <= len(plan) <= request.max_queries
show(plan)'''),
    ("markdown", "### searched: run the queries (hits are discovery metadata, never evidence)"),
    ("code", '''async with CellProgress.for_app(app, "searched", limit=6) as progress:
    result = await run_web_qa(app.runtime, task_input, stop_after="searched", on_graph=progress)
assert result["stage"] == "searched"
hits = search_hits_frame(task_dir)
assert len(hits) >= 1 and hits["discovery_only"].all()
show_hits(hits)'''),
    ("markdown", "### read: fetch pages, store snapshots (URL, status, title, retrieval time, SHA-256)"),
    ("code", '''async with CellProgress.for_app(app, "read", limit=6) as progress:
    result = await run_web_qa(app.runtime, task_input, stop_after="read", on_graph=progress)
assert result["stage"] == "read"
pages = pages_frame(task_dir)
assert 1 <= len(pages) <= request.max_pages and (pages["failure"].isna()).any()
show(pages[["final_url", "title", "status", "failure", "fetched_at", "sha256", "paragraphs", "bytes"]])'''),
    ("markdown", '''### selected: filter the evidence (one model call)

One row per paragraph of each page; a mirror page keeps its own row (`mirror_of` names the page
with the same content, counted once). Text is shortened here: `evidence_text(task_dir, page_chunk_id)`
gives a paragraph in full.'''),
    ("code", '''async with CellProgress.for_app(app, "selected", limit=6) as progress:
    result = await run_web_qa(app.runtime, task_input, stop_after="selected", on_graph=progress)
assert result["stage"] == "selected"
evidence = evidence_frame(task_dir)
assert evidence["selected"].sum() >= 1
show(evidence[["selected", "title", "final_url", "paragraph_index", "text", "reason", "mirror_of", "page_chunk_id"]])'''),
    ("markdown", "### report: draft, verify every quote, grounding review, publish"),
    ("code", '''async with CellProgress.for_app(app, "report", limit=6) as progress:
    report = await run_web_qa(app.runtime, task_input, on_graph=progress)
assert isinstance(report, WebQaReport)
claims = claims_frame(task_dir)  # withheld claims follow as status "rejected", with why
published = claims[claims["status"] != "rejected"]
assert len(published) == len(report.answer.claims) and published["quotes_verified"].all()
display(Markdown(f"**{report.answer.status}**: {report.answer.text}"))
if request.question == example.question:  # the example's answer comes from the second hop's page
    quoted = {c.title for claim in report.answer.claims for c in claim.citations}
    assert report.answer.status == "answered" and example.answer in report.answer.text, report.answer
    assert example.supporting_titles[-1] in quoted, quoted  # a quote from the Paris page
else:  # a question typed into the form: any honest outcome
    assert report.answer.status in ("answered", "insufficient-evidence", "conflicting-evidence", "needs-clarification")
show(claims[["claim", "status", "quotes", "titles", "links", "quotes_verified", "grounded", "grounding", "cross_check"]])'''),
    ("markdown", '''### Trace a quote

`show_quote(task_dir, n)` shows claim *n*'s quotes highlighted at their exact offsets in the paragraph,
with the page title, link, retrieval time and SHA-256 of the stored page.'''),
    ("code", '''for claim in report.answer.claims:
    for citation in claim.citations:
        assert evidence_text(task_dir, f"{citation.chunk_id}@{citation.final_url}")[citation.start:citation.end] == citation.quote
show_quote(task_dir, 1) if report.answer.claims else show_question(request.question)'''),
    ("code", '''budget = budget_frame(task_dir)
assert (budget["used"] <= budget["limit"]).all()
display(show_budget(budget))
show_failures(failures_frame(task_dir))'''),
    ("markdown", "## Export: Markdown to share; the JSON is the published `output/report.json`"),
    ("code", '''shared = export_markdown(task_dir, task_dir / "report.md")
text = shared.read_text(encoding="utf-8")
assert text.startswith("# ") and "[^" not in text and (task_dir / "output" / "report.json").is_file()
Markdown(text)'''),
    ("code", '''await app.close()  # this stage-by-stage task is finished; the form above keeps working'''),
    ("markdown", '''The sandbox web and the model stay up so the form can run more questions. When you are done,
`env.close()` stops them (shutting the kernel down does too).'''),
]

NB02 = [
    ("markdown", '''# Resume after a kernel restart — part 1: stop after `read`

A Web QA task runs to `read` and stops. Its folder is under `tasks/` next to this notebook, so it
outlives the kernel. Then **restart the kernel** (Kernel → Restart Kernel) and open
`02b_resume_after_restart.ipynb`: a fresh process continues the task from its Memory without
redoing anything completed. (nbval runs each notebook in its own kernel, so part 2 is tested in a
fresh kernel too.)'''),
    ("code", '''import json

import pandas as pd

from ditto_nb.notebook import load_task
from ditto_nb.notebook.ask import fresh_task_id, tasks_folder
from ditto_nb.notebook.demo import open_notebook_env
from ditto_nb.notebook.display import show, show_question, stand_in_banner
from ditto_nb.notebook.progress import CellProgress
from ditto_nb.patterns.web_qa import WebQaRequest, create_task, open_web_qa, run_web_qa
from ditto_nb.sandbox import demo_questions_path, load_hotpotqa_questions'''),
    ("code", SETUP),
    ("code", '''question = load_hotpotqa_questions(demo_questions_path())[1]
request = WebQaRequest(id=fresh_task_id("resume"), tenant="demo", principal="analyst", question=question.question,
                       allowed_origins=tuple(env.web.allowed_origins), max_queries=1, max_pages=3)
task_dir = tasks / request.id
await create_task(task_dir, request, env.search)
task_input = {"request": request, "model": env.model}
show_question(request.question)'''),
    ("code", '''app = await open_web_qa(task_dir, request, env.config, env.search)
async with CellProgress.for_app(app, "plan → read", limit=6) as progress:
    result = await run_web_qa(app.runtime, task_input, stop_after="read", on_graph=progress)
assert result == {"status": "checkpoint", "stage": "read"}
assert [c.purpose for c in app.infer.calls] == ["plan"]
await app.close()'''),
    ("markdown", '''The call ledger: one row per dispatch (model call, search, page read), recorded done before its
stage commits. These are the rows part 2 must not redo.'''),
    ("code", '''done = [{"key": key, "kind": row["kind"], "what": row["name"], "at": row["at"]}
        for key, row in load_task(task_dir).ledger() if row["status"] == "done"]
assert any(r["kind"] == "model" for r in done) and any(r["kind"] == "read" for r in done)
# What part 2 needs to find this task again (and the sandbox's port: the task's origins name it).
(tasks / "resume-walkthrough.json").write_text(json.dumps(
    {"task_dir": str(task_dir), "port": env.web.port, "done_at": {r["key"]: r["at"] for r in done}}), encoding="utf-8")
show(pd.DataFrame(done))'''),
    ("markdown", '''**Now restart the kernel** (Kernel → Restart Kernel…) and open `02b_resume_after_restart.ipynb`.'''),
    ("code", '''env.close()'''),
]

NB02B = [
    ("markdown", '''# Resume after a kernel restart — part 2: continue in a fresh kernel

This notebook starts with nothing in memory: it finds the task that part 1 left in `tasks/`,
opens it in a fresh runtime and continues from Memory. The call ledger shows that nothing completed
was redone. Then the same request runs once without interruption (same report, timestamps aside),
and the finished task is replayed with zero model calls and zero network calls.'''),
    ("code", '''import json
from pathlib import Path

import pandas as pd
from IPython.display import Markdown, display

from ditto_nb.notebook import budget_frame, load_task, without_times
from ditto_nb.notebook.ask import tasks_folder
from ditto_nb.notebook.demo import open_notebook_env
from ditto_nb.notebook.display import show, show_budget, show_question, stand_in_banner
from ditto_nb.notebook.progress import CellProgress
from ditto_nb.patterns.web_qa import WebQaReport, WebQaRequest, create_task, open_web_qa, run_web_qa'''),
    ("code", '''tasks = tasks_folder()
saved = json.loads((tasks / "resume-walkthrough.json").read_text(encoding="utf-8"))  # written by part 1
env = open_notebook_env(port=saved["port"])  # the task's allowed origins name this port
print(env.provider, env.model["model"], "· resuming", saved["task_dir"])
stand_in_banner(env.provider, env.model["model"])'''),
    ("code", '''task_dir = Path(saved["task_dir"])
request = WebQaRequest.model_validate(load_task(task_dir).request)  # the request part 1 bound to the task
task_input = {"request": request, "model": env.model}
show_question(request.question)'''),
    ("code", '''app = await open_web_qa(task_dir, request, env.config, env.search)
async with CellProgress.for_app(app, "select → report", limit=6) as progress:
    report = await run_web_qa(app.runtime, task_input, on_graph=progress)
assert isinstance(report, WebQaReport)
second_calls = [c.purpose for c in app.infer.calls]
assert "plan" not in second_calls and second_calls[:1] == ["select"]
assert app.interaction.dispatches["web_search"] == 0 and app.interaction.dispatches["page_read"] == 0
await app.close()
display(Markdown(f"**{report.answer.status}**: {report.answer.text}"))
print("model calls in this session:", second_calls)'''),
    ("code", '''after = dict(load_task(task_dir).ledger())
redone = [key for key, at in saved["done_at"].items() if after[key]["at"] != at]
assert redone == [], redone
rows = [{"key": key, "kind": row["kind"], "what": row["name"],
         "session": "part 1 (before restart)" if key in saved["done_at"] else "part 2 (this kernel)"}
        for key, row in sorted(after.items())]
budget = budget_frame(task_dir).set_index("budget")
assert budget.loc["search", "used"] == 1
display(show_budget(budget.reset_index()))
show(pd.DataFrame(rows))'''),
    ("markdown", '''## The same task without interruption gives the same report

A second folder runs the same question in one go (another principal, so its Context is separate).
Apart from timestamps, its report equals the resumed one.'''),
    ("code", '''straight_request = request.model_copy(update={"principal": "analyst-uninterrupted"})
straight_dir = tasks / f"{request.id}-uninterrupted"
await create_task(straight_dir, straight_request, env.search)
app = await open_web_qa(straight_dir, straight_request, env.config, env.search)
async with CellProgress.for_app(app, "uninterrupted", limit=6) as progress:
    straight = await run_web_qa(app.runtime, {"request": straight_request, "model": env.model}, on_graph=progress)
await app.close()
assert isinstance(straight, WebQaReport)
assert without_times(straight) == without_times(report)
straight.answer.status'''),
    ("markdown", "## Replay the finished task: no model call, no network call"),
    ("code", '''app = await open_web_qa(task_dir, request, env.config, env.search)
served_before = env.web.request_count
replayed = await run_web_qa(app.runtime, task_input)
assert len(app.infer.calls) == 0
assert app.interaction.dispatches["web_search"] == 0 and app.interaction.dispatches["page_read"] == 0
assert env.web.request_count == served_before
assert replayed.model_dump(exclude={"generated_at"}) == report.model_dump(exclude={"generated_at"})
await app.close()
display(Markdown(f"**replayed — {replayed.answer.status}**: {replayed.answer.text}"))'''),
    ("code", '''env.close()'''),
]

NB03 = [
    ("markdown", '''# Batch evaluation

Every question of a HotpotQA-shaped JSONL file (default: the packaged `demo_questions.jsonl`;
set `DITTO_EVAL_QUESTIONS` to a file of the same shape — its context paragraphs become the sandbox
corpus) runs as its own Web QA task, all of them as one batch on a local Dask cluster
(`ditto_nb.batch.run_batch`: each task resumes from its Memory if a worker dies). `DITTO_EVAL_LIMIT` caps the number of questions (default: all
for the scripted model, 2 for a local model, to keep CI short). Scores: SQuAD v1.1 token F1 and
"correct" = the normalized gold answer occurs in the answer. *Answered* is what the task says of
itself; *correct* is what the gold answer says of it.'''),
    ("code", '''import os

from IPython.display import Markdown, display
from matplotlib.figure import Figure

from ditto_nb.notebook.ask import fresh_task_id, tasks_folder
from ditto_nb.notebook.demo import open_notebook_env
from ditto_nb.notebook.display import show, stand_in_banner, summary_frame
from ditto_nb.notebook.evaluation import batch_errors, raise_if_model_failed_everywhere
from ditto_nb.patterns.web_qa import WebQaRequest
from ditto_nb.sandbox import demo_questions_path, import_hotpotqa, load_hotpotqa_questions'''),
    ("code", '''questions_path = os.environ.get("DITTO_EVAL_QUESTIONS") or str(demo_questions_path())
pages = import_hotpotqa(questions_path) if os.environ.get("DITTO_EVAL_QUESTIONS") else None
env = open_notebook_env(pages=pages)
tasks = tasks_folder()
default_limit = "0" if env.provider == "scripted" else "2"
limit = int(os.environ.get("DITTO_EVAL_LIMIT", default_limit)) or None
questions = load_hotpotqa_questions(questions_path)[:limit]
assert len(questions) >= 1
print(env.provider, len(questions), "questions from", questions_path)
stand_in_banner(env.provider, env.model["model"])'''),
    ("code", '''from ditto_nb.batch import local_client, run_batch
from ditto_nb.batch.demo import batch_demo_responder

if env.scripted is not None:
    env.scripted.responder = batch_demo_responder  # many tasks share one scripted model: no state between calls
requests = [WebQaRequest(id=fresh_task_id(f"eval-{q.id}"), tenant="demo", principal="analyst", question=q.question,
                         allowed_origins=tuple(env.web.allowed_origins), max_queries=1, max_pages=3) for q in questions]
gold = {r.id: q.answer for r, q in zip(requests, questions)}
client = local_client(n_workers=2)
display(Markdown(f"Dask dashboard (live while the batch runs): <{client.dashboard_link}>"))'''),
    ("code", '''try:
    batch = run_batch(requests, client, directory=tasks / fresh_task_id("batch"), config=env.config,
                      search=env.search, model=env.model, gold=gold)
finally:
    client.close()
    client.cluster.close()
# a dead or crashed model fails the notebook here (every row a model/transport error), not "0 correct"
raise_if_model_failed_everywhere(batch_errors(batch.frame["status"], batch.frame["error"]))
asked = {r.id: r.question for r in requests}
results = batch.frame.assign(question=batch.frame["id"].map(asked), gold=batch.frame["id"].map(gold))
results = results[["question", "gold", "answer", "status", "correct", "f1", "model_calls", "seconds", "worker", "id"]]
assert len(results) == len(questions) and results["id"].is_unique
assert results["model_calls"].between(1, 6).all()
assert results["f1"].between(0, 1).all()
show(results)'''),
    ("code", '''summary = summary_frame({"questions": len(results), "answered": int((results["status"] == "answered").sum()),
                         "correct": int(results["correct"].sum()), "correct_share": results["correct"].mean(),
                         "mean_f1": results["f1"].mean(), "mean_model_calls": results["model_calls"].mean(),
                         "mean_seconds": results["seconds"].mean()})
show(summary)'''),
    ("markdown", '''One plot of outcomes: the task's own status, split by whether the gold answer is in it (drawn on a
plain matplotlib `Figure`: no GUI backend needed).'''),
    ("code", '''fig = Figure(figsize=(7, 3))
ax = fig.subplots()
outcome = results["status"] + results["correct"].map({True: " · correct", False: " · wrong"})
outcome.value_counts().sort_index().plot.barh(ax=ax)
ax.set_xlabel("questions")
ax.set_title(f"Web QA outcomes ({env.provider}{' stand-in, not a language model' if env.provider == 'scripted' else ''})")
fig.tight_layout()
png = tasks / "outcomes.png"
fig.savefig(png)
assert png.stat().st_size > 0
fig'''),
    ("code", '''env.close()'''),
]

NB04 = [
    ("markdown", '''# Deep research, round by round

A bounded investigation (max 2 rounds, 1 query per round) offline against the sandbox web and the
local model (or the scripted stand-in, with a banner). One cell for the plan (goal, sub-questions,
first queries), one per round (coverage per sub-question), one for the report. The task folder is
under `tasks/` next to this notebook.'''),
    ("code", '''from IPython.display import Markdown, display

from ditto_nb.notebook import (budget_frame, claims_frame, coverage_frame, export_markdown, load_task,
                               query_plan_frame, rounds_frame, stop_reason_summary, style_coverage)
from ditto_nb.notebook.ask import fresh_task_id, tasks_folder
from ditto_nb.notebook.demo import open_notebook_env
from ditto_nb.notebook.display import show, show_budget, show_list, show_question, stand_in_banner, summary_frame
from ditto_nb.notebook.progress import CellProgress
from ditto_nb.notebook.quotes import show_quote
from ditto_nb.patterns.deep_research import STOP_REASONS, ResearchReport, ResearchRequest, create_task, open_research, run_research'''),
    ("code", SETUP),
    ("code", '''request = ResearchRequest(id=fresh_task_id("research"), tenant="demo", principal="analyst",
                          question="The river Seine: where does it flow and how long is it?",
                          research_type="academic", allowed_origins=tuple(env.web.allowed_origins),
                          max_queries=1, max_pages=2, max_rounds=2, max_searches=2, max_read_pages=4,
                          max_model_calls=8, research_seconds=900)
task_dir = tasks / request.id
create_task(task_dir, request)
app = await open_research(task_dir, request, env.config, env.search)
task_input = {"request": request, "model": env.model}
show_question(request.question)'''),
    ("markdown", "## Plan: goal, sub-questions, first queries"),
    ("code", '''async with CellProgress.for_app(app, "plan", limit=request.max_model_calls) as progress:
    result = await run_research(app.runtime, task_input, stop_after="plan", on_graph=progress)
assert result["status"] == "checkpoint" and result["stage"] == "plan"
plan_stage = load_task(task_dir).stage("plan")
plan = query_plan_frame(task_dir)
assert 1 <= len(plan) <= request.max_queries
assert coverage_frame(task_dir).empty
display(show_list("Goal", [plan_stage["goal"]]))
display(show_list("Sub-questions", plan_stage["sub_questions"]))
show(plan)'''),
    ("markdown", "## Round 1: search, read, assess coverage"),
    ("code", '''async with CellProgress.for_app(app, "round 1", limit=request.max_model_calls) as progress:
    result = await run_research(app.runtime, task_input, stop_after="round", on_graph=progress)
if isinstance(result, dict):
    assert result["stage"] == "round" and result["round"] == 1
    coverage = coverage_frame(task_dir)
    assert set(coverage["round"]) == {1} and set(coverage["status"]) <= {"covered", "gap", "conflict"}
else:  # the assessment could not be afforded: the task stopped and was reported
    assert result.stop_reason in STOP_REASONS
show(coverage_frame(task_dir))'''),
    ("markdown", "## Round 2 (if round 1 left gaps and budgets allow)"),
    ("code", '''if isinstance(result, dict):
    async with CellProgress.for_app(app, "round 2", limit=request.max_model_calls) as progress:
        result = await run_research(app.runtime, task_input, stop_after="round", on_graph=progress)
if isinstance(result, dict):
    assert result["round"] == 2 and set(coverage_frame(task_dir)["round"]) == {1, 2}
else:
    assert result.stop_reason in STOP_REASONS
display(show(rounds_frame(task_dir)))
show(coverage_frame(task_dir))'''),
    ("markdown", "## Report: exact quotes only, independent review, stop reason"),
    ("code", '''if isinstance(result, ResearchReport):
    report = result
else:
    async with CellProgress.for_app(app, "report", limit=request.max_model_calls) as progress:
        report = await run_research(app.runtime, task_input, on_graph=progress)
assert isinstance(report, ResearchReport)
summary = stop_reason_summary(task_dir)
assert summary["stop_reason"] == report.stop_reason in STOP_REASONS
assert summary["rounds"] <= request.max_rounds
claims = claims_frame(task_dir)
assert len(claims) == len(report.conclusions)
budget = budget_frame(task_dir)
assert (budget["used"] <= budget["limit"]).all()
display(show(summary_frame(summary)))
display(show_budget(budget))
show(claims[["claim", "status", "quotes", "titles", "links", "grounded", "grounding"]])'''),
    ("code", '''show_quote(task_dir, 1) if report.conclusions else show_question(request.question)'''),
    ("code", '''text = export_markdown(task_dir, task_dir / "research-report.md").read_text(encoding="utf-8")
assert f"stop reason: {report.stop_reason}" in text and "[^" not in text and (task_dir / "output" / "report.json").is_file()
Markdown(text)'''),
    ("code", '''await app.close()
env.close()'''),
]


def write(name: str, cells: list[tuple[str, str]]) -> None:
    out = []
    for i, (kind, source) in enumerate(cells):
        cid = hashlib.sha256(f"{name}:{i}".encode()).hexdigest()[:8]
        cell: dict[str, object] = {"cell_type": kind, "id": cid, "metadata": {}, "source": source.splitlines(keepends=True)}
        if kind == "code":
            cell.update(execution_count=None, outputs=[])
        out.append(cell)
    nb = {"cells": out, "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                                     "language_info": {"name": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    (NOTEBOOKS / name).write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    write("01_web_qa.ipynb", NB01)
    write("02_resume.ipynb", NB02)
    write("02b_resume_after_restart.ipynb", NB02B)
    write("03_evaluation.ipynb", NB03)
    write("04_deep_research.ipynb", NB04)
