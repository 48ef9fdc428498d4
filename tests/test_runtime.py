"""The orgctl process collects cycles rarely: loading 100,000 members' manifests spent a
third of its time in the cyclic collector walking objects that live until the end; nor
does it walk them all once more on its way out. Its event loop hands results back without
formatting them."""

from __future__ import annotations

import subprocess
import sys

from reconciler import workflow
from reconciler.runtime import YOUNG_GENERATION
from tests.manifest.conftest import REPO


def _orgctl_reporting_at_exit(report: str, *args: str) -> list[str]:
    """The lines `orgctl ARGS` prints, run through `main()` as the console script runs
    it, then what `report` (an expression) is as its `atexit` handler sees it."""
    probe = (
        "import atexit, gc, sys\n"
        f"atexit.register(lambda: print({report}))\n"
        f"sys.argv = ['orgctl', *{list(args)!r}]\n"
        "from reconciler.cli import main\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=REPO
    )
    return done.stdout.splitlines()


def test_the_orgctl_process_runs_with_a_larger_young_generation() -> None:
    lines = _orgctl_reporting_at_exit("gc.get_threshold()[0]", "--version")
    assert lines[-1] == str(YOUNG_GENERATION)


def test_the_objects_left_at_exit_are_not_collected_again_and_atexit_still_runs() -> None:
    # The interpreter's last collections walked every object still tracked: 60 ms of a
    # 450 ms process that imported what `drift` needs.
    report = "'frozen', gc.get_freeze_count(), 'tracked', len(gc.get_objects())"
    lines = _orgctl_reporting_at_exit(report, "validate", "examples/hq")
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
