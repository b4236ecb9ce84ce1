"""ditto_nb.batch: many Web QA tasks on a Dask ``distributed`` cluster (one machine or many).

Public API: :func:`run_batch` → :class:`BatchResult`; :class:`BatchTask` and
:func:`run_batch_task` (one task, as a worker runs it); :func:`task_directory`; :func:`local_client` (a LocalCluster on 127.0.0.1);
:class:`~ditto_nb.runtime.limits.ConcurrencyLimits` (re-exported).
"""

from ditto_nb.batch.run import COLUMNS, RESULTS_FILE_NAME, BatchResult, local_client, run_batch, task_directory
from ditto_nb.batch.task import BatchTask, run_batch_task
from ditto_nb.runtime.limits import ConcurrencyLimits

__all__ = [
    "COLUMNS",
    "RESULTS_FILE_NAME",
    "BatchResult",
    "BatchTask",
    "ConcurrencyLimits",
    "local_client",
    "run_batch",
    "run_batch_task",
    "task_directory",
]
