"""Bases and overlays: `spec.include` on the Portal, patches of included documents, the
limits of a document to some portals or releases, and every refusal naming file:line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator
from ruamel.yaml import YAML

from reconciler.cli import cli
from reconciler.manifest import load_desired, validate
from reconciler.manifest.loader import load
from tests.manifest.conftest import REPO, run_cli

PORTAL = """\
apiVersion: orgctl/v1
kind: Portal
metadata: {{name: {name}}}
spec:
  url: https://{name}.example.com/portal/sharing/rest
  deployment: {deployment}
  version: "{version}"
  auth: {{tokenEnv: ORGCTL_TOKEN}}
  include:
{includes}"""

BASE_ROLES = """\
apiVersion: orgctl/v1
kind: Role
metadata: {name: Analyst}
spec:
  description: Views content
  privileges:
    - portal:user:joinGroup
    - portal:user:viewOrgItems
---
apiVersion: orgctl/v1
kind: Role
metadata: {name: Publisher}
spec:
  privileges: [portal:user:createItem]
"""


def portal(
    name: str = "prod",
    includes: tuple[str, ...] = ("../../base",),
    version: str = "11.3",
    deployment: str = "self-hosted",
) -> str:
    lines = "".join(f"    - {entry}\n" for entry in includes) or "    []\n"
    return PORTAL.format(name=name, version=version, deployment=deployment, includes=lines)


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository (its root holds .git) with a base of two roles."""
    (tmp_path / ".git").mkdir()
    return write(tmp_path, {"base/roles.yaml": BASE_ROLES})


def problems_of(folder: Path) -> list[str]:
    return [str(p) for p in validate(folder, {})[1]]


def line_of(file: Path, text: str) -> int:
    return next(i for i, line in enumerate(file.read_text().splitlines(), 1) if text in line)


# --- includes -------------------------------------------------------------------------------


def test_an_included_folder_adds_its_documents(repo: Path) -> None:
    folder = write(repo, {"portals/prod/portal.yaml": portal()}) / "portals/prod"
    assert problems_of(folder) == []
    desired = load_desired(folder, {})
    assert set(desired.roles) == {"Analyst", "Publisher"}
    source = desired.sources["Role/Analyst"]
    assert (source.file, source.line) == (str(repo / "base/roles.yaml"), 1)


def test_a_gate_is_judged_per_portal_naming_the_base_and_the_include(repo: Path) -> None:
    write(
        repo,
        {
            "base/reassign.yaml": (
                "apiVersion: orgctl/v1\nkind: Role\nmetadata: {name: Curator}\n"
                "spec: {privileges: [portal:user:reassignItems]}\n"
            ),
            "portals/old/portal.yaml": portal("old", version="10.6.1"),
            "portals/new/portal.yaml": portal("new", version="11.3"),
        },
    )
    assert problems_of(repo / "portals/new") == []
    (problem,) = problems_of(repo / "portals/old")
    assert problem.startswith(f'{repo}/base/reassign.yaml:4: Role "Curator": spec.privileges[0]')
    assert "11.0" in problem
    include_line = line_of(repo / "portals/old/portal.yaml", "../../base")
    assert problem.endswith(f"(included by {repo}/portals/old/portal.yaml:{include_line})")


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        ("../../../outside", "leads outside the repository"),
        ("/etc", "must be a path relative to the folder of this file"),
        ("../../nowhere", "no such folder"),
        (".", "is the portal folder itself (an include cycle)"),
        ("..", "holds the portal folder"),
        ("roles", "lies inside the portal folder"),
    ],
)
def test_a_refused_include_is_one_problem_at_its_line(repo: Path, entry: str, words: str) -> None:
    (repo.parent / "outside").mkdir(exist_ok=True)
    write(
        repo,
        {"portals/prod/portal.yaml": portal(includes=(entry,)), "portals/prod/roles/x.yaml": ""},
    )
    problems = problems_of(repo / "portals/prod")
    line = line_of(repo / "portals/prod/portal.yaml", f"- {entry}")
    assert len(problems) == 1, problems
    assert problems[0].startswith(
        f'{repo}/portals/prod/portal.yaml:{line}: Portal "prod": spec.include[0]: '
    )
    assert words in problems[0]


def test_a_folder_included_twice_or_overlapping_is_refused(repo: Path) -> None:
    write(repo, {"portals/prod/portal.yaml": portal(includes=("../../base", "../../base/"))})
    (problem,) = problems_of(repo / "portals/prod")
    assert "spec.include[1]" in problem and "included twice (first at line 10)" in problem


def test_an_include_through_a_link_out_of_the_repository_is_refused(repo: Path) -> None:
    outside = repo.parent / "elsewhere"
    write(outside, {"roles.yaml": BASE_ROLES})
    (repo / "shared").symlink_to(outside)
    write(repo, {"portals/prod/portal.yaml": portal(includes=("../../shared",))})
    (problem,) = problems_of(repo / "portals/prod")
    assert "leads outside the repository" in problem


def test_an_included_folder_may_not_hold_a_portal(repo: Path) -> None:
    write(repo, {"base/portal.yaml": portal("base", includes=())})
    write(repo, {"portals/prod/portal.yaml": portal()})
    (problem,) = problems_of(repo / "portals/prod")
    assert problem.startswith(f'{repo}/base/portal.yaml:1: Portal "base": ')
    assert "may not hold a Portal document" in problem


# --- overlays -------------------------------------------------------------------------------


def test_an_overlay_replaces_scalars_and_adds_and_removes_set_elements(repo: Path) -> None:
    overlay = (
        "apiVersion: orgctl/v1\nkind: Role\nmetadata: {name: Analyst}\nspec:\n"
        "  description: Views and shares\n"
        "  privileges:\n    add: [portal:user:shareToGroup]\n"
        "    remove: [portal:user:joinGroup]\n"
    )
    write(repo, {"portals/prod/portal.yaml": portal(), "portals/prod/roles.yaml": overlay})
    folder = repo / "portals/prod"
    assert problems_of(folder) == []
    desired = load_desired(folder, {})
    analyst = desired.roles["Analyst"]
    assert analyst.description == "Views and shares"
    assert analyst.privileges == {"portal:user:viewOrgItems", "portal:user:shareToGroup"}
    assert desired.roles["Publisher"].privileges == {"portal:user:createItem"}


def test_a_problem_in_an_overlaid_field_names_the_overlay_and_the_base(repo: Path) -> None:
    overlay = (
        "apiVersion: orgctl/v1\nkind: Role\nmetadata: {name: Analyst}\nspec:\n"
        "  privileges:\n    add: [portal:user:shareToGrop]\n"
    )
    write(repo, {"portals/prod/portal.yaml": portal(), "portals/prod/roles.yaml": overlay})
    (problem,) = problems_of(repo / "portals/prod")
    assert problem.startswith(
        f'{repo}/portals/prod/roles.yaml:6: Role "Analyst": spec.privileges[2]'
    )
    assert "did you mean 'portal:user:shareToGroup'" in problem
    assert f"base {repo}/base/roles.yaml:1" in problem
    assert f"patched by {repo}/portals/prod/roles.yaml:1" in problem


def test_members_merge_by_username(repo: Path) -> None:
    write(
        repo,
        {
            "base/members.yaml": (
                "apiVersion: orgctl/v1\nkind: Members\nmetadata: {name: staff}\nspec:\n"
                "  members:\n    alice: {role: Analyst}\n    bob: {role: org_user}\n"
            ),
            "portals/prod/portal.yaml": portal(),
            "portals/prod/members.yaml": (
                "apiVersion: orgctl/v1\nkind: Members\nmetadata: {name: staff}\nspec:\n"
                "  members:\n    bob: {role: Publisher}\n    carol: {role: org_user}\n"
            ),
        },
    )
    desired = load_desired(repo / "portals/prod", {})
    assert {u: m.role for u, m in desired.members.items()} == {
        "alice": "Analyst",
        "bob": "Publisher",
        "carol": "org_user",
    }
    assert desired.sources["Member/bob"].file == str(repo / "portals/prod/members.yaml")
    assert desired.sources["Member/alice"].file == str(repo / "base/members.yaml")


def test_two_overlays_setting_one_field_differently_conflict(repo: Path) -> None:
    def overlay(text: str) -> str:
        return (
            "apiVersion: orgctl/v1\nkind: Role\nmetadata: {name: Analyst}\n"
            f"spec:\n  description: {text}\n"
        )

    write(
        repo,
        {
            "portals/prod/portal.yaml": portal(),
            "portals/prod/a.yaml": overlay("one"),
            "portals/prod/b.yaml": overlay("two"),
        },
    )
    (problem,) = problems_of(repo / "portals/prod")
    assert problem.startswith(f'{repo}/portals/prod/b.yaml:5: Role "Analyst": spec.description')
    assert f"at {repo}/portals/prod/a.yaml:5" in problem
    assert f"base {repo}/base/roles.yaml:5" in problem


def test_two_overlays_of_different_fields_both_apply(repo: Path) -> None:
    write(
        repo,
        {
            "portals/prod/portal.yaml": portal(),
            "portals/prod/a.yaml": (
                "apiVersion: orgctl/v1\nkind: Role\nmetadata: {name: Analyst}\n"
                "spec: {description: one}\n"
            ),
            "portals/prod/b.yaml": (
                "apiVersion: orgctl/v1\nkind: Role\nmetadata: {name: Analyst}\n"
                "spec: {privileges: {remove: [portal:user:joinGroup]}}\n"
            ),
        },
    )
    desired = load_desired(repo / "portals/prod", {})
    assert desired.roles["Analyst"].description == "one"
    assert desired.roles["Analyst"].privileges == {"portal:user:viewOrgItems"}


def test_an_overlay_naming_no_base_document_suggests_the_closest(repo: Path) -> None:
    write(
        repo,
        {
            "portals/prod/portal.yaml": portal(),
            "portals/prod/roles.yaml": (
                "apiVersion: orgctl/v1\nkind: Role\nmetadata: {name: Analist, overlay: true}\n"
                "spec: {description: x}\n"
            ),
        },
    )
    (problem,) = problems_of(repo / "portals/prod")
    assert problem.startswith(f'{repo}/portals/prod/roles.yaml:3: Role "Analist": metadata.overlay')
    assert "no included folder declares Role 'Analist' (did you mean 'Analyst'?)" in problem


def test_a_set_patch_without_a_base_document_is_refused(repo: Path) -> None:
    write(
        repo,
        {
            "portals/prod/portal.yaml": portal(),
            "portals/prod/roles.yaml": (
                "apiVersion: orgctl/v1\nkind: Role\nmetadata: {name: Publishr}\n"
                "spec: {privileges: {add: [portal:user:joinGroup]}}\n"
            ),
        },
    )
    (problem,) = problems_of(repo / "portals/prod")
    assert "roles.yaml:3" in problem and "did you mean 'Publisher'?" in problem


def test_removing_what_the_base_does_not_hold_is_refused(repo: Path) -> None:
    write(
        repo,
        {
            "portals/prod/portal.yaml": portal(),
            "portals/prod/roles.yaml": (
                "apiVersion: orgctl/v1\nkind: Role\nmetadata: {name: Analyst}\n"
                "spec:\n  privileges:\n    remove: [portal:user:joinGrp]\n"
            ),
        },
    )
    (problem,) = problems_of(repo / "portals/prod")
    assert problem.startswith(
        f'{repo}/portals/prod/roles.yaml:6: Role "Analyst": spec.privileges.remove[0]: '
        "removes 'portal:user:joinGrp', which the included list does not hold"
        " (did you mean 'portal:user:joinGroup'?)"
    )
    assert f"(base {repo}/base/roles.yaml:6, included by" in problem


def test_a_base_may_not_patch(repo: Path) -> None:
    write(
        repo,
        {
            "base/more.yaml": (
                "apiVersion: orgctl/v1\nkind: Role\nmetadata: {name: Other}\n"
                "spec: {privileges: {add: [portal:user:joinGroup]}}\n"
            ),
            "portals/prod/portal.yaml": portal(),
        },
    )
    (problem,) = problems_of(repo / "portals/prod")
    assert problem.startswith(f'{repo}/base/more.yaml:4: Role "Other": spec.privileges: ')
    assert "an included document declares the whole list" in problem


def test_without_includes_a_second_declaration_is_still_a_duplicate(tmp_path: Path) -> None:
    role = "apiVersion: orgctl/v1\nkind: Role\nmetadata: {name: A}\nspec: {}\n"
    write(tmp_path, {"portal.yaml": portal(includes=()), "a.yaml": role, "b.yaml": role})
    (problem,) = problems_of(tmp_path)
    assert "role 'A' is declared twice" in problem


# --- limits ---------------------------------------------------------------------------------


def test_a_document_limited_to_other_portals_or_releases_is_left_out(repo: Path) -> None:
    write(
        repo,
        {
            "base/limited.yaml": (
                "apiVersion: orgctl/v1\nkind: Role\nmetadata: {name: ProdOnly, portals: [prod]}\n"
                "spec: {}\n---\n"
                "apiVersion: orgctl/v1\nkind: Role\n"
                "metadata: {name: Curator, releases: '>=11.0'}\n"
                "spec: {privileges: [portal:user:reassignItems]}\n"
            ),
            "portals/prod/portal.yaml": portal("prod", version="11.3"),
            "portals/dev/portal.yaml": portal("dev", version="10.6.1"),
            "portals/cloud/portal.yaml": portal(
                "cloud", deployment="hosted-cloud", version="2026-06"
            ),
        },
    )
    roles = {
        name: set(load_desired(repo / "portals" / name, {}).roles)
        for name in ("prod", "dev", "cloud")
    }
    assert roles["prod"] == {"Analyst", "Publisher", "ProdOnly", "Curator"}
    assert roles["dev"] == {"Analyst", "Publisher"}
    assert "Curator" in roles["cloud"] and "ProdOnly" not in roles["cloud"]


def test_a_bad_releases_limit_is_a_problem(repo: Path) -> None:
    write(
        repo,
        {
            "portals/prod/portal.yaml": portal(includes=()),
            "portals/prod/roles.yaml": (
                "apiVersion: orgctl/v1\nkind: Role\nmetadata: {name: A, releases: 'after 11'}\n"
                "spec: {}\n"
            ),
        },
    )
    (problem,) = problems_of(repo / "portals/prod")
    assert "roles.yaml:3" in problem and "metadata.releases" in problem and "'>=11.0'" in problem


# --- files that are not manifests -----------------------------------------------------------


def test_files_without_an_orgctl_document_are_ignored_and_listed(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "portal.yaml": portal(includes=()),
            "mkdocs.yml": "site_name: Docs\nnav: [index.md]\n",
            "k8s.yaml": (
                "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: x}\n"
            ),
            "tagged.yml": "site_name: x\nvalue: !ENV HOME\n",
            "forgot.yaml": "kind: Role\nmetadata: {name: Y}\n",
        },
    )
    loaded = load(tmp_path)
    assert sorted(Path(f).name for f in loaded.ignored) == ["k8s.yaml", "mkdocs.yml", "tagged.yml"]
    (problem,) = [str(p) for p in validate(tmp_path, {})[1]]
    assert "forgot.yaml:1" in problem and "apiVersion: required field is missing" in problem


# --- the JSON Schema describes overlays too ---------------------------------------------------


def test_the_schema_takes_set_patches_and_the_fleet_fields() -> None:
    schema = json.loads((REPO / "schemas" / "orgctl-v1.schema.json").read_text())
    validator = Draft202012Validator(schema)
    overlay = {
        "apiVersion": "orgctl/v1",
        "kind": "Role",
        "metadata": {"name": "A", "overlay": True, "portals": ["prod"], "releases": ">=11.0"},
        "spec": {
            "privileges": {"add": ["portal:user:joinGroup"], "remove": ["portal:user:createItem"]}
        },
    }
    assert list(validator.iter_errors(overlay)) == []
    wrong = {**overlay, "spec": {"privileges": {"add": [], "replace": ["portal:user:joinGroup"]}}}
    assert list(validator.iter_errors(wrong))
    portal_doc = {
        "apiVersion": "orgctl/v1",
        "kind": "Portal",
        "metadata": {"name": "p", "overlay": True},
        "spec": {
            "url": "https://x/sharing/rest",
            "deployment": "self-hosted",
            "version": "11.3",
            "auth": {"tokenEnv": "T"},
            "include": ["../base"],
        },
    }
    assert [e.message for e in validator.iter_errors(portal_doc)] != []  # no overlay Portal
    del portal_doc["metadata"]["overlay"]  # type: ignore[attr-defined]
    assert list(validator.iter_errors(portal_doc)) == []


def test_validate_verbose_names_the_skipped_files(tmp_path: Path) -> None:
    write(tmp_path, {"portal.yaml": portal(includes=()), "mkdocs.yml": "site_name: Docs\n"})
    quiet = run_cli("validate", str(tmp_path))
    assert quiet.exit_code == 0 and "mkdocs" not in quiet.output
    loud = CliRunner().invoke(cli, ["validate", str(tmp_path), "--verbose"])
    assert loud.exit_code == 0
    assert f"note: {tmp_path}/mkdocs.yml: no orgctl document" in loud.stderr


def test_every_example_fleet_document_matches_the_schema() -> None:
    schema = json.loads((REPO / "schemas" / "orgctl-v1.schema.json").read_text())
    validator = Draft202012Validator(schema)
    files = sorted((REPO / "examples" / "fleet").rglob("*.yaml"))
    assert len(files) == 8
    for file in files:
        lines = file.read_text().splitlines()
        assert lines[0] == "# yaml-language-server: $schema=../../../schemas/orgctl-v1.schema.json"
        for document in YAML(typ="safe").load_all(file.read_text()):
            assert [e.message for e in validator.iter_errors(document)] == [], file
