"""Read-only view of a task directory's Memory, for frames and export.

The view is the one typed task reader :class:`ditto_nb.patterns.common.view.TaskView` (no SQL
here); this module keeps the notebook-facing import path and adds :data:`TaskRef` /
:func:`as_view`, which every frame takes.
"""

from __future__ import annotations

import os

from ditto_nb.patterns.common.view import MEMORY_FILE, Pattern, TaskView, load_task

TaskRef = str | os.PathLike[str] | TaskView
"""A task directory, or a :class:`TaskView` already read from one."""


def as_view(task: TaskRef) -> TaskView:
    """Return ``task`` as a :class:`TaskView` (reading the directory when given a path).

    Args:
        task: a task directory or a view.

    Returns:
        The view.

    Raises:
        ConfigError, StorageError: see :func:`~ditto_nb.patterns.common.view.load_task`.
    """
    return task if isinstance(task, TaskView) else load_task(task)


__all__ = ["MEMORY_FILE", "Pattern", "TaskRef", "TaskView", "as_view", "load_task"]
