"""The real `orgctl` in a subprocess, with an environment holding only the given ORGCTL_*
variables."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# A hung CLI must fail its test, not the whole run; generous, since retries back off.
CLI_TIMEOUT_SECONDS = 180.0


def env_with(**variables: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ORGCTL_")}
    # Wide enough that tables and long URLs are never wrapped or cut.
    return {**env, "NO_COLOR": "1", "COLUMNS": "400", **variables}


def orgctl_command(args: list[str]) -> list[str]:
    return [sys.executable, "-m", "reconciler", *args]


def orgctl(
    *args: str | Path, env: dict[str, str], cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """The real CLI in a subprocess; stdin is /dev/null, so it has no TTY."""
    return subprocess.run(
        orgctl_command([str(a) for a in args]),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=CLI_TIMEOUT_SECONDS,
    )


def output_of(result: subprocess.CompletedProcess[str]) -> str:
    """Both streams, for assertions on what the user sees and for failure messages."""
    return f"--- exit {result.returncode}\n--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"
