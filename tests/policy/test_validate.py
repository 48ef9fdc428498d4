"""`orgctl validate` compiles every Policy rule: one error with file:line and the column."""

from __future__ import annotations

import shutil
from pathlib import Path

from reconciler.testing import orgctl

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "hq"

POLICY = """apiVersion: orgctl/v1
kind: Policy
metadata:
  name: no-admin-at-level-1
spec:
  enforcement: mandatory
  subject: member
  rule: "{rule}"
  message: a level-1 member holds no administrative privilege
"""


def _portal(tmp_path: Path, rule: str) -> Path:
    folder = tmp_path / "hq"
    shutil.copytree(EXAMPLES, folder)
    (folder / "policies.yaml").write_text(POLICY.format(rule=rule))
    return folder


def test_a_bad_rule_is_one_error_with_file_line_and_column(tmp_path: Path) -> None:
    folder = _portal(tmp_path, "!(member.administrative && member.levl == 1)")
    result = orgctl("validate", folder, env={})
    assert result.returncode == 1
    output = result.stdout + result.stderr
    lines = [line for line in output.splitlines() if "policies.yaml" in line]
    assert len(lines) == 1
    assert f"{folder / 'policies.yaml'}:8:" in lines[0]
    assert "column 35 of the expression" in lines[0]
    assert "did you mean 'level'" in lines[0]
    assert "Traceback" not in output


def test_a_good_policy_validates(tmp_path: Path) -> None:
    folder = _portal(tmp_path, "!(member.administrative && member.level == 1)")
    result = orgctl("validate", folder, env={})
    assert result.returncode == 0, result.stdout + result.stderr


def _with_exception(tmp_path: Path, until: str) -> Path:
    folder = _portal(tmp_path, "!(member.administrative && member.level == 1)")
    policy = folder / "policies.yaml"
    exception = f"  exceptions:\n    - {{subject: Member/dave, reason: pilot, until: '{until}'}}\n"
    policy.write_text(policy.read_text() + exception)
    return folder


def test_an_expired_exception_is_a_warning(tmp_path: Path) -> None:
    result = orgctl("validate", _with_exception(tmp_path, "2020-01-01"), env={})
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "policies.yaml:11:" in output and "expired on 2020-01-01" in output, output


def test_an_until_that_is_no_time_is_an_error(tmp_path: Path) -> None:
    result = orgctl("validate", _with_exception(tmp_path, "next tuesday"), env={})
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "policies.yaml:11:" in output and "neither RFC 3339 nor a date" in output, output
    assert "Traceback" not in output


def test_a_message_naming_a_field_the_subject_lacks_is_an_error(tmp_path: Path) -> None:
    folder = _portal(tmp_path, "!(member.administrative && member.level == 1)")
    policies = folder / "policies.yaml"
    text = policies.read_text().replace(
        "message: a level-1 member holds no administrative privilege",
        "message: '{usernme} at level {level} holds an administrative privilege'",
    )
    policies.write_text(text)
    result = orgctl("validate", folder, env={})
    assert result.returncode == 1
    lines = result.stdout.splitlines() + result.stderr.splitlines()
    found = [line for line in lines if "{usernme}" in line]
    assert len(found) == 1, lines
    assert "did you mean 'username'" in found[0], found
    assert "{level}" not in found[0]
