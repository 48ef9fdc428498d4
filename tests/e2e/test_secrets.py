"""A password or token given to orgctl never shows up in its output, plan files or
journals, and no printed URL carries a token."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from .harness import MANIFESTS, Serve, output_of

pytestmark = pytest.mark.e2e

SECRETS = MANIFESTS / "secrets"
PASSWORD = "Vq8-xyzzy-Plugh-4417"  # the admin's password in states/secrets.yaml


def runs(directory: Path, plan_file: Path, journal: Path) -> list[tuple[list[str], int]]:
    """Every command that reads, plans, writes or reports, with its expected exit code."""
    commands: list[tuple[list[str | Path], int]] = [
        (["plan", directory, "-o", plan_file], 0),
        (["plan", directory, "--format", "json"], 0),
        (["plan", directory, "--format", "markdown"], 0),
        (["apply", directory, "--dry-run"], 0),
        (["drift", directory, "--format", "json"], 2),
        (["apply", directory, "--auto-approve", "--journal", journal], 0),
        (["drift", directory], 0),
    ]
    return [([str(a) for a in args], code) for args, code in commands]


def assert_nowhere(secret: str, texts: dict[str, str]) -> None:
    for where, text in texts.items():
        assert secret not in text, f"secret in {where}"
        assert "token=" not in text.lower(), f"a token parameter in {where}:\n{text}"


def test_password_never_appears_and_no_url_carries_a_token(serve: Serve) -> None:
    world = serve("secrets")
    plan_file = world.workdir / "plan.json"
    journal = world.workdir / "journal.jsonl"
    results: list[subprocess.CompletedProcess[str]] = []
    for args, expected in runs(SECRETS, plan_file, journal):
        result = world.orgctl_process(*args, portal="hq", password=PASSWORD)
        assert result.returncode == expected, output_of(result)
        results.append(result)
    # A refused sign-in must not echo the password it was given, even with --debug.
    for debug in ([], ["--debug"]):
        wrong = world.orgctl_process(*debug, "plan", SECRETS, portal="hq", password=PASSWORD + "-x")
        assert wrong.returncode == 1, output_of(wrong)
        results.append(wrong)

    written = {"plan file": plan_file.read_text(), "journal": journal.read_text()}
    assert written["journal"].strip(), "the journal is empty"
    assert_nowhere(PASSWORD, {**shown(results), **written})


def shown(results: list[subprocess.CompletedProcess[str]]) -> dict[str, str]:
    return {
        f"run {n} {s}": getattr(r, s) for n, r in enumerate(results) for s in ("stdout", "stderr")
    }


def test_token_from_the_environment_never_appears(serve: Serve) -> None:
    world = serve("secrets")
    token = world.api("hq", password=PASSWORD).token
    env = world.env("hq", password=PASSWORD)
    del env["ORGCTL_USERNAME"], env["ORGCTL_PASSWORD"]
    env["ORGCTL_TOKEN"] = token
    directory = MANIFESTS / "secrets-token"
    plan_file = world.workdir / "plan.json"
    journal = world.workdir / "journal.jsonl"
    results = []
    for args, expected in runs(directory, plan_file, journal):
        result = world.orgctl_process(*args, portal="hq", env=env)
        assert result.returncode == expected, output_of(result)
        results.append(result)
    refused_env = {**env, "ORGCTL_TOKEN": token + "x"}
    for debug in ([], ["--debug"]):  # a token the service refuses is not echoed either
        refused = world.orgctl_process(*debug, "plan", directory, portal="hq", env=refused_env)
        assert refused.returncode == 1, output_of(refused)
        results.append(refused)
    written = {"plan file": plan_file.read_text(), "journal": journal.read_text()}
    assert_nowhere(token, {**shown(results), **written})
