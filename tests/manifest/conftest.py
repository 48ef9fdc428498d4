from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from reconciler.cli import cli

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"
EXAMPLES = REPO / "examples"


def run_cli(*args: str, env: dict[str, str] | None = None) -> Result:
    # The URL overrides of the developer's shell must not leak into the tests, nor CI's
    # `CI=true`, which adds the ORGCTL_TRUSTED_ORIGINS warning to every live command.
    base: dict[str, str | None] = {"ORGCTL_PORTAL_URL": "", "ORGCTL_ADMIN_URL": "", "CI": None}
    return CliRunner().invoke(cli, list(args), env={**base, **(env or {})})


@pytest.fixture
def invalid() -> Path:
    return FIXTURES / "invalid"


def members_document(entries: str, name: str = "staff") -> str:
    """A Members document whose `spec.members` holds `entries` (lines indented 4)."""
    return (
        f"apiVersion: orgctl/v1\nkind: Members\nmetadata: {{name: {name}}}\nspec:\n"
        f"  members:\n{entries}"
    )
