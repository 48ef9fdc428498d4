"""examples/api/plan_and_apply.py, run as its own process against `orgctl serve`."""

from __future__ import annotations

import subprocess
import sys

from orgctl_service.testing.service import ADMIN, Service
from reconciler.testing import env_with

from .conftest import EXAMPLES, ROOT

SCRIPT = ROOT / "examples" / "api" / "plan_and_apply.py"


def run_script(service: Service, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    url = f"{service.url}/hq/sharing/rest"
    command = [sys.executable, str(SCRIPT), str(EXAMPLES / "hq"), "--portal-url", url, *args]
    credentials = {"ORGCTL_USERNAME": ADMIN[0], "ORGCTL_PASSWORD": ADMIN[1], **env}
    environment = env_with(**credentials)
    return subprocess.run(
        command, capture_output=True, text=True, env=environment, cwd=ROOT, timeout=120
    )


def test_the_example_plans_applies_and_finds_nothing_left(service: Service) -> None:
    admin = f"--admin-url={service.url}/hq/admin"
    planned = run_script(service, admin)
    assert planned.returncode == 2, planned.stdout + planned.stderr
    assert "Role/Field Analyst" in planned.stdout

    applied = run_script(service, admin, "--apply")
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert "Converged." in applied.stdout

    again = run_script(service, admin)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "No changes" in again.stdout


def test_the_example_says_what_is_wrong_in_one_line(service: Service) -> None:
    refused = run_script(service, ORGCTL_PASSWORD="wrong-password")
    assert refused.returncode == 1
    assert refused.stderr.startswith("Error: ") and "Traceback" not in refused.stderr
    assert "wrong-password" not in refused.stdout + refused.stderr
