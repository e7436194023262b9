"""How the benchmarks count time (prints nothing itself): CPU of a command and all it starts, and its environment.

CPU is read from a cpuacct cgroup of the benchmark's own when root (every process it starts is counted, the pool's
sandboxed runs included, kernel time too), else from the children's rusage, which misses those runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

VENV_BIN = Path(sys.executable).parent


def command_env(**extra: str) -> dict[str, str]:
    """This process's environment for a measured command, `extra` added."""
    # nbgrader runs `alembic` and the `python3` kernel from PATH: the venv's bin must come first.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "WEIGHT_TYING_SUBMISSION")}
    env.update(PATH=f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}", MPLBACKEND="Agg", PYTHONDONTWRITEBYTECODE="1")
    env.setdefault("OMP_NUM_THREADS", "1")
    return {**env, **extra}


class CpuClock:
    """CPU seconds used by everything this process starts: a cpuacct cgroup of our own when root."""

    def __init__(self) -> None:
        self.group = None
        base = Path("/sys/fs/cgroup/cpuacct")
        if os.geteuid() == 0 and (base / "cpuacct.usage").exists():
            try:
                group = base / f"autograder-bench-{os.getpid()}"
                group.mkdir(exist_ok=True)
                (group / "cgroup.procs").write_text(str(os.getpid()))
                self.group = group
            except OSError:
                self.group = None
        self.how = "cpuacct cgroup" if self.group else "children's rusage (misses the pool's sandboxed runs)"

    def read(self) -> float:
        if self.group is not None:
            return int((self.group / "cpuacct.usage").read_text()) / 1e9
        usage = os.times()
        return usage.children_user + usage.children_system

    def close(self) -> None:
        if self.group is not None:
            (self.group.parent / "cgroup.procs").write_text(str(os.getpid()))
            for _ in range(50):
                try:
                    self.group.rmdir()
                    break
                except OSError:
                    time.sleep(0.1)


def machine_busy() -> float:
    """CPU seconds every core of the machine has spent off idle since boot (/proc/stat), whoever spent them: the
    difference over a run, against its wall time, says how many cores were busy (ours and anything else)."""
    user, nice, system, _idle, _iowait, irq, softirq = (int(v) for v in Path("/proc/stat").read_text().split()[1:8])
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")  # guest time is counted in user


def timed(cmd: list[str], cwd: Path, clock: CpuClock, env: dict | None = None) -> tuple[float, float, str]:
    """(wall s, CPU s, stdout) of one command; raises with its output if it fails."""
    cpu0, start = clock.read(), time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env or command_env(), capture_output=True, text=True, timeout=3600)
    wall, cpu = time.perf_counter() - start, clock.read() - cpu0
    if proc.returncode != 0:
        raise RuntimeError(
            f"{' '.join(map(str, cmd))} exited {proc.returncode}:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
        )
    return wall, cpu, proc.stdout
