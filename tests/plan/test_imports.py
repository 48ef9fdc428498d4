"""What a plan loads into memory before it reads anything: deepdiff imports pandas and
numpy whenever they are installed (95 MB of a 100,000-member plan's 300 MiB peak, and a
quarter second), so it is imported only when a nested difference needs explaining."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
import reconciler.cli.plan, reconciler.workflow, reconciler.plan.planner
print(sorted(m for m in ("deepdiff", "pandas", "numpy") if m in sys.modules))
"""


def test_planning_does_not_import_deepdiff_until_it_explains_a_difference() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", done.stdout


def test_a_nested_difference_is_still_explained_by_deepdiff() -> None:
    from reconciler.plan.diff import changed_subfields

    before = {"schedule": {"interval": 1, "start": 5}, "name": "a"}
    after = {"schedule": {"interval": 2, "start": 5}, "name": "a"}
    assert changed_subfields(before, after) == ["schedule"]
    assert changed_subfields({"a": 1, "b": {"c": 1}}, {"a": 1, "b": {"c": 2}}) == ["b"]
