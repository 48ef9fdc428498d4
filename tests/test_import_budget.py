"""`orgctl validate` and `orgctl --help` import only what they use. Validate runs on every
push of a manifest repository and `--help` on every doubt; neither needs the planner, the
renderers (rich), the HTTP client or the access report. Counted in a fresh process, as
the command runs.

The caps are the counts measured when they were set plus a small margin for another
Python patch release: validate 339 modules (about 110 of them pydantic and its core; no
ruamel.yaml, which only writing manifests needs: each kind loads its export and adoption
writers when they run), `--help` 113 (click and the standard library's own). Before
this budget validate imported 436, with the planner, rich and every report renderer, and
377 before the kinds' writers were loaded on use."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "hq"
PROBE = """
import json, sys
sys.argv = {argv!r}
from reconciler.cli import main
try:
    main()
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""
NEVER = (
    "rich",
    "httpx",
    "ruamel.yaml",
    "reconciler.plan.planner",
    "reconciler.access.document",
    "asyncio",
)


def modules_of(*argv: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(argv=["orgctl", *argv])],
        capture_output=True,
        text=True,
        check=False,
        cwd=EXAMPLE.parent,
    )
    loaded: list[str] = json.loads(done.stderr.strip().splitlines()[-1])
    return loaded


@pytest.mark.parametrize(
    ("argv", "cap"),
    [(("validate", str(EXAMPLE)), 350), (("--help",), 125)],
    ids=["validate", "help"],
)
def test_a_command_imports_only_what_it_uses(argv: tuple[str, ...], cap: int) -> None:
    loaded = modules_of(*argv)
    assert len(loaded) <= cap, f"{len(loaded)} modules: {loaded}"
    assert [m for m in NEVER if m in loaded] == []
