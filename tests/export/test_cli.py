"""`orgctl export` without a portal: credentials and the output folder are checked first."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from reconciler.errors import UserError
from reconciler.live.credentials import plain_auth
from reconciler.state import Auth
from tests.cli import env_with, orgctl

# Nothing listens here: a test that reached the network would fail with "unreachable".
UNUSED_URL = "http://127.0.0.1:9/hq/sharing/rest"


def run_export(tmp_path: Path, out: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return orgctl(
        "export", "--portal-url", UNUSED_URL, "-o", out, env=env_with(**env), cwd=tmp_path
    )


def test_the_token_wins_when_both_kinds_are_set() -> None:
    env = {"ORGCTL_TOKEN": "t", "ORGCTL_USERNAME": "u", "ORGCTL_PASSWORD": "p"}
    assert plain_auth(env) == Auth(tokenEnv="ORGCTL_TOKEN")


def test_username_and_password_name_both_variables() -> None:
    env = {"ORGCTL_USERNAME": "u", "ORGCTL_PASSWORD": "p"}
    assert plain_auth(env) == Auth(usernameEnv="ORGCTL_USERNAME", passwordEnv="ORGCTL_PASSWORD")


@pytest.mark.parametrize("env", [{}, {"ORGCTL_USERNAME": "u"}, {"ORGCTL_TOKEN": ""}])
def test_missing_credentials_name_the_variables(env: dict[str, str]) -> None:
    with pytest.raises(UserError) as caught:
        plain_auth(env)
    for name in ("ORGCTL_TOKEN", "ORGCTL_USERNAME", "ORGCTL_PASSWORD"):
        assert name in str(caught.value)


def test_cli_without_credentials_exits_1_with_one_clear_line(tmp_path: Path) -> None:
    result = run_export(tmp_path, tmp_path / "out")
    assert result.returncode == 1
    assert "ORGCTL_TOKEN" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "out").exists()


def test_cli_refuses_a_non_empty_folder_before_reading_the_portal(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.yaml").write_text("mine\n")
    result = run_export(tmp_path, out, ORGCTL_USERNAME="admin", ORGCTL_PASSWORD="s3cret-pw")
    assert result.returncode == 1
    assert str(out) in result.stderr and "--force" in result.stderr
    assert "unreachable" not in result.stderr
    assert "s3cret-pw" not in result.stdout + result.stderr
    assert (out / "keep.yaml").read_text() == "mine\n"


@pytest.mark.parametrize(
    ("option", "url", "found"),
    [
        ("--portal-url", f"{UNUSED_URL}?x=1", "a query"),
        ("--portal-url", f"{UNUSED_URL}#top", "a fragment"),
        ("--portal-url", "http://admin:s3cret-pw@127.0.0.1:9/hq/sharing/rest", "user info"),
        ("--admin-url", "http://127.0.0.1:9/hq/admin?token=s3cret-tok", "a query"),
    ],
    ids=["query", "fragment", "user-info", "admin-query"],
)
def test_cli_refuses_a_url_that_is_not_a_plain_address_before_signing_in(
    tmp_path: Path, option: str, url: str, found: str
) -> None:
    """A query once made generateToken answer "without a token"; the URL is told instead."""
    out = tmp_path / "out"
    urls = {"--portal-url": UNUSED_URL, option: url}
    result = orgctl(
        "export",
        *(part for pair in urls.items() for part in pair),
        "-o",
        out,
        env=env_with(ORGCTL_USERNAME="admin", ORGCTL_PASSWORD="s3cret-pw"),
        cwd=tmp_path,
    )
    assert result.returncode == 1, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "plain address" in lines[0] and f"has {found}" in lines[0], result.stderr
    assert "unreachable" not in result.stderr and "Traceback" not in result.stderr
    assert "s3cret" not in result.stdout + result.stderr
    assert not out.exists()
