"""The runner's watch on what a run tries that its sandbox may refuse (``__refused__``), fed audit events directly:
an audit hook cannot be removed, so this process never installs one."""

from __future__ import annotations

import socket

from autograder.runner import refusals
from autograder.runner.refusals import MAX_EACH, Attempts


def test_what_is_not_there_to_read_is_recorded_and_what_is_there_is_not(tmp_path):
    seen = Attempts()
    readable = tmp_path / "mine.txt"
    readable.write_text("x")
    seen("open", (str(tmp_path / "missing.txt"), "r", 0))
    seen("open", (str(readable), "r", 0))
    seen("os.scandir", (b"/no/such/folder",))
    seen("os.listdir", ("/no/such/folder",))  # once, however often
    seen("open", (7, "r", 0))  # a file descriptor: no path
    assert seen.record()["files"] == [str(tmp_path / "missing.txt"), "/no/such/folder"]


def test_a_loaded_modules_own_file_read_back_by_a_traceback_is_not_counted(tmp_path, monkeypatch):
    gone = tmp_path / "gone.py"  # a module imported before the run, its file not in the run's view
    module = type(socket)("gone")
    module.__file__ = str(gone)
    monkeypatch.setitem(__import__("sys").modules, "gone", module)
    seen = Attempts()
    seen("open", (str(gone), "rb", 0))
    assert seen.record()["files"] == []


def test_a_fork_servers_remembered_modules_are_not_counted_and_no_run_walks_them_again(tmp_path, monkeypatch):
    def module(name):
        made = type(socket)(name)
        made.__file__ = str(tmp_path / f"{name}.py")  # neither file exists: as outside the run's view
        monkeypatch.setitem(__import__("sys").modules, name, made)

    monkeypatch.setattr(refusals, "_REMEMBERED", None)  # put back after the test
    module("before")
    refusals.remember_loaded()  # the fork server, after its imports
    module("after")  # loaded by a run (a forged __file__: the run's own word, which moves no mark)
    monkeypatch.setattr(refusals, "_module_paths", lambda: 1 / 0)  # a forked run walks no module
    seen = Attempts()
    seen("open", (str(tmp_path / "before.py"), "rb", 0))
    seen("open", (str(tmp_path / "after.py"), "rb", 0))
    assert seen.record()["files"] == [str(tmp_path / "after.py")]


def test_the_fork_server_remembers_the_modules_before_it_forks():
    import inspect

    from autograder.sandbox import forked, zygote

    assert "refusals.remember_loaded()" in inspect.getsource(forked.prepare)
    serve = inspect.getsource(zygote._serve)
    assert serve.index("prepare()") < serve.index("fork_run(")  # each run is forked by forked.fork_run


def test_sockets_of_a_family_but_unix_and_calls_by_name_are_recorded():
    seen = Attempts()
    seen("socket.__new__", (None, socket.AF_INET, socket.SOCK_STREAM, 0))
    seen("socket.__new__", (None, socket.AF_UNIX, socket.SOCK_STREAM, 0))
    seen("ctypes.dlsym", (0, "ptrace"))
    seen("ctypes.dlsym", (0, "ptrace"))
    assert seen.record()["calls"] == ["socket:AF_INET", "ptrace"]


def test_the_watch_records_at_most_its_bound_and_never_raises():
    seen = Attempts()
    for n in range(3 * MAX_EACH):
        seen("open", (f"/no/such/{n}", "r", 0))
        seen("ctypes.dlsym", (0, f"f{n}"))
    seen("open", (object(), "r", 0))  # not a path: nothing, and no error into the run
    seen("socket.__new__", ())
    assert len(seen.record()["files"]) == len(seen.record()["calls"]) == MAX_EACH


def test_the_runner_sends_what_it_saw_once_before_done():
    import inspect

    from autograder.runner import __main__ as runner

    source = inspect.getsource(runner.main)
    assert source.index("refusals.watch()") < source.index("load_submission(")  # before the submission runs
    assert source.index("Refused.NAME") < source.index("Done.NAME") and refusals.watch.__doc__
