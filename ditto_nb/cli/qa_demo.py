"""``ditto-nb demo``: a two-hop question answered offline, end to end, with the local model.

The packaged demo corpus (``ditto_nb/data/demo_corpus.jsonl``) is served by the sandbox web over
real HTTPS on 127.0.0.1; Context lives in the embedded Redis unless
``DITTO_WORKER_CONTEXT_REDIS_URL`` is set; Memory is SQLite in the task directory; the model is
the local llama.cpp server (``--provider local``, or ``local-small``). A second run in the same
task directory replays the published report without any model or network call.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ditto_nb.cli.qa_run import TASKS_ROOT, resume_task, start_task
from ditto_nb.cli.qa_session import cli_errors
from ditto_nb.errors import ConfigError
from ditto_nb.patterns.common.task_file import read_task_file


def demo(
    provider: Annotated[str, typer.Option("--provider", help="Model provider: local (1.5B) or local-small (0.5B).")] = "local",
    question_id: Annotated[
        str, typer.Option("--question", help="Id of a question in ditto_nb/data/demo_questions.jsonl.")
    ] = "demo-1",
    directory: Annotated[
        Optional[Path],  # noqa: UP007
        typer.Option("--dir", help="Task directory (default: ./.ditto-tasks/demo-<provider>-<question>)."),
    ] = None,
    config: Annotated[
        Optional[Path],  # noqa: UP007
        typer.Option("--config", help="ditto.yaml to use (default: ./ditto.yaml, else the packaged default)."),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No stage progress on stderr.")] = False,
) -> None:
    """Answer a two-hop demo question offline (sandbox web + local model); print claims, quotes and report paths."""
    from ditto_nb.sandbox import demo_corpus_path, demo_questions_path, load_hotpotqa_questions

    with cli_errors():
        questions = {q.id: q for q in load_hotpotqa_questions(demo_questions_path())}
        if question_id not in questions:
            raise ConfigError(
                f"unknown demo question {question_id!r}",
                help=f"Use one of: {', '.join(sorted(questions))}.",
            )
        question = questions[question_id]
        task_dir = directory if directory is not None else TASKS_ROOT / f"demo-{provider}-{question_id}"
        if not quiet:
            typer.echo(f"demo question {question.id}: {question.question}", err=True)
            typer.echo(f"gold answer (not shown to the model): {question.answer}", err=True)
        existing = read_task_file(task_dir)
        if existing is not None and existing.pattern == "web_qa":
            if not quiet:
                typer.echo(f"task directory {task_dir} exists: resuming (a finished task replays)", err=True)
            resume_task(task_dir, None, quiet)
            return
        start_task(
            question.question,
            task_dir,
            task_id=f"demo-{provider}-{question_id}",
            # the request's default budgets, as `ditto-nb ask` and notebook 01's form use
            request_fields={"cross_check": False, "allow_partial": True},
            provider=provider,
            sandbox=demo_corpus_path(),
            config_path=config,
            quiet=quiet,
        )


__all__ = ["demo"]
