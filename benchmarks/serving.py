"""`orgctl serve` on a generated state file, and orgctl runs against it timed and measured,
for the benchmarks that need a large portal."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

READY = re.compile(r"http://127\.0\.0\.1:(\d+)")
ORGCTL = [sys.executable, "-m", "reconciler"]
ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
DEMO_STATE = EXAMPLES / "demo" / "state.yaml"


@dataclass(frozen=True)
class Served:
    port: int
    seconds_to_listen: float  # seeding the state file included

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@contextmanager
def serving(state: Path, *extra: str) -> Iterator[Served]:
    """Start the service on a free port, yield once it listens, stop it afterwards."""
    started = time.perf_counter()
    server = subprocess.Popen(
        [*ORGCTL, "serve", "--state", str(state), "--port", "0", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert server.stdout is not None
        port = next(int(m.group(1)) for line in server.stdout if (m := READY.search(line)))
        yield Served(port, time.perf_counter() - started)
    finally:
        server.terminate()
        server.wait(timeout=30)


@dataclass(frozen=True, slots=True)
class Run:
    seconds: float
    peak_mib: float
    code: int
    output: str


def timed(args: list[str], env: dict[str, str]) -> Run:
    """One orgctl process: its wall time, peak resident memory and exit code."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [*ORGCTL, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    assert process.stdout is not None
    output = process.stdout.read().decode(errors="replace")
    _pid, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    # ru_maxrss is in KiB on Linux.
    return Run(seconds, usage.ru_maxrss / 1024, process.returncode, output)


def checked(run: Run, what: str) -> Run:
    if run.code != 0:
        raise SystemExit(f"{what} exited {run.code}, not 0 (in sync):\n{run.output[-2000:]}")
    return run


def timed_threads(clients: list[Callable[[], None]]) -> float:
    """Run each client in its own thread at once; the seconds until the last one ends."""
    threads = [threading.Thread(target=client) for client in clients]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.perf_counter() - started
