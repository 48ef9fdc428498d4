"""`orgctl test`: kind: Test documents, each run against its own `orgctl serve` started
and stopped by the command; the output reads as pytest's, and --junit writes JUnit XML."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.cli import env_with, orgctl, output_of

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_TESTS = ROOT / "examples" / "tests"
EXAMPLE_PORTAL = ROOT / "examples" / "policies"


def _example_scenario(name: str, rest: str) -> str:
    """A Test document on the examples' state and portal folder; `rest` ends its spec."""
    return f"""\
apiVersion: orgctl/v1
kind: Test
metadata:
  name: {name}
spec:
  state: {EXAMPLE_TESTS / "state.yaml"}
  manifests: {EXAMPLE_PORTAL}
{rest}"""


# A state written inline, with the examples' portal; a case that expects the wrong count
# of changes, and one whose plan errors it does not list.
FAILING = f"""\
apiVersion: orgctl/v1
kind: Test
metadata:
  name: wrong-count
spec:
  state:
    portals:
      - id: 00000000000000aa
        urlKey: policies
        name: Policies
        deployment: self-hosted
        version: "11.3"
        users:
          - {{username: admin, password: admin-pass, role: org_admin}}
          - {{username: sam, password: sam-pass, role: User Manager}}
        roles:
          - {{id: r00000000000a2, name: User Manager, privileges: [portal:admin:changeUserRoles]}}
  manifests: {EXAMPLE_PORTAL}
  as: admin
  expect:
    changes: 5
---
""" + _example_scenario(
    "unlisted-error",
    """\
  patches:
    - apiVersion: orgctl/v1
      kind: Role
      metadata: {name: User Manager}
      spec:
        privileges: {add: [portal:admin:manageRoles]}
  expect:
    policies: {violated: [roles-separation-of-duties]}
""",
)


@pytest.mark.e2e
def test_the_example_tests_pass_each_against_its_own_service(tmp_path: Path) -> None:
    junit = tmp_path / "junit.xml"
    ran = orgctl("test", EXAMPLE_TESTS, "--junit", junit, env=env_with(), cwd=ROOT)
    assert ran.returncode == 0, output_of(ran)
    assert ran.stdout.rstrip().splitlines()[-1].startswith("4 passed in ")
    for name in ("clean-plan", "separation-of-duties-violated", "converges"):
        assert f" {name} PASSED" in ran.stdout, output_of(ran)
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures")) == ("4", "0")
    assert suite.find("testcase/failure") is None


@pytest.mark.e2e
def test_a_failing_case_fails_the_command_with_the_difference_shown(tmp_path: Path) -> None:
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "failing.yaml").write_text(FAILING)
    junit = tmp_path / "junit.xml"
    ran = orgctl("test", tests, "--junit", junit, env=env_with(), cwd=tmp_path)
    assert ran.returncode == 1, output_of(ran)
    out = ran.stdout
    assert "wrong-count FAILED" in out and "unlisted-error FAILED" in out, output_of(ran)
    # The difference, expected against got; and the state's missing members are errors
    # the case does not list.
    assert (
        "  changes: expected 5, got 3 (Role/Auditor, Role/Role Editor, Role/User Manager)\n" in out
    ), output_of(ran)
    assert "errors: unexpected plan error Member/rita: no such member on the portal" in out
    # A plan error the document does not list fails it, though its other expectation holds.
    assert "errors: unexpected plan error Member/sam: policy roles-separation-of-duties" in out
    assert "policies.violated" not in out, output_of(ran)
    assert out.rstrip().splitlines()[-1].startswith("2 failed in "), output_of(ran)
    failures = ET.parse(junit).getroot().findall("testsuite/testcase/failure")
    assert len(failures) == 2
    assert failures[0].get("message", "").startswith("changes: expected 5, got ")


def test_bad_test_documents_are_validate_style_errors_naming_file_and_line(
    tmp_path: Path,
) -> None:
    (tmp_path / "bad.yaml").write_text(
        f"""\
apiVersion: orgctl/v1
kind: Test
metadata:
  name: typo
spec:
  state: missing-state.yaml
  manifests: {EXAMPLE_PORTAL}
  expect:
    chnges: 1
---
apiVersion: orgctl/v1
kind: Tset
metadata:
  name: other
"""
    )
    ran = orgctl("test", tmp_path, env=env_with(), cwd=tmp_path)
    assert ran.returncode == 1, output_of(ran)
    bad = tmp_path / "bad.yaml"
    assert f'{bad}:9: Test "typo": spec.expect.chnges: unknown field' in ran.stderr, output_of(ran)
    assert f"{bad}:12: Tset \"other\": kind: unknown kind 'Tset'" in ran.stderr, output_of(ran)
    assert "did you mean 'Test'?" in ran.stderr
    assert "problems found: no test run" in ran.stderr
    assert "Traceback" not in ran.stderr


def test_a_missing_state_file_names_the_line_that_names_it(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(
        f"""\
apiVersion: orgctl/v1
kind: Test
metadata:
  name: nowhere
spec:
  state: missing-state.yaml
  manifests: {EXAMPLE_PORTAL}
  expect: {{changes: 0}}
"""
    )
    ran = orgctl("test", tmp_path, env=env_with(), cwd=tmp_path)
    assert ran.returncode == 1, output_of(ran)
    assert f"{tmp_path / 't.yaml'}:6: " in ran.stderr, output_of(ran)
    assert "no state file" in ran.stderr


def test_no_test_document_is_an_error(tmp_path: Path) -> None:
    ran = orgctl("test", tmp_path, env=env_with(), cwd=tmp_path)
    assert ran.returncode == 1, output_of(ran)
    assert "no kind: Test document found" in ran.stderr


def test_a_test_document_inside_a_portal_folder_is_named_by_validate(tmp_path: Path) -> None:
    folder = tmp_path / "portal"
    folder.mkdir()
    for file in EXAMPLE_PORTAL.glob("*.yaml"):
        (folder / file.name).write_text(file.read_text())
    (folder / "tests").mkdir()
    (folder / "tests" / "t.yaml").write_text(
        "apiVersion: orgctl/v1\nkind: Test\nmetadata: {name: t}\nspec: {}\n"
    )
    ran = orgctl("validate", folder, env=env_with(), cwd=tmp_path)
    assert ran.returncode == 1, output_of(ran)
    assert "t.yaml:2: " in ran.stdout + ran.stderr, output_of(ran)
    assert "`orgctl test` runs it; keep it in a folder beside the portal folder" in (
        ran.stdout + ran.stderr
    )


def test_a_scenario_that_cannot_run_as_written_fails_with_the_reason(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(
        _example_scenario("nobody-plans", "  as: nobdy\n  expect: {errors: []}\n")
    )
    ran = orgctl("test", tmp_path, env=env_with(), cwd=tmp_path)
    assert ran.returncode == 1, output_of(ran)
    assert "nobody-plans FAILED" in ran.stdout, output_of(ran)
    assert "spec.as: the state's portal has no member 'nobdy'" in ran.stdout
    assert ran.stdout.rstrip().splitlines()[-1].startswith("1 failed in "), output_of(ran)


def test_a_patch_the_models_refuse_is_named_at_its_line_in_the_test_document(
    tmp_path: Path,
) -> None:
    test = tmp_path / "t.yaml"
    test.write_text(
        _example_scenario(
            "misspelt-patch",
            """\
  patches:
    - apiVersion: orgctl/v1
      kind: Role
      metadata: {name: Auditor}
      spec:
        privilegs: [portal:admin:viewUsers]
  expect: {errors: []}
""",
        )
    )
    ran = orgctl("test", tmp_path, env=env_with(), cwd=tmp_path)
    assert ran.returncode == 1, output_of(ran)
    assert "misspelt-patch FAILED" in ran.stdout, output_of(ran)
    assert f"the patches do not apply: {test}:13: " in ran.stdout, output_of(ran)
    assert "unknown field 'privilegs'" in ran.stdout, output_of(ran)


def test_a_state_the_service_refuses_fails_the_test_with_what_it_said(tmp_path: Path) -> None:
    test = tmp_path / "t.yaml"
    test.write_text(
        f"""\
apiVersion: orgctl/v1
kind: Test
metadata:
  name: state-without-id
spec:
  state:
    portals:
      - urlKey: policies
        users: [{{username: admin, password: admin-pass, role: org_admin}}]
  manifests: {EXAMPLE_PORTAL}
  expect: {{errors: []}}
"""
    )
    ran = orgctl("test", tmp_path, env=env_with(), cwd=tmp_path)
    assert ran.returncode == 1, output_of(ran)
    assert "Traceback" not in ran.stdout + ran.stderr, output_of(ran)
    assert (
        f"orgctl serve did not start: Error: spec.state of {test}:1: invalid state:"
        " portal 'policies': missing 'id'" in ran.stdout
    ), output_of(ran)
