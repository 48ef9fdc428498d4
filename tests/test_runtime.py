"""The orgctl process collects cycles rarely: loading 100,000 members' manifests spent a
third of its time in the cyclic collector walking objects that live until the end."""

from __future__ import annotations

import subprocess
import sys

from reconciler.runtime import YOUNG_GENERATION

REPORT_THRESHOLD_AT_EXIT = (
    "import atexit, gc, sys\n"
    "atexit.register(lambda: print(gc.get_threshold()[0]))\n"
    "sys.argv = ['orgctl', '--version']\n"
    "from reconciler.cli import main\n"
    "main()\n"
)


def test_the_orgctl_process_runs_with_a_larger_young_generation() -> None:
    done = subprocess.run(
        [sys.executable, "-c", REPORT_THRESHOLD_AT_EXIT],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.splitlines()[-1] == str(YOUNG_GENERATION)
