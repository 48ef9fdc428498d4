"""The orgctl process collects cycles rarely: loading 100,000 members' manifests spent a
third of its time in the cyclic collector walking objects that live until the end; nor
does it walk them all once more on its way out. Its event loop hands results back without
formatting them."""

from __future__ import annotations

import subprocess
import sys

from reconciler import workflow
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


REPORT_AT_EXIT = (
    "import atexit, gc, sys\n"
    "def report():\n"
    "    print('frozen', gc.get_freeze_count(), 'tracked', len(gc.get_objects()))\n"
    "atexit.register(report)\n"
    "sys.argv = ['orgctl', 'validate', 'examples/hq']\n"
    "from reconciler.cli import main\n"
    "main()\n"
)


def test_the_objects_left_at_exit_are_not_collected_again_and_atexit_still_runs() -> None:
    # The interpreter's last collections walked every object still tracked: 60 ms of a
    # 450 ms process that imported what `drift` needs.
    done = subprocess.run(
        [sys.executable, "-c", REPORT_AT_EXIT], capture_output=True, text=True, check=True
    )
    lines = done.stdout.splitlines()
    assert lines[0] == "valid: no problems found"  # the command's output comes first, whole
    word, frozen, _, tracked = lines[-1].split()
    assert word == "frozen"
    assert int(frozen) > 10_000  # the modules' objects and the command's
    assert int(tracked) < int(frozen) // 10  # what atexit's own work has made since


class _Formatted:
    """A result that counts how often it is formatted."""

    def __init__(self) -> None:
        self.reprs = 0

    def __repr__(self) -> str:
        self.reprs += 1
        return "<formatted>"


def test_the_event_loop_returns_its_result_without_formatting_it() -> None:
    # asyncio.run formats its finished main task (and so its result) on the way out: a
    # 100,000-member live state made a string of 0.1-0.2 s.
    result = _Formatted()

    async def produce() -> _Formatted:
        return result

    assert workflow.run(produce()) is result
    assert result.reprs == 0
