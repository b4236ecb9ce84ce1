"""The Runtime: Workers registered by capability, and the entry point that runs plans."""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType, TracebackType
from typing import Any

from ditto_nb.errors import ConfigError
from ditto_nb.runtime.loop import OnGraph, Plan, R, Worker, run_loop
from ditto_nb.runtime.signal import Signal


class Runtime:
    """Holds Workers by capability and runs plans with :meth:`loop`.

    Create with :func:`create_ditto`.
    """

    def __init__(self, workers: Iterable[Worker]) -> None:
        """Register workers.

        Args:
            workers: objects with ``capabilities`` and ``async execute(capability, input)``.

        Raises:
            ConfigError: a worker lacks ``capabilities``/``execute``, or two workers declare
                the same capability.
        """
        self._workers: tuple[Worker, ...] = tuple(workers)
        routes: dict[str, Worker] = {}
        for worker in self._workers:
            capabilities = getattr(worker, "capabilities", None)
            execute = getattr(worker, "execute", None)
            if capabilities is None or isinstance(capabilities, str) or not callable(execute):
                raise ConfigError(
                    f"{worker!r} is not a Worker: it needs a 'capabilities' set of names and "
                    "an 'async def execute(capability, input)'"
                )
            for capability in capabilities:
                if not isinstance(capability, str) or not capability:
                    raise ConfigError(f"{worker!r} declares an invalid capability {capability!r}")
                if capability in routes:
                    raise ConfigError(
                        f"capability {capability!r} is declared by two workers: "
                        f"{routes[capability]!r} and {worker!r}"
                    )
                routes[capability] = worker
        self._routes = MappingProxyType(routes)

    @property
    def workers(self) -> tuple[Worker, ...]:
        """The registered workers, in registration order."""
        return self._workers

    @property
    def routes(self) -> Mapping[str, Worker]:
        """Read-only capability → Worker mapping."""
        return self._routes

    @property
    def capabilities(self) -> frozenset[str]:
        """Every capability some worker serves."""
        return frozenset(self._routes)

    async def loop(
        self,
        plan: Plan[R],
        args: Sequence[Any] = (),
        *,
        signal: Signal | None = None,
        on_graph: OnGraph | None = None,
    ) -> R:
        """Run a plan: every graph it yields, until it returns.

        The plan is a generator function. It is called as ``plan(*args)``, yields
        ``graph_step(graph)`` (possibly from sub-generators via ``yield from``), receives each
        graph's outputs ``{node_id: output}``, and its return value is returned here. A node's
        error is thrown into the plan at its ``yield`` (so a plan may handle it); if the plan
        does not, it propagates unchanged.

        Args:
            plan: the generator function.
            args: positional arguments for ``plan``.
            signal: aborting it (or its timeout) cancels the running graph's nodes and schedules
                nothing more.
            on_graph: called with one :class:`~ditto_nb.runtime.loop.GraphRecord` per graph that
                actually ran (ok, failed or cancelled), right after it ends.

        Returns:
            The plan's return value.

        Raises:
            GraphError: the plan is not a generator, yielded something other than a GraphStep,
                or yielded an invalid graph (nothing of that graph ran).
            GraphBudgetExceeded: the plan yielded a 129th graph (it did not run).
            LoopCancelled: the signal aborted or timed out.
            Exception: a node's error, unchanged, unless the plan handled it.
        """
        return await run_loop(plan, args, self._routes, signal=signal, on_graph=on_graph)

    async def close(self) -> None:
        """Close every worker that has an ``async close()`` (in reverse registration order)."""
        for worker in reversed(self._workers):
            close = getattr(worker, "close", None)
            if callable(close):
                result = close()
                if inspect.isawaitable(result):
                    await result

    async def __aenter__(self) -> Runtime:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"<Runtime capabilities={sorted(self._routes)}>"


def create_ditto(workers: Iterable[Worker]) -> Runtime:
    """Create a Runtime from workers.

    Args:
        workers: Worker objects (``capabilities`` + ``async execute(capability, input)``);
            each capability must be served by exactly one of them.

    Returns:
        The :class:`Runtime`.

    Raises:
        ConfigError: an object is not a Worker, or two workers declare one capability.
    """
    return Runtime(workers)


__all__ = ["Runtime", "create_ditto"]
