"""Loader and rules over small manifest sets written to tmp_path."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.kinds.collaboration import Collaboration
from reconciler.manifest import validate
from tests.manifest.conftest import run_cli

PORTAL = """\
apiVersion: orgctl/v1
kind: Portal
metadata: {{name: p}}
spec:
  url: {url}
  deployment: {deployment}
  version: "{version}"
  auth: {auth}
"""


def portal(
    url: str = "https://gis.example.com/portal/sharing/rest",
    deployment: str = "self-hosted",
    version: str = "10.6.1",
    auth: str = "{tokenEnv: ORGCTL_TOKEN}",
) -> str:
    return PORTAL.format(url=url, deployment=deployment, version=version, auth=auth)


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def messages(root: Path, environ: dict[str, str] | None = None) -> list[str]:
    _documents, problems = validate(root, environ or {})
    return [str(p) for p in problems]


def test_every_problem_of_every_file_is_reported_at_once_sorted(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "portal.yaml": portal(),
            "b/roles.yaml": (
                "apiVersion: orgctl/v1\nkind: Role\nmetadata: {name: A}\n"
                "spec:\n  privileges: [portal:user:nope]\n  colour: red\n"
            ),
            "a/members.yaml": (
                "apiVersion: orgctl/v1\nkind: Members\nmetadata: {name: m}\nspec:\n"
                "  members:\n    zoe: {level: 7}\n"
                "---\nkind: Mystery\n"
            ),
            "a/more.yaml": (
                "apiVersion: orgctl/v1\nkind: Members\nmetadata: {name: n}\nspec:\n"
                "  members:\n    yan: {level: 1, role: org_admin}\n"
            ),
            "c/broken.yml": "apiVersion: orgctl/v1\nkind: [\n",
        },
    )
    found = messages(tmp_path)
    located = [line.split(": ")[0] for line in found]
    assert located == [
        f"{tmp_path}/a/members.yaml:6",
        f"{tmp_path}/a/members.yaml:8",
        f"{tmp_path}/a/more.yaml:6",
        f"{tmp_path}/b/roles.yaml:6",
        f"{tmp_path}/c/broken.yml:3",
    ]
    assert "unknown kind 'Mystery'" in found[1]
    assert "level 1 needs a custom role" in found[2]
    assert "unknown field 'colour'" in found[3]
    # the role document was refused for its shape, so its privileges are not checked yet
    assert not any("portal:user:nope" in line for line in found)


def test_a_valid_document_before_a_syntax_error_is_still_checked(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "portal.yaml": portal(),
            "roles.yaml": (
                "apiVersion: orgctl/v1\nkind: Role\nmetadata: {name: A}\n"
                "spec: {privileges: [portal:user:joinGrop]}\n---\nkind: {\n"
            ),
        },
    )
    found = messages(tmp_path)
    assert any("roles.yaml:4:" in line and "joinGroup" in line for line in found)
    assert any("roles.yaml:7: YAML" in line for line in found)


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080/hq/sharing/rest",
        "http://127.9.9.9/sharing/rest",
        "http://localhost/sharing/rest",
        "http://[::1]:9000/sharing/rest",
        "https://gis.example.com/portal/sharing/rest",
    ],
)
def test_https_or_loopback_urls_are_accepted(tmp_path: Path, url: str) -> None:
    write(tmp_path, {"portal.yaml": portal(url=url)})
    assert messages(tmp_path) == []


@pytest.mark.parametrize(
    "url", ["http://10.0.0.1/sharing/rest", "ftp://gis.example.com/x", "gis.example.com"]
)
def test_other_urls_are_refused(tmp_path: Path, url: str) -> None:
    write(tmp_path, {"portal.yaml": portal(url=url)})
    assert any("spec.url: must be an https URL" in line for line in messages(tmp_path))


def test_url_override_is_validated_instead_of_the_manifest_value(tmp_path: Path) -> None:
    write(tmp_path, {"portal.yaml": portal(url="http://gis.example.com/sharing/rest")})
    loopback = {"ORGCTL_PORTAL_URL": "http://127.0.0.1:41234/hq/sharing/rest"}
    assert messages(tmp_path, loopback) == []
    remote = {"ORGCTL_PORTAL_URL": "http://gis.example.net/sharing/rest"}
    assert any("(from ORGCTL_PORTAL_URL)" in line for line in messages(tmp_path, remote))


@pytest.mark.parametrize(
    ("url", "found"),
    [
        ("https://gis.example.com/portal/sharing/rest?x=1", "a query"),
        ("https://gis.example.com/portal/sharing/rest?", "a query"),
        ("https://gis.example.com/portal/sharing/rest#top", "a fragment"),
        ("https://admin:pw-in-url-5K@gis.example.com/portal/sharing/rest", "user info"),
        ("http://127.0.0.1:8080/hq/sharing/rest?token=tok-in-url-5K", "a query"),
    ],
)
def test_a_url_with_user_info_a_query_or_a_fragment_is_refused_unshown(
    tmp_path: Path, url: str, found: str
) -> None:
    write(tmp_path, {"portal.yaml": portal(url=f'"{url}"')})
    problems = messages(tmp_path)
    assert len(problems) == 1, problems
    assert "spec.url: must be a plain address" in problems[0], problems
    assert f"has {found}" in problems[0], problems
    assert "in-url-5K" not in problems[0] and "x=1" not in problems[0]


def test_an_admin_url_with_a_query_is_refused_also_from_the_environment(tmp_path: Path) -> None:
    admin = "https://gis.example.com/portal/admin"
    text = portal().replace("  deployment:", f"  adminUrl: {admin}\n  deployment:")
    write(tmp_path, {"portal.yaml": text})
    assert messages(tmp_path) == []
    override = {"ORGCTL_ADMIN_URL": "http://127.0.0.1:41234/hq/admin?f=json"}
    problems = messages(tmp_path, override)
    assert len(problems) == 1, problems
    assert "spec.adminUrl: must be a plain address" in problems[0], problems
    assert "has a query" in problems[0] and "(from ORGCTL_ADMIN_URL)" in problems[0]


@pytest.mark.parametrize(
    "auth",
    ["{}", "{usernameEnv: ORGCTL_USERNAME}", "{tokenEnv: T, usernameEnv: U, passwordEnv: P}"],
)
def test_auth_needs_a_token_or_a_username_and_password(tmp_path: Path, auth: str) -> None:
    write(tmp_path, {"portal.yaml": portal(auth=auth)})
    assert any("give either tokenEnv" in line for line in messages(tmp_path))


def test_level_one_with_a_declared_custom_role_is_valid(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "portal.yaml": portal(),
            "m.yaml": (
                "apiVersion: orgctl/v1\nkind: Members\nmetadata: {name: m}\n"
                "spec: {members: {alice: {level: 1, role: Viewer}}}\n"
            ),
        },
    )
    assert messages(tmp_path) == []


def test_extra_privileges_are_accepted(tmp_path: Path) -> None:
    text = portal() + "  extraPrivileges: [portal:user:runNotebookTools]\n"
    role = (
        "apiVersion: orgctl/v1\nkind: Role\nmetadata: {name: A}\n"
        "spec: {privileges: [portal:user:runNotebookTools]}\n"
    )
    write(tmp_path, {"portal.yaml": text, "r.yaml": role})
    assert messages(tmp_path) == []
    write(tmp_path, {"portal.yaml": portal()})
    assert any("unknown privilege" in line for line in messages(tmp_path))


def test_max_deletes_must_not_be_negative(tmp_path: Path) -> None:
    write(tmp_path, {"portal.yaml": portal() + "  safety: {maxDeletes: -1}\n"})
    assert any("spec.safety.maxDeletes" in line for line in messages(tmp_path))


def test_empty_folder_is_invalid(tmp_path: Path) -> None:
    result = run_cli("validate", str(tmp_path))
    assert result.exit_code == 1
    assert "no *.yaml or *.yml files found" in result.output


def test_a_single_file_can_be_validated(tmp_path: Path) -> None:
    write(tmp_path, {"portal.yaml": portal()})
    result = run_cli("validate", str(tmp_path / "portal.yaml"))
    assert result.exit_code == 0, result.output


def test_hidden_folders_are_not_manifests(tmp_path: Path) -> None:
    write(tmp_path, {"portal.yaml": portal(), ".github/workflows/ci.yml": "on: push\n"})
    assert messages(tmp_path) == []


@pytest.mark.parametrize(
    ("written", "millis"),
    [
        ("2026-12-01T02:00:00Z", 1_796_090_400_000),
        ("2026-12-01T03:00:00+01:00", 1_796_090_400_000),
        ("'2026-12-01T02:00:00'", 1_796_090_400_000),
        ("2026-12-01", 1_796_083_200_000),
        ("1796090400000", 1_796_090_400_000),
    ],
)
def test_start_time_forms_become_unix_milliseconds(
    tmp_path: Path, written: str, millis: int
) -> None:
    write(
        tmp_path,
        {
            "portal.yaml": portal(version="11.3"),
            "c.yaml": (
                "apiVersion: orgctl/v1\nkind: Collaboration\nmetadata: {name: C, id: c1}\n"
                f"spec: {{workspaces: {{ws1: {{schedule: {{startTime: {written}}}}}}}}}\n"
            ),
        },
    )
    documents, problems = validate(tmp_path, {})
    assert problems == []
    collaboration = next(d.model for d in documents if d.kind == "Collaboration")
    assert isinstance(collaboration, Collaboration)
    schedule = collaboration.spec.workspaces["ws1"].schedule
    assert schedule is not None and schedule.startTime == millis


def test_a_document_without_kind_says_so(tmp_path: Path) -> None:
    write(tmp_path, {"portal.yaml": portal(), "x.yaml": "apiVersion: orgctl/v1\n"})
    assert any("x.yaml:1: kind: required field is missing" in line for line in messages(tmp_path))


def test_a_broken_portal_file_is_not_also_reported_missing(tmp_path: Path) -> None:
    write(tmp_path, {"portal.yaml": portal() + "  safety: {maxDeletes: 1\n"})
    found = messages(tmp_path)
    assert len(found) == 1 and "portal.yaml" in found[0] and "YAML" in found[0]
