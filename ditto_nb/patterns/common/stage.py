"""The Stage: how both patterns are declared (name, pydantic output model, graph builder), and the
one runner of both (:func:`run_stages`).

A pattern is a declared sequence of :class:`Stage` objects. A stage's *graph builder* is a plan
sub-generator: it yields the stage's flat Graph(s) (through :func:`~ditto_nb.patterns.common.run_step`;
plans do no I/O), dispatches through the one ledger
(:func:`~ditto_nb.patterns.common.add_ledgered_call`) and returns its output, which is validated
by the stage's *output model* before it is committed to ``stage/<name>`` — so stage outputs cross
boundaries as typed pydantic models, and :class:`~ditto_nb.patterns.common.view.TaskView` reads
them back typed (``view.stage("read", ReadStage)``).

How the two patterns replay their ledger differs by one :class:`ReplayPolicy` flag, not by copies:
``reuse_failed_dispatches``: a resumed run reuses a done search/read that recorded a failure
(research freezes each round's URL list) instead of retrying it (Web QA). Research's time budget
counts from a start time its own resume graph persists (``deep_research/stages.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping, MutableMapping
from dataclasses import dataclass
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
        reuse_failed_dispatches: reuse a done search/read that recorded a failure (the pattern
            hands it to its :class:`~ditto_nb.patterns.common.Ledger`).
    """

    reuse_failed_dispatches: bool = False


@dataclass(frozen=True)
class Repeat:
    """How a repeated stage runs: numbered instances ``<name>/<n>`` (n from 1), e.g. research rounds.

    An instance carries what it learnt to the next one in the run object, so on resume every
    instance is rebuilt in order from the ledger (no dispatch and no graph for what is done) and
    its committed output is kept as recorded.

    Attributes:
        more: ``more(run) -> bool``: build another instance?
        checkpoint: ``checkpoint(run, output) -> bool``: does ``stop_after=<name>`` stop after
            this instance (``output`` is None when the instance committed nothing)?
    """

    more: Callable[[Any], bool]
    checkpoint: Callable[[Any, Any], bool]


@dataclass(frozen=True)
class Stage(Generic[O]):
    """One declared stage.

    Attributes:
        name: the stage name; its output is committed to ``stage/<name>`` (``stage/<name>/<n>``
            for the instances of a repeated stage).
        output: the pydantic model of the committed output.
        build: the graph builder ``build(run, stages) -> StageStep`` where ``stages`` maps the
            names of the stages already done to their outputs; it returns the output (None: an
            instance of a repeated stage that committed nothing).
        repeat: set for a stage run as numbered instances (:class:`Repeat`).
    """

    name: str
    output: type[O]
    build: Callable[[Any, Mapping[str, Any]], StageStep]
    repeat: Repeat | None = None

    def parse(self, value: Any) -> O:
        """Validate a stored or computed output.

        Raises:
            pydantic.ValidationError: the value does not fit :attr:`output`.
        """
        return self.output.model_validate(value)


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


Checkpoint = tuple[str, int]
"""Where :func:`run_stages` stopped: ``(stage name, instance number or 0)``."""


def run_stages(spec: PatternSpec, run: Any, stages: MutableMapping[str, Any],
               stop_after: str | None = None) -> Generator[Any, Any, Checkpoint | None]:
    """The one stage runner of both patterns: build each declared stage in order.

    A stage already in ``stages`` (committed by an earlier call) is not built again; a task
    whose last stage is committed builds nothing. A repeated stage's instances are built while
    ``repeat.more(run)`` (see :class:`Repeat`) and stored as ``stages["<name>/<n>"]``.

    Args:
        spec: the pattern.
        run: the pattern's run object, handed to every builder.
        stages: committed outputs by stage name; the new outputs are added.
        stop_after: a stage name: return after it (a repeated stage: after the first instance
            whose ``repeat.checkpoint`` says so).

    Returns:
        ``(stage, instance)`` where ``stop_after`` stopped the run, else None (every stage built).

    Raises:
        Whatever a builder raises, unchanged.
    """
    if spec.stages[-1].name in stages:
        return None
    for stage in spec.stages:
        if stage.repeat is None:
            if stage.name not in stages:
                stages[stage.name] = yield from stage.build(run, stages)
            if stop_after == stage.name:
                return stage.name, 0
            continue
        n = 0
        while stage.repeat.more(run):
            n += 1
            output = yield from stage.build(run, stages)
            if output is not None:
                stages[f"{stage.name}/{n}"] = output
            if stop_after == stage.name and stage.repeat.checkpoint(run, output):
                return stage.name, n
    return None


__all__ = ["Checkpoint", "PatternSpec", "Repeat", "ReplayPolicy", "Stage", "StageOutput", "StageStep", "run_stages"]
