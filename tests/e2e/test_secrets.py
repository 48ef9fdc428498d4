"""A password given to orgctl never shows up in its output, plan files or journals, and no
printed URL carries a token."""

from __future__ import annotations

import subprocess

import pytest

from .conftest import Serve
from .harness import MANIFESTS, output_of

pytestmark = pytest.mark.e2e

SECRETS = MANIFESTS / "secrets"
PASSWORD = "Vq8-xyzzy-Plugh-4417"  # the admin's password in states/secrets.yaml


def test_password_and_token_never_appear(serve: Serve) -> None:
    world = serve("secrets")
    plan_file = world.workdir / "plan.json"
    journal = world.workdir / "journal.jsonl"
    runs: list[tuple[list[str | object], int]] = [
        (["plan", SECRETS, "-o", plan_file], 0),
        (["plan", SECRETS, "--format", "json"], 0),
        (["plan", SECRETS, "--format", "markdown"], 0),
        (["apply", SECRETS, "--dry-run"], 0),
        (["drift", SECRETS, "--format", "json"], 2),
        (["apply", SECRETS, "--auto-approve", "--journal", journal], 0),
        (["drift", SECRETS], 0),
    ]
    results: list[subprocess.CompletedProcess[str]] = []
    for args, expected in runs:
        result = world.orgctl(*map(str, args), portal="hq", password=PASSWORD)
        assert result.returncode == expected, output_of(result)
        results.append(result)
    # A refused sign-in must not echo the password it was given either.
    wrong = world.orgctl("plan", SECRETS, portal="hq", password=PASSWORD + "-wrong")
    assert wrong.returncode == 1, output_of(wrong)
    results.append(wrong)

    written = {"plan file": plan_file.read_text(), "journal": journal.read_text()}
    assert written["journal"].strip(), "the journal is empty"
    shown = {
        f"run {n} {s}": getattr(r, s) for n, r in enumerate(results) for s in ("stdout", "stderr")
    }
    for where, text in {**shown, **written}.items():
        assert PASSWORD not in text, f"password in {where}"
        assert "token=" not in text.lower(), f"a token parameter in {where}:\n{text}"
