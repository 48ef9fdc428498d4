"""`orgctl policy list PATH` shows each policy of the folder with its CEL."""

from __future__ import annotations

import json
from pathlib import Path

from reconciler.testing import orgctl

from .test_validate import _portal, _with_exception


def test_lists_each_policy_with_its_cel_and_where_it_is_declared(tmp_path: Path) -> None:
    folder = _with_exception(tmp_path, "2999-01-01")
    result = orgctl("policy", "list", folder, env={})
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "no-admin-at-level-1 (mandatory, on each member)" in out, out
    assert f"declared at {folder / 'policies.yaml'}:1" in out, out
    assert "rule:  !(member.administrative && member.level == 1)" in out, out
    assert "except Member/dave until 2999-01-01: pilot" in out, out


def test_json_gives_the_same_policies(tmp_path: Path) -> None:
    folder = _portal(tmp_path, "!(member.administrative && member.level == 1)")
    result = orgctl("policy", "list", folder, "--format", "json", env={})
    assert result.returncode == 0, result.stdout + result.stderr
    [policy] = [p for p in json.loads(result.stdout)["policies"] if not p["builtIn"]]
    assert (policy["name"], policy["subject"], policy["rule"]) == (
        "no-admin-at-level-1",
        "member",
        "!(member.administrative && member.level == 1)",
    )


def test_a_bad_rule_lists_nothing_and_says_where(tmp_path: Path) -> None:
    folder = _portal(tmp_path, "member.levl == 1")
    result = orgctl("policy", "list", folder, env={})
    assert result.returncode == 1
    assert "policies.yaml:8:" in result.stderr and "nothing listed" in result.stderr


def test_lists_the_built_in_policies_with_their_cel_without_a_path() -> None:
    result = orgctl("policy", "list", env={})
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "default-administrator (mandatory, on each portal)" in out, out
    assert "built in: judged on every plan" in out, out
    assert "rule:  portal.administratorsBefore == 0 || portal.administrators > 0" in out, out
    assert "message: this plan leaves the portal without a default administrator" in out, out


def test_with_a_path_the_built_ins_come_first_then_the_folder_s_own(tmp_path: Path) -> None:
    folder = _portal(tmp_path, "!(member.administrative && member.level == 1)")
    result = orgctl("policy", "list", folder, "--format", "json", env={})
    assert result.returncode == 0, result.stdout + result.stderr
    shown = [(p["name"], p["builtIn"]) for p in json.loads(result.stdout)["policies"]]
    assert shown == [("default-administrator", True), ("no-admin-at-level-1", False)]
    text = orgctl("policy", "list", folder, env={}).stdout
    assert text.index("default-administrator") < text.index("no-admin-at-level-1"), text
