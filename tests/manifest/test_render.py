"""`orgctl render`: a portal's manifest set after includes and overlays, as plan uses it."""

from __future__ import annotations

from pathlib import Path

from reconciler.manifest import load_desired
from tests.manifest.conftest import EXAMPLES, run_cli
from tests.manifest.test_overlays import BASE_ROLES, portal, write

OVERLAY = """\
apiVersion: orgctl/v1
kind: Role
metadata: {name: Analyst}
spec:
  description: "Views: and shares #1"
  privileges:
    add: [portal:user:shareToGroup]
    remove: [portal:user:joinGroup]
"""
LIMITED = """\
apiVersion: orgctl/v1
kind: Role
metadata: {name: DevOnly, portals: [dev]}
spec: {}
"""


def _fleet(root: Path) -> Path:
    (root / ".git").mkdir()
    write(
        root,
        {
            "base/roles.yaml": BASE_ROLES,
            "base/limited.yaml": LIMITED,
            "portals/prod/portal.yaml": portal(),
            "portals/prod/roles.yaml": OVERLAY,
        },
    )
    return root / "portals" / "prod"


def test_render_prints_a_manifest_set_that_plans_the_same(tmp_path: Path) -> None:
    folder = _fleet(tmp_path)
    result = run_cli("render", str(folder))
    assert result.exit_code == 0, result.output
    assert "include" not in result.output.replace("# includes", "")
    assert "DevOnly" not in result.output
    assert f"  # {tmp_path}" not in result.output  # origins only with --show-origin
    rendered = tmp_path / "rendered" / "all.yaml"
    rendered.parent.mkdir()
    rendered.write_text(result.output)
    assert run_cli("validate", str(rendered)).exit_code == 0
    again, original = load_desired(rendered, {}), load_desired(folder, {})
    assert again.roles == original.roles
    assert again.portal == original.portal
    assert original.roles["Analyst"].description == "Views: and shares #1"


def test_show_origin_names_the_file_and_line_of_each_field(tmp_path: Path) -> None:
    folder = _fleet(tmp_path)
    result = run_cli("render", str(folder), "--show-origin")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    overlay, base = f"{folder}/roles.yaml", f"{tmp_path}/base/roles.yaml"
    assert f'  description: "Views: and shares #1"  # {overlay}:5' in lines
    assert f"    - portal:user:viewOrgItems  # {base}:8" in lines
    assert f"    - portal:user:shareToGroup  # {overlay}:7" in lines
    assert not any("portal:user:joinGroup" in line for line in lines)
    assert f"# includes {tmp_path}/base (at {folder}/portal.yaml:10)" in lines


def test_render_of_invalid_manifests_prints_the_problems_and_nothing_else(
    tmp_path: Path,
) -> None:
    folder = _fleet(tmp_path)
    (folder / "roles.yaml").write_text(OVERLAY.replace("joinGroup]", "joinGrop]"))
    result = run_cli("render", str(folder))
    assert result.exit_code == 1
    assert "did you mean 'portal:user:joinGroup'" in result.stderr
    assert result.stdout == ""


def test_render_of_a_plain_folder_keeps_every_value() -> None:
    result = run_cli("render", str(EXAMPLES / "field"))
    assert result.exit_code == 0, result.output
    assert 'version: "11.3"' in result.output
