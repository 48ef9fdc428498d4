"""Manifests arrive in pull requests: one document cannot make validate print a line for
each of 200,000 problems. Each sort is listed a few times, and the rest counted."""

from __future__ import annotations

from pathlib import Path

from reconciler.manifest import limits
from tests.manifest.conftest import run_cli
from tests.manifest.test_loader_and_rules import portal, write

ROLE = """\
apiVersion: orgctl/v1
kind: Role
metadata: {name: Flood}
spec:
  privileges: [portal:user:joinGroup]
"""


def test_unknown_keys_are_listed_a_few_times_then_counted(tmp_path: Path) -> None:
    keys = "".join(f"  k{i}: 1\n" for i in range(2_000))
    write(tmp_path, {"portal.yaml": portal(), "roles.yaml": ROLE + keys})
    result = run_cli("validate", str(tmp_path))
    assert result.exit_code == 1
    lines = result.output.splitlines()
    listed = [line for line in lines if "unknown field" in line]
    assert len(listed) == limits.MAX_PROBLEMS_OF_A_SORT
    # Placed at the first key left out: line 6 holds k0, so k10 is at line 16.
    assert f'{tmp_path / "roles.yaml"}:16: Role "Flood": … and 1,990 more unknown keys' in lines
    assert len(lines) == limits.MAX_PROBLEMS_OF_A_SORT + 2
    assert lines[-1] == "2,000 problems found"  # those counted too


def test_each_sort_is_capped_on_its_own(tmp_path: Path) -> None:
    keys = "".join(f"  k{i}: 1\n" for i in range(20))
    role = ROLE.replace("{name: Flood}", "{name: Flood, colour: red}") + keys
    write(tmp_path, {"portal.yaml": portal(), "roles.yaml": role})
    output = run_cli("validate", str(tmp_path)).output
    assert "metadata.colour: unknown field 'colour'" in output
    assert "… and 11 more unknown keys" in output  # 21 in all, 10 listed


def test_a_document_lists_at_most_its_limit_of_problems_of_any_sort(tmp_path: Path) -> None:
    """The rules after the models (a level on hosted-cloud, here) are capped too."""
    count = limits.MAX_PROBLEMS_PER_DOCUMENT + 50
    members = "".join(f"    user{i:04}: {{level: 2}}\n" for i in range(count))
    write(
        tmp_path,
        {
            "portal.yaml": portal(deployment="hosted-cloud", version="2025-06"),
            "members.yaml": "apiVersion: orgctl/v1\nkind: Members\nmetadata: {name: all}\n"
            "spec:\n  members:\n" + members,
        },
    )
    result = run_cli("validate", str(tmp_path))
    lines = result.output.splitlines()
    assert len([line for line in lines if ".level:" in line]) == limits.MAX_PROBLEMS_PER_DOCUMENT
    assert any(line.endswith('Members "all": … and 50 more problems') for line in lines), lines
    assert lines[-1] == f"{count} problems found"
