"""The real `orgctl` command line for the tests: the runner is the package's own
`reconciler.testing` (shared with the benchmarks), re-exported here; and the benchmarks,
run with small arguments so they stay runnable.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from reconciler.testing import CLI_TIMEOUT_SECONDS as CLI_TIMEOUT_SECONDS
from reconciler.testing import env_with as env_with
from reconciler.testing import orgctl as orgctl
from reconciler.testing import orgctl_command as orgctl_command
from reconciler.testing import orgctl_subprocess as orgctl_subprocess
from reconciler.testing import output_of as output_of


def run_benchmark(script: str, *args: str, timeout: float = 180.0) -> str:
    """Run benchmarks/<script> with small arguments (it stays runnable); its output, or the
    test fails with what it printed."""
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, str(root / "benchmarks" / script), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        cwd=root,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout
