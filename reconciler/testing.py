"""Run the real `orgctl` command line as a user would and see what the user sees, with an
environment holding only the given ORGCTL_* variables: in this process, or as the
console script in a subprocess. For orgctl's own tests and benchmarks, and for a project
that tests its use of orgctl (a CI step, a wrapper script) without a shell.

In-process runs go through the same entry function as the console script
(`reconciler.cli.run`), with the streams, the environment and the working directory of a
subprocess, so a test sees what a user would; they only save a Python start-up and the
imports per call. What concerns the process itself (the console script, a terminal,
signals, what reaches the real stderr) needs `orgctl_subprocess`.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import traceback
from collections.abc import Iterator, Mapping
from pathlib import Path

from click.testing import CliRunner

from reconciler.cli import run

# A hung CLI must fail its test, not the whole run; generous, since retries back off.
CLI_TIMEOUT_SECONDS = 180.0


def env_with(**variables: str) -> dict[str, str]:
    """This process's environment without its ORGCTL_* variables and without `CI` (a run
    in CI warns about ORGCTL_TRUSTED_ORIGINS; a test that wants CI says so), plus
    `variables`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ORGCTL_") and k != "CI"}
    # Wide enough that tables and long URLs are never wrapped or cut.
    return {**env, "NO_COLOR": "1", "COLUMNS": "400", **variables}


def orgctl_command(args: list[str]) -> list[str]:
    """The `orgctl` command line of this interpreter (the console script need not be on PATH)."""
    return [sys.executable, "-m", "reconciler", *args]


def orgctl(
    *args: str | Path, env: dict[str, str], cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """The real CLI in this process; stdin is empty and no stream is a TTY."""
    argv = [str(a) for a in args]
    runner = CliRunner()
    with runner.isolation(input="", env=_differences(env)) as (out, err, _), _directory(cwd):
        code = _run_as_interpreter(argv)
        sys.stdout.flush()
        sys.stderr.flush()
    return subprocess.CompletedProcess(
        ["orgctl", *argv], code, _text(out.getvalue()), _text(err.getvalue())
    )


def orgctl_subprocess(
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


def _run_as_interpreter(argv: list[str]) -> int:
    """`run`, ending as the interpreter would end the console script: an exception that
    escapes (a bug, or a user error under --debug) prints its traceback and exits 1."""
    try:
        return run(argv)
    except Exception:
        traceback.print_exc()
        return 1


def _differences(env: Mapping[str, str]) -> dict[str, str | None]:
    """What to set and unset so this process's environment becomes `env` for one run."""
    changes: dict[str, str | None] = {k: v for k, v in env.items() if os.environ.get(k) != v}
    changes.update({k: None for k in os.environ if k not in env})
    return changes


def _text(data: bytes) -> str:
    # What `subprocess.run(text=True)` does: universal newlines.
    return data.decode("utf-8", errors="replace").replace("\r\n", "\n")


@contextlib.contextmanager
def _directory(path: Path | None) -> Iterator[None]:
    if path is None:
        yield
        return
    with contextlib.chdir(path):
        yield
