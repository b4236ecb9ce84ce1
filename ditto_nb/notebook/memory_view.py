"""Read-only view of a task directory's Memory, for frames and export.

The view is the one typed task reader :class:`ditto_nb.patterns.common.view.TaskView` (no SQL
here); this module keeps the notebook-facing import path.
"""

from __future__ import annotations

from ditto_nb.patterns.common.view import MEMORY_FILE, Pattern, TaskView, load_task

__all__ = ["MEMORY_FILE", "Pattern", "TaskView", "load_task"]
