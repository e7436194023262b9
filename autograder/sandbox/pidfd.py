"""Trusted: kill a process found in a list only if it is still the process the list meant.

A list of pids (a cgroup's ``cgroup.procs``, a walk of ``/proc``) is stale the moment it is read: a listed
process may exit and its pid go to an unrelated process before the signal is sent. As root, ``os.kill`` would
then hit that process. Opening a pidfd pins whichever process holds the pid now; checking membership *after*
that, and signalling through the pidfd, kills a member or nobody.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable

__all__ = ["kill_if_member"]


def kill_if_member(pid: int, is_member: Callable[[int], bool]) -> bool:
    """SIGKILL `pid` if `is_member(pid)` holds once the process is pinned; True when the signal was sent."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:  # gone already
        return False
    except OSError:  # a kernel without pidfds (before 5.3): check, then signal by pid, with the old window
        if not is_member(pid):
            return False
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
        return True
    try:
        if not is_member(pid):  # the pid now names a process that is not one of ours
            return False
        with contextlib.suppress(ProcessLookupError):
            signal.pidfd_send_signal(fd, signal.SIGKILL)
        return True
    finally:
        os.close(fd)
