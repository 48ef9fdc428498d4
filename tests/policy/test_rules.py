"""A policy's CEL is checked offline: the column inside the expression, and a did-you-mean
for variable and field names."""

from __future__ import annotations

import subprocess
import sys

import pytest

from reconciler.policy.rules import check


def test_a_rule_that_cannot_parse_names_its_column() -> None:
    problem = check("member.level == ", "member")
    assert problem is not None
    assert problem.column == 17
    assert "Syntax error" in problem.message


def test_a_misspelt_field_is_named_with_its_column_and_the_field_meant() -> None:
    problem = check("!(member.administrative && member.levl == 1)", "member")
    assert problem is not None
    assert problem.column == 35
    assert "did you mean 'level'" in problem.message


def test_a_variable_of_another_subject_is_refused() -> None:
    problem = check("size(role.holders) < 5", "member")
    assert problem is not None
    assert problem.column == 6
    assert "unknown variable 'role'" in problem.message


def test_a_wrongly_typed_operand_is_caught_before_any_plan() -> None:
    problem = check('member.level + "a" == 1', "member")
    assert problem is not None
    assert "type-check" in problem.message


@pytest.mark.parametrize(
    ("expression", "subject"),
    [
        (
            'member.privileges.exists(p, p.startsWith("portal:admin:")) && member.level == 1',
            "member",
        ),
        ('member.lastLogin == null || member.lastLogin > now - duration("4320h")', "member"),
        ('"member.x" in member.privileges', "member"),
        ("size(role.holders) <= 5", "role"),
        ("portal.administrators >= 2", "portal"),
        ('change.action != "delete"', "change"),
    ],
)
def test_good_rules_pass(expression: str, subject: str) -> None:
    assert check(expression, subject) is None


def test_a_rule_compiles_without_the_cel_packages_command_line() -> None:
    """The binding's package imports its REPL (typer, prompt_toolkit) at load: 0.13 s of
    a first plan judging a policy, for a command line orgctl never calls."""
    probe = (
        "import sys\n"
        "from reconciler.policy.rules import compile_rule\n"
        "assert compile_rule('1 + 1 == 2').variables() == []\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('prompt_toolkit', 'typer')))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
