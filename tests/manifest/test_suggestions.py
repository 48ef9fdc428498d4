"""One "did you mean" for every misspelt name: roles, fields, kinds and commands."""

from __future__ import annotations

from reconciler.manifest.suggestions import closest, did_you_mean
from tests.manifest.conftest import run_cli


def test_the_closest_name_in_any_case_or_spelling() -> None:
    roles = ["org_admin", "org_publisher", "org_user", "Field Analyst"]
    assert closest("org_publishr", roles) == "org_publisher"
    assert closest("Feld Analyst", roles) == "Field Analyst"
    assert closest("FIELD ANALYST", roles) == "Field Analyst"  # the same name in another case
    assert closest("Regional Planner", roles) is None
    assert did_you_mean("plna", ["plan", "apply"]) == " (did you mean 'plan'?)"
    assert did_you_mean("zzz", ["plan", "apply"]) == ""


def test_a_misspelt_command_is_refused_with_the_one_meant() -> None:
    result = run_cli("plna", "examples/hq")
    assert result.exit_code != 0
    assert "No such command 'plna' (did you mean 'plan'?)." in result.output
    result = run_cli("valdate")
    assert "(did you mean 'validate'?)" in result.output
    result = run_cli("frobnicate")
    assert "No such command 'frobnicate'." in result.output
