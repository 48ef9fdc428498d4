"""`orgctl serve` on a generated state file, for the benchmarks that need a large portal."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

READY = re.compile(r"http://127\.0\.0\.1:(\d+)")


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
        [sys.executable, "-m", "reconciler", "serve", "--state", str(state), "--port", "0", *extra],
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
