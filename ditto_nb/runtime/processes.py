"""Process liveness on Linux: the one ``pid_alive`` used by the local model server's leases and
the MediaWiki test site."""

from __future__ import annotations

import os
from pathlib import Path


def pid_alive(pid: int) -> bool:
    """True when process ``pid`` exists and is not a zombie (an exited, unreaped child).

    Args:
        pid: a process id.

    Returns:
        ``False`` when no such process exists or it is a zombie (``/proc/<pid>/stat`` state ``Z``);
        ``True`` otherwise, including a process of another user (``PermissionError``) or an
        unreadable ``/proc`` entry.
    """
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return True
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


__all__ = ["pid_alive"]
