"""Dask worker preload for batch runs (the ``distributed`` preload protocol: a module with
``dask_setup(worker)``, run once when a worker starts, before any task).

- It imports the batch task module, and so everything a task imports, at worker start. A fresh
  worker process that imported them on its first task did so on two threads at once (the
  event-loop thread unpickling the next task, the task thread running the first), and in CI a
  fresh worker's first task once never finished while the worker stopped answering the scheduler.
  A worker preloaded this way (``distributed`` issue discussions report the same fix for
  first-task stalls) runs its first task with every module in place.
- It registers :mod:`faulthandler` on ``SIGUSR1``: ``kill -USR1 <worker pid>`` prints every
  thread's stack to the worker's stderr, even while a thread holds the GIL. A responsive
  worker's pid is ``client.run(os.getpid)[address]``; a frozen one answers no ``run``, and for a
  ``LocalCluster`` its nanny knows it: ``client.cluster.workers[name].process.process.pid``.

Used by :func:`ditto_nb.batch.local_client`; for a cluster started elsewhere pass
``--preload ditto_nb.batch.worker_setup`` to ``dask worker``.
"""

from __future__ import annotations

import faulthandler
import importlib
import signal
from typing import Any

TASK_MODULE = "ditto_nb.batch.task"


def dask_setup(worker: Any) -> None:
    """Import the batch task module and register the stack dump on ``SIGUSR1`` (see above)."""
    importlib.import_module(TASK_MODULE)
    faulthandler.register(signal.SIGUSR1, all_threads=True)


__all__ = ["TASK_MODULE", "dask_setup"]
