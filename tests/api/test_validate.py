"""`api.validate`: every offline problem at once, returned rather than raised, with no
HTTP stack loaded, as `orgctl validate` (a thin layer over it) reports them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from reconciler.api import validate

from .conftest import EXAMPLES

BROKEN = """\
apiVersion: orgctl/v1
kind: Role
metadata: {name: Analyst}
spec:
  description: d
  privileges: [portal:user:notAPrivilege]
"""


def test_a_valid_set_has_no_problems() -> None:
    found = validate(EXAMPLES / "hq")
    assert found.valid and found.problems == () and found.path == EXAMPLES / "hq"


def test_each_problem_is_returned_with_its_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "portal.yaml").write_text((EXAMPLES / "hq" / "portal.yaml").read_text())
    (tmp_path / "roles.yaml").write_text(BROKEN)
    (tmp_path / "notes.yaml").write_text("just: a file\n")
    found = validate(tmp_path)
    assert not found.valid
    assert [(Path(p.file).name, p.line) for p in found.problems] == [("roles.yaml", 6)]
    assert "portal:user:notAPrivilege" in str(found.problems[0])
    assert [Path(f).name for f in found.skipped] == ["notes.yaml"]


def test_validating_loads_no_network_stack() -> None:
    code = (
        "import sys\n"
        "from reconciler.api import validate\n"
        f"assert validate({str(EXAMPLES / 'hq')!r}).valid\n"
        "print(sorted(m for m in sys.modules if m.startswith(('httpx', 'reconciler.live'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
