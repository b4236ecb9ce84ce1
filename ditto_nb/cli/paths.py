"""Checks of the paths an analyst passes on the command line (``--dir``), before anything runs."""

from __future__ import annotations

from pathlib import Path

from ditto_nb.errors import ConfigError


def check_task_dir(directory: Path) -> Path:
    """Make sure ``directory`` can be a task directory: a folder, or creatable as one.

    Args:
        directory: the ``--dir`` value.

    Returns:
        ``directory`` unchanged.

    Raises:
        ConfigError: ``directory`` (or one of its parents) exists and is not a folder.
    """
    for path in (directory, *directory.parents):
        if path.exists() and not path.is_dir():
            where = "is a file" if path == directory else f"is inside {path}, which is a file"
            raise ConfigError(
                f"--dir {directory} {where}, not a task folder",
                help="Pass a folder (new or made by an earlier run), e.g. --dir my-task.",
            )
        if path.is_dir():
            break
    return directory


__all__ = ["check_task_dir"]
