"""The pre-commit hooks on a fleet: the changed files map to the portals they concern
(a base concerns every portal including it), and only those are validated."""

from __future__ import annotations

import shlex
from pathlib import Path

from ruamel.yaml import YAML

from tests.cli import env_with, orgctl
from tests.manifest.test_overlays import BASE_ROLES, portal, write

ROOT = Path(__file__).resolve().parents[2]
CURATOR = """\
apiVersion: orgctl/v1
kind: Role
metadata: {name: Curator}
spec: {privileges: [portal:user:reassignItems]}
"""
DEV_ROLE = """\
apiVersion: orgctl/v1
kind: Role
metadata: {name: Tinkerer}
spec: {privileges: [portal:user:joinGroup]}
"""


def _repository(root: Path) -> Path:
    (root / ".git").mkdir()
    return write(
        root,
        {
            "portals/base/roles.yaml": BASE_ROLES + "---\n" + CURATOR,
            "portals/prod/portal.yaml": portal("prod", ("../base",), version="11.3"),
            "portals/staging/portal.yaml": portal("staging", ("../base",), version="10.6.1"),
            "portals/dev/portal.yaml": portal("dev", (), version="11.3"),
            "portals/dev/roles.yaml": DEV_ROLE,
            "mkdocs.yml": "site_name: Docs\n",
        },
    )


def _hook(hook_id: str) -> list[str]:
    hooks = YAML(typ="safe").load((ROOT / ".pre-commit-hooks.yaml").read_text())
    hook = next(h for h in hooks if h["id"] == hook_id)
    return [*shlex.split(hook["entry"]), *hook.get("args", [])]


def _run_hook(repo: Path, *files: str, args: tuple[str, ...] = ()) -> tuple[int, str]:
    """The hook as pre-commit runs it: entry, args, then the changed files, from the
    repository's root."""
    command = [*_hook("orgctl-validate-changed"), *args, *files]
    assert command[:3] == ["orgctl", "validate", "--changed"]
    done = orgctl(*command[1:], env=env_with(), cwd=repo)
    return done.returncode, done.stdout + done.stderr


def _sections(output: str) -> list[str]:
    return [line.split(" ")[1] for line in output.splitlines() if line.startswith("=== ")]


def test_a_changed_base_validates_every_portal_including_it(tmp_path: Path) -> None:
    repo = _repository(tmp_path)
    code, output = _run_hook(repo, "portals/base/roles.yaml")
    assert code == 1, output
    assert _sections(output) == ["prod", "staging"]
    assert "portal:user:reassignItems" in output  # the 10.6.1 portal lacks it
    assert output.endswith("2 portals: 1 invalid, 1 valid\n")


def test_a_changed_portal_file_validates_that_portal_alone(tmp_path: Path) -> None:
    repo = _repository(tmp_path)
    code, output = _run_hook(repo, "portals/dev/roles.yaml", "mkdocs.yml")
    assert code == 0, output
    assert _sections(output) == ["dev"]


def test_files_no_portal_reads_validate_nothing(tmp_path: Path) -> None:
    repo = _repository(tmp_path)
    code, output = _run_hook(repo, "mkdocs.yml")
    assert code == 0, output
    assert "no portal below . is concerned by the changed files" in output


def test_a_deleted_base_file_still_concerns_its_portals(tmp_path: Path) -> None:
    repo = _repository(tmp_path)
    _code, output = _run_hook(repo, "portals/base/old.yaml")
    assert _sections(output) == ["prod", "staging"]


def test_the_root_option_names_where_the_portals_are(tmp_path: Path) -> None:
    repo = _repository(tmp_path)
    code, output = _run_hook(repo, "portals/dev/roles.yaml", args=("--root", "portals"))
    assert code == 0, output
    assert _sections(output) == ["dev"]


def test_the_whole_fleet_hook_validates_every_portal_of_the_readme_layout(
    tmp_path: Path,
) -> None:
    """The plain hook's default `args: ["."]` on the README's layout: each portal on its
    own (the issue's 8 problems: a second Portal, mkdocs.yml, one release for all)."""
    repo = _repository(tmp_path)
    (repo / "portals/base/roles.yaml").write_text(BASE_ROLES)
    command = _hook("orgctl-validate")
    done = orgctl(*command[1:], env=env_with(), cwd=repo)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.endswith("3 portals: 3 valid\n")
