"""The llama.cpp server process's environment (pure)."""

from __future__ import annotations

import os


def server_environment() -> dict[str, str]:
    """This process's environment plus ``GOMP_SPINCOUNT=10000`` unless either that or
    ``OMP_WAIT_POLICY`` is already set.

    llama.cpp's CPU backend is built with OpenMP (libgomp). Its threads wait at every barrier:
    spinning without limit (``OMP_WAIT_POLICY=ACTIVE``) burns the time slices of a shared
    2-core machine (short calls 3-4x slower when loaded), while sleeping at once (``PASSIVE``)
    cost a third of the generation speed on an idle machine (1.5B: 11.8 vs 18.8 tokens/s;
    ``docs/LOCAL_MODEL.md``). A short bounded spin (10,000 iterations, libgomp's
    ``GOMP_SPINCOUNT``) generated at 16-19 tokens/s idle and yields the cores soon after.

    Returns:
        The environment mapping for the child process.
    """
    env = dict(os.environ)
    if "OMP_WAIT_POLICY" not in env:
        env.setdefault("GOMP_SPINCOUNT", "10000")
    return env


__all__ = ["server_environment"]
