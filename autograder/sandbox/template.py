"""Trusted: the template: imports torch once, then forks the pool's warm processes (zygotes and judges) from it.

Started by ``autograder.sandbox.warm.Template`` as ``python -I -B -m autograder.sandbox.template SOCKET_FD fold
[MODULE ...]`` (or ``flat``: torch's memory left in 4 KiB pages, see ``hugepages``) with the zygote's bare
environment (both made here, on the grader's side: ``invocation``), not dumpable. It imports torch (one thread,
before any op: a fork after multi-threaded OpenMP work can deadlock), the public libraries named after it that
``SHARED_IMPORTS`` allows (matplotlib, which each zygote of a pool would otherwise import: ~0.6 CPU-s each), and of
the kit only the sandbox package it runs from (as the zygote always did): no grader's modules, no dnnlpy (a zygote
puts the grader's copy first before anything imports it; a judge imports the real one), no environment of the
grader. So a child starts with torch imported and holds of the grader only what it is sent on its own channel after
the fork, which this process never reads. Messages on the socket (SOCK_SEQPACKET)::

    grader -> template   {"entry": MODULE} + 3 fds       fork; the child closes this socket, makes the first fd
                         fds: channel, stderr, reply       its own channel and the second its stderr, then runs
                                                           MODULE.main([channel]) and exits
    template -> reply    {"pid": child} + a pidfd of it    (then the reply socket is closed)
    socket closed        exit

Children are reaped here, never by the kernel on their exit, so a pidfd the grader holds names that child or
nothing (see ``zygote``). A child ends when the grader closes its channel, as a process of its own would.
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import socket
import sys
import tempfile

from autograder.sandbox.hugepages import fold_anonymous_memory
from autograder.sandbox.zygote import next_request, serve_apart

__all__ = ["main", "invocation", "import_torch", "check_shared", "ENTRIES", "SHARED_IMPORTS"]

# What a child may become: the warm fork server, and the warm judge (imported by name, after the fork only).
ENTRIES = ("autograder.sandbox.zygote", "autograder.grading.judge.server")
# Libraries the template may import for its children besides torch: public code a run may use, none of the kit's.
SHARED_IMPORTS = ("numpy", "matplotlib", "matplotlib.pyplot")
_FDS = 3


def _child(sock: socket.socket, entry: str, channel: int, stderr: int, reply: int) -> None:
    """Become `entry` with `channel`; never returns."""
    code = 1
    try:
        sock.close()  # a child cannot ask for forks, nor read what others ask
        os.close(reply)
        os.dup2(stderr, 2)
        os.close(stderr)
        importlib.import_module(entry).main([str(channel)])
        code = 0
    except BaseException:  # noqa: BLE001 - said on the child's stderr, then the child ends
        import traceback

        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)  # never the template's loop, nor its atexit handlers


def _serve(sock: socket.socket) -> None:
    while (request := next_request(sock, 4096, _FDS)) is not None:
        data, fds = request
        del request
        try:
            entry = json.loads(data).get("entry")
            if entry not in ENTRIES or len(fds) != _FDS:
                raise ValueError(f"expected an entry of {ENTRIES} with {_FDS} fds, got {entry!r}")
        except ValueError as exc:
            print(f"template: {exc}", file=sys.stderr, flush=True)
            for fd in fds:
                os.close(fd)
            continue
        del data
        channel, stderr, reply = fds
        pid = os.fork()
        if pid == 0:
            _child(sock, entry, channel, stderr, reply)
        os.close(channel)
        os.close(stderr)
        pidfd = os.pidfd_open(pid)  # not yet reaped, so this is our child whatever it has done since
        try:
            with socket.socket(fileno=reply) as answer:
                socket.send_fds(answer, [json.dumps({"pid": pid}).encode()], [pidfd])
        except OSError:
            pass  # the grader gave up on this child: it ends when its channel closes
        finally:
            os.close(pidfd)


def invocation(channel: int, shared: tuple[str, ...] = (), *, fold: bool = True) -> tuple[list[str], dict[str, str]]:
    """How the grader starts a template (``warm.Template``), on the grader's side: its command line, with the
    socket's fd `channel`, whether it folds its memory (`fold`) and the `shared` libraries (each one of
    ``SHARED_IMPORTS``, else ValueError), and its
    environment: the zygote's bare one, with matplotlib's config and font cache in one folder of ours, kept, so
    that it is built once."""
    from autograder.sandbox.config import runner_env  # the grader's: this process never needs it

    argv = [sys.executable, "-I", "-B", "-m", "autograder.sandbox.template", str(channel), "fold" if fold else "flat"]
    argv += check_shared(shared)
    matplotlib = os.path.join(tempfile.gettempdir(), f"autograder-matplotlib-{os.geteuid()}")
    os.makedirs(matplotlib, mode=0o700, exist_ok=True)
    return argv, {**runner_env("/tmp"), "MPLCONFIGDIR": matplotlib}


def check_shared(names: tuple[str, ...]) -> tuple[str, ...]:
    """`names`, when each is one of ``SHARED_IMPORTS`` (asked on the grader's side and again here); else ValueError."""
    refused = [name for name in names if name not in SHARED_IMPORTS]
    if refused:
        raise ValueError(f"the template imports only {SHARED_IMPORTS} besides torch, not {refused}")
    return tuple(names)


def import_torch(fold: bool = True, shared: tuple[str, ...] = ()) -> None:
    """Import torch (one thread, before any op: see the module docstring), then the `shared` libraries (each of
    ``SHARED_IMPORTS``), with the collector paused; then freeze what they made: no collection walks those objects
    again, neither here while the import grows them (~0.08 CPU-s of passes) nor in a child (the judge's and the
    zygote's had walked them all, ~0.08 CPU-s each, writing to their pages: a copy of each such page made in
    every child)."""
    check_shared(shared)
    gc.disable()
    import torch

    torch.set_num_threads(1)
    for name in shared:
        importlib.import_module(name)
    gc.freeze()
    gc.enable()
    if fold:  # in 2 MiB pages before any fork: what a zygote or judge never writes stays one shared copy (a zygote
        # folds again once warm, and only what it wrote becomes its own)
        fold_anonymous_memory()


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    sock = socket.socket(fileno=int(args[0]))
    serve_apart()
    import_torch(fold=args[1:2] != ["flat"], shared=tuple(args[2:]))
    _serve(sock)
    sys.stderr.flush()
    # Nothing here needs cleaning up, and an interpreter's teardown with torch loaded costs ~0.3 CPU-s (its
    # modules' objects freed one by one): a third of what importing it cost. Its children end the same way.
    os._exit(0)


if __name__ == "__main__":
    main()
