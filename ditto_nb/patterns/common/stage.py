"""The Stage: how both patterns are declared (name, pydantic output model, graph builder, replay).

A pattern is a declared sequence of :class:`Stage` objects. A stage's *graph builder* is a plan
sub-generator: it yields the stage's flat Graph(s) (through :func:`~ditto_nb.patterns.common.run_step`;
plans do no I/O), dispatches through the one ledger
(:func:`~ditto_nb.patterns.common.add_ledgered_call`) and returns its output, which is validated
by the stage's *output model* before it is committed to ``stage/<name>`` — so stage outputs cross
boundaries as typed pydantic models, and :class:`~ditto_nb.patterns.common.view.TaskView` reads
them back typed (``view.stage("read", ReadStage)``).

The real differences between Web QA and deep research are :class:`ReplayPolicy` flags, not copies:

- ``reuse_failed_dispatches``: a resumed run reuses a done search/read that recorded a failure
  (research freezes each round's URL list) instead of retrying it (Web QA);
- ``persisted_start_clock``: the stage's time budget counts from a start time persisted in
  Memory, pauses included (research's ``research_seconds``).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict

O = TypeVar("O", bound=BaseModel)

StageStep = Generator[Any, Any, Any]
"""A graph builder's generator: yields GraphSteps, returns the stage output (JSON)."""


class StageOutput(BaseModel):
    """Base of stage output models: fields typed; fields added by newer code are kept."""

    model_config = ConfigDict(extra="allow")


@dataclass(frozen=True)
class ReplayPolicy:
    """How a stage replays its ledger (see the module docstring).

    Attributes:
        reuse_failed_dispatches: reuse a done search/read that recorded a failure.
        persisted_start_clock: time budgets count from the persisted start time.
    """

    reuse_failed_dispatches: bool = False
    persisted_start_clock: bool = False


@dataclass(frozen=True)
class Stage(Generic[O]):
    """One declared stage.

    Attributes:
        name: the stage name; its output is committed to ``stage/<name>``.
        output: the pydantic model of the committed output.
        build: the graph builder ``build(run, stages) -> StageStep`` where ``stages`` maps the
            names of the stages already done to their outputs (None for a stage driven by its
            pattern's loop, e.g. research rounds).
        replay: the replay policy.
    """

    name: str
    output: type[O]
    build: Callable[[Any, Mapping[str, Any]], StageStep] | None = None
    replay: ReplayPolicy = field(default_factory=ReplayPolicy)

    def parse(self, value: Any) -> O:
        """Validate a stored or computed output.

        Raises:
            pydantic.ValidationError: the value does not fit :attr:`output`.
        """
        return self.output.model_validate(value)

    def commit_value(self, value: Any) -> Mapping[str, object]:
        """The JSON object written to ``stage/<name>``: ``value`` validated by the output model.

        Raises:
            pydantic.ValidationError: the value does not fit :attr:`output`.
        """
        return self.parse(value).model_dump(mode="json")


@dataclass(frozen=True)
class PatternSpec:
    """A pattern declared as stages.

    Attributes:
        name: ``web_qa`` or ``deep_research``.
        stages: the stages in order.
        replay: the pattern's replay policy (every stage's ledger replays with it).
    """

    name: str
    stages: tuple[Stage[Any], ...]
    replay: ReplayPolicy

    def stage(self, name: str) -> Stage[Any]:
        """The declared stage ``name``.

        Raises:
            KeyError: no such stage.
        """
        for stage in self.stages:
            if stage.name == name:
                return stage
        raise KeyError(name)

    @property
    def names(self) -> tuple[str, ...]:
        """The stage names in order."""
        return tuple(stage.name for stage in self.stages)


__all__ = ["PatternSpec", "ReplayPolicy", "Stage", "StageOutput", "StageStep"]
