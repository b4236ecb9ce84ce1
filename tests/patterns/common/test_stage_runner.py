"""The one stage runner (``run_stages``) both patterns are declared on."""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import Any

from ditto_nb.patterns.common.stage import PatternSpec, ReplayPolicy, Repeat, Stage, StageOutput, run_stages
from ditto_nb.patterns.deep_research.plan import RESEARCH
from ditto_nb.patterns.web_qa.plan import WEB_QA


class Out(StageOutput):
    value: int


class Run:
    """A toy run: counts builds; the repeated stage ``step`` runs until ``limit`` instances."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.built: list[str] = []
        self.steps = 0

    def build(self, name: str) -> Any:
        def build(run: Run, stages: Mapping[str, Any]) -> Generator[Any, Any, Any]:
            yield from ()
            run.built.append(name)
            if name == "step":
                run.steps += 1
                return {"value": run.steps}
            return {"value": len(stages)}

        return build


def _spec(run: Run) -> PatternSpec:
    return PatternSpec("toy", (
        Stage("first", Out, run.build("first")),
        Stage("step", Out, run.build("step"),
              repeat=Repeat(more=lambda r: r.steps < r.limit, checkpoint=lambda r, out: out["value"] % 2 == 0)),
        Stage("last", Out, run.build("last")),
    ), ReplayPolicy())


def _drive(gen: Generator[Any, Any, Any]) -> Any:
    try:
        next(gen)
    except StopIteration as stop:
        return stop.value
    raise AssertionError("the toy builders yield no graph")


def test_every_declared_stage_of_both_patterns_has_a_builder() -> None:
    for spec in (WEB_QA, RESEARCH):
        assert spec.stages and all(callable(stage.build) for stage in spec.stages), spec.name
    assert [s.name for s in RESEARCH.stages if s.repeat is not None] == ["round"]
    assert WEB_QA.names.index("hop-searched") < WEB_QA.names.index("hop-read") < WEB_QA.names.index("report")


def test_stages_run_in_order_and_repeated_instances_are_numbered() -> None:
    run = Run(limit=3)
    stages: dict[str, Any] = {}
    assert _drive(run_stages(_spec(run), run, stages)) is None
    assert run.built == ["first", "step", "step", "step", "last"]
    assert stages == {"first": {"value": 0}, "step/1": {"value": 1}, "step/2": {"value": 2},
                      "step/3": {"value": 3}, "last": {"value": 4}}


def test_committed_stages_are_not_built_again_and_stop_after_stops() -> None:
    run = Run(limit=3)
    stages: dict[str, Any] = {"first": {"value": 9}}
    assert _drive(run_stages(_spec(run), run, stages, stop_after="first")) == ("first", 0)
    assert run.built == []
    # a repeated stage stops after the first instance its checkpoint accepts (an even value)
    assert _drive(run_stages(_spec(run), run, stages, stop_after="step")) == ("step", 2)
    assert run.built == ["step", "step"] and "last" not in stages


def test_a_task_whose_last_stage_is_committed_builds_nothing() -> None:
    run = Run(limit=3)
    stages: dict[str, Any] = {"last": {"value": 1}}
    assert _drive(run_stages(_spec(run), run, stages, stop_after="first")) is None
    assert run.built == [] and stages == {"last": {"value": 1}}
