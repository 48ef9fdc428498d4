"""The pieces of `examples/ci/orgctl_ci.py` that need no hosting: splitting long comments,
naming saved plans, refusing a plain-http API."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

import pytest

from tests.gitops.ci_runner import CI


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("orgctl_ci", CI / "orgctl_ci.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["orgctl_ci"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


ci = _script()


def test_a_short_text_is_one_part() -> None:
    assert ci.split_markdown("## plan\nno changes\n", 1000) == ["## plan\nno changes\n"]


def test_a_long_text_is_cut_between_lines_and_fences_are_reopened() -> None:
    lines = [f"~ Role/R{i:04d}\n" for i in range(2000)]
    text = "## orgctl plan\n\n```diff\n" + "".join(lines) + "```\n\ndone\n"
    parts = ci.split_markdown(text, 4000)
    assert len(parts) > 5
    assert all(len(part) <= 4000 for part in parts)
    for part in parts:
        assert part.count("```") % 2 == 0, "every part closes the code block it opens"
    assert parts[1].startswith("```diff\n")
    joined = "".join(parts).replace("```\n```diff\n", "")
    assert joined == text


def test_saved_plan_names_hold_only_safe_characters() -> None:
    assert ci.artifact_name("field office/eu", "abc") == "orgctl-plan-field_office_eu-abc"


@pytest.mark.parametrize(
    ("url", "ok"),
    [
        ("https://api.github.com", True),
        ("http://127.0.0.1:9000/gh", True),
        ("http://localhost/api/v4", True),
        ("http://gitlab.example.com/api/v4", False),
    ],
)
def test_the_hosting_api_must_be_https_except_loopback(url: str, ok: bool) -> None:
    if ok:
        ci._check_api_url(url)
    else:
        with pytest.raises(ci.CIError, match="must be https"):
            ci._check_api_url(url)


def test_without_a_known_ci_it_says_so() -> None:
    with pytest.raises(ci.CIError, match="neither GitHub Actions"):
        ci.hosting({})


def test_orgctl_parts_are_posted_as_they_are() -> None:
    text = "<!-- orgctl part 1/2 -->\n## plan (part 1 of 2)\na\n<!-- orgctl part 2/2 -->\n## b\n"
    assert ci.comment_parts(text, 10) == ["## plan (part 1 of 2)\na\n", "## b\n"]


def test_a_report_without_parts_is_cut_to_fit() -> None:
    assert ci.comment_parts("## plan\n" + "x\n" * 50, 40) == ci.split_markdown(
        "## plan\n" + "x\n" * 50, 40
    )


def test_orgctl_gets_the_jobs_portal_credentials_alone_under_its_own_names() -> None:
    env = {
        "PATH": "/usr/bin",
        "ORGCTL_NOTIFY_URL": "https://hooks.example.com/x",
        "ORGCTL_PROD_USERNAME": "prod-admin",
        "ORGCTL_PROD_PASSWORD": "prod-apply-pw",
        "ORGCTL_PROD_USERNAME_READ": "prod-reader",
        "ORGCTL_PROD_PASSWORD_READ": "prod-read-pw",
        "ORGCTL_DEV_TOKEN_READ": "dev-read-token",
        "ORGCTL_TOKEN": "plain-token",
        "ORGCTL_TOKEN_READ": "plain-read-token",
        "GITHUB_TOKEN": "ghs-x",
        "CI_JOB_TOKEN": "job-x",
    }
    planned = ci.portal_env("prod", env, read_only=True)
    assert {k: v for k, v in planned.items() if k.startswith("ORGCTL_")} == {
        "ORGCTL_NOTIFY_URL": "https://hooks.example.com/x",
        "ORGCTL_PROD_USERNAME": "prod-reader",
        "ORGCTL_PROD_PASSWORD": "prod-read-pw",
        "ORGCTL_PROD_TOKEN": "plain-read-token",  # what a GitHub job maps in
    }
    assert "GITHUB_TOKEN" not in planned and "CI_JOB_TOKEN" not in planned
    applied = ci.portal_env("prod", env, read_only=False)
    assert applied["ORGCTL_PROD_PASSWORD"] == "prod-apply-pw"
    assert applied["ORGCTL_PROD_TOKEN"] == "plain-token"
    assert not any(k.endswith("_READ") or "DEV" in k for k in applied)


def test_a_pull_request_needs_every_trusted_origin_bound_to_a_portal() -> None:
    assert "is not set" in ci.unbound_origins({})
    plain = ci.unbound_origins({"ORGCTL_TRUSTED_ORIGINS": "prod=https://a, https://b"})
    assert "https://b without a portal name" in plain
    bound = "prod=https://a,prod=https://a:6443, dev = https://b"
    assert ci.unbound_origins({"ORGCTL_TRUSTED_ORIGINS": bound}) is None


def test_a_job_that_only_reads_never_reads_with_another_account() -> None:
    """Read-only jobs take `_READ` names alone: apply's, per portal or plain, are never a
    fallback; without a whole read-only account the job is refused, naming what to set."""
    apply = {"ORGCTL_PROD_TOKEN": "apply-token", "ORGCTL_USERNAME": "a", "ORGCTL_PASSWORD": "p"}
    with pytest.raises(ci.Refused, match="ORGCTL_PROD_TOKEN_READ, or ORGCTL_PROD_USERNAME_READ"):
        ci.read_only_env("prod", apply)
    half = {**apply, "ORGCTL_PROD_USERNAME_READ": "reader"}
    with pytest.raises(ci.Refused, match="no read-only credentials for prod"):
        ci.read_only_env("prod", half)
    whole = {**half, "ORGCTL_PASSWORD_READ": "read-pw"}  # as a GitHub job maps it in
    kept = ci.read_only_env("prod", whole)
    assert {k: v for k, v in kept.items() if k.startswith("ORGCTL_")} == {
        "ORGCTL_PROD_USERNAME": "reader",
        "ORGCTL_PROD_PASSWORD": "read-pw",
    }
