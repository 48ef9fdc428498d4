"""How `apply` sends, or refuses to: dry run, no TTY, a terminal's answer, saved plans,
stale saved plans."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from .harness import EXAMPLES, World, output_of, plan_json, run_orgctl_on_a_terminal

pytestmark = pytest.mark.e2e

HQ = EXAMPLES / "hq"


def test_dry_run_prints_every_call_in_order_and_sends_nothing(demo: World) -> None:
    api = demo.api("hq")
    before = api.snapshot()
    plan = plan_json(demo.orgctl("plan", HQ, "--format", "json", portal="hq"))
    assert plan["calls"], plan

    result = demo.orgctl("apply", HQ, "--dry-run", portal="hq")
    assert result.returncode == 0, output_of(result)
    position = 0
    for call in plan["calls"]:
        found = result.stdout.find(call["url"], position)
        assert found >= 0, f"call {call['seq']} missing or out of order:\n{output_of(result)}"
        line = result.stdout[
            result.stdout.rfind("\n", 0, found) + 1 : result.stdout.find("\n", found)
        ]
        assert call["method"] in line, line
        printed_after = result.stdout[found:]
        for name, value in call["params"].items():
            assert name in printed_after and value in printed_after, (call, output_of(result))
        position = found + len(call["url"])
    assert api.snapshot() == before


def test_apply_without_tty_or_auto_approve_refuses_and_sends_nothing(demo: World) -> None:
    api = demo.api("hq")
    before = api.snapshot()
    result = demo.orgctl("apply", HQ, portal="hq")
    assert result.returncode == 1, output_of(result)
    assert "--auto-approve" in result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert api.snapshot() == before


def test_apply_on_a_terminal_names_the_portal_and_a_delete_needs_its_name(demo: World) -> None:
    api = demo.api("hq")
    before = api.snapshot()
    args = ["apply", str(HQ)]
    code, output = run_orgctl_on_a_terminal(args, demo.env("hq"), "no", demo.workdir)
    assert code == 1, output
    assert "Traceback" not in output
    assert api.snapshot() == before
    # The question says where and what: the portal URL, the counts and the deletes.
    assert f"Apply to {demo.service.url}/hq/sharing/rest: " in output, output
    assert re.search(r"\d+ to create, \d+ to update, 1 to delete \(\d+ calls\)", output), output
    assert "This deletes 1: Role/Legacy Viewer." in output, output
    assert "Type the portal's name (hq) to confirm" in output, output

    # A plan that deletes is not confirmed by a reflexive yes.
    code, output = run_orgctl_on_a_terminal(args, demo.env("hq"), "yes", demo.workdir)
    assert code == 1 and "name was not typed" in output, output
    assert api.snapshot() == before

    code, output = run_orgctl_on_a_terminal(args, demo.env("hq"), "hq", demo.workdir)
    assert code == 0, output
    assert api.members()["alice"]["roleId"] == api.roles()["Field Analyst"]["id"]
    after = demo.orgctl("plan", HQ, "--detailed-exitcode", portal="hq")
    assert after.returncode == 0, output_of(after)


def test_apply_without_deletes_on_a_terminal_asks_yes_or_no(demo: World) -> None:
    args = ["apply", str(HQ), "--target", "Role/Field Analyst"]
    code, output = run_orgctl_on_a_terminal(args, demo.env("hq"), "y", demo.workdir)
    assert code == 0, output
    assert "to delete" in output and "This deletes" not in output
    assert "Apply these calls? [y/N]" in output, output
    assert "Field Analyst" in demo.api("hq").roles()


def test_saved_plan_applies_and_converges(demo: World) -> None:
    saved = demo.workdir / "plan.json"
    planned = demo.orgctl("plan", HQ, "-o", saved, portal="hq")
    assert planned.returncode == 0, output_of(planned)
    document = json.loads(saved.read_text())
    assert document["formatVersion"] == 1 and document["calls"], document

    applied = demo.orgctl("apply", "--plan", saved, "--auto-approve", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    after = demo.orgctl("plan", HQ, "--detailed-exitcode", portal="hq")
    assert after.returncode == 0, output_of(after)
    api = demo.api("hq")
    assert api.members()["alice"]["roleId"] == api.roles()["Field Analyst"]["id"]


def test_stale_saved_plan_is_refused_naming_what_changed(demo: World) -> None:
    saved = demo.workdir / "plan.json"
    planned = demo.orgctl("plan", HQ, "-o", saved, portal="hq")
    assert planned.returncode == 0, output_of(planned)
    assert "Role/Analyst" in [c["address"] for c in json.loads(saved.read_text())["changes"]]

    api = demo.api("hq")
    api.set_privileges("Analyst", ["portal:user:joinGroup"])  # by hand, after the plan
    before = api.snapshot()

    result = demo.orgctl("apply", "--plan", saved, "--auto-approve", portal="hq")
    assert result.returncode == 1, output_of(result)
    shown = result.stdout + result.stderr
    assert "stale plan" in shown
    assert "Role/Analyst" in shown
    assert "Traceback" not in shown
    assert api.snapshot() == before


def test_a_targeted_saved_plan_applies_and_verifies_within_its_targets(demo: World) -> None:
    saved = demo.workdir / "plan.json"
    planned = demo.orgctl("plan", HQ, "-o", saved, "--target", "Member/alice", portal="hq")
    assert planned.returncode == 0, output_of(planned)
    assert json.loads(saved.read_text())["targets"] == ["Member/alice"]

    # The scope belongs to the saved plan: flags that would change it are refused.
    for flag in (["--target", "Member/bob"], ["--allow-deletes"]):
        refused = demo.orgctl("apply", "--plan", saved, "--auto-approve", *flag, portal="hq")
        assert refused.returncode == 1, output_of(refused)
        assert "plan -o" in refused.stderr, output_of(refused)

    applied = demo.orgctl("apply", "--plan", saved, "--auto-approve", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    assert "Converged" in applied.stdout, output_of(applied)
    rest = demo.orgctl("plan", HQ, "--detailed-exitcode", portal="hq")
    assert rest.returncode == 2, output_of(rest)  # the rest of the example is still to do


def test_a_saved_plan_whose_manifests_changed_since_is_refused(demo: World) -> None:
    manifests = demo.workdir / "hq"
    shutil.copytree(HQ, manifests)
    saved = demo.workdir / "plan.json"
    assert demo.orgctl("plan", manifests, "-o", saved, portal="hq").returncode == 0
    roles = manifests / "roles.yaml"
    old = "description: Creates content and shares it with groups"
    assert old in roles.read_text()
    roles.write_text(roles.read_text().replace(old, "description: Edited after the plan"))
    api = demo.api("hq")
    before = api.snapshot()

    result = demo.orgctl("apply", "--plan", saved, manifests, "--auto-approve", portal="hq")
    assert result.returncode == 1, output_of(result)
    assert "stale plan: the manifests changed" in result.stderr, output_of(result)
    assert api.snapshot() == before


def test_a_saved_plan_never_sends_calls_outside_the_portal(demo: World) -> None:
    saved = demo.workdir / "plan.json"
    assert demo.orgctl("plan", HQ, "-o", saved, portal="hq").returncode == 0
    document = json.loads(saved.read_text())
    # Same path, another host: it would receive the token with the call.
    url = document["calls"][0]["url"]
    document["calls"][0]["url"] = "https://elsewhere.example.com/" + url.split("/", 3)[3]
    saved.write_text(json.dumps(document))
    api = demo.api("hq")
    before = api.snapshot()

    result = demo.orgctl("apply", "--plan", saved, "--auto-approve", portal="hq")
    assert result.returncode == 1, output_of(result)
    assert "outside the portal's URLs" in result.stderr, output_of(result)
    assert api.snapshot() == before


def test_apply_in_a_log_tells_each_resource_and_folds_the_calls_done(demo: World) -> None:
    applied = demo.orgctl("apply", HQ, "--auto-approve", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    # No terminal: a line per resource as its last call finishes, on stderr.
    told = re.findall(r"^(\S+(?: \S+)*): done, (\d+) calls? in \d+\.\ds$", applied.stderr, re.M)
    assert ("Role/Field Analyst", "2") in told, applied.stderr
    calls = int(re.search(r"Apply: (\d+) done", applied.stdout).group(1))  # type: ignore[union-attr]
    assert sum(int(n) for _, n in told) == calls
    # The table lists no call that went well, only how many.
    assert f"\n{calls} done (--verbose lists each).\n" in applied.stdout, applied.stdout
    assert not re.search(r"^\s+\d+  done ", applied.stdout, re.M), applied.stdout


def test_apply_verbose_lists_every_call(demo: World) -> None:
    applied = demo.orgctl("apply", HQ, "--auto-approve", "--verbose", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    rows = re.findall(r"^\s+\d+  done ", applied.stdout, re.M)
    calls = int(re.search(r"Apply: (\d+) done", applied.stdout).group(1))  # type: ignore[union-attr]
    assert len(rows) == calls > 1, applied.stdout
