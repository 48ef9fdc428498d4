"""Renderers against golden files (set ORGCTL_UPDATE_GOLDEN=1 to rewrite them)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from reconciler.errors import UserError
from reconciler.plan.model import Action, Change, Plan, PortalRef
from reconciler.plan.planner import build_plan
from reconciler.plan.render import Mode
from reconciler.plan.render.json import plan_from_json, render_json
from reconciler.plan.render.markdown import render_markdown
from reconciler.plan.render.text import render_text
from reconciler.state import Member, Role
from tests.plan.test_plan_rules import busy_hq
from tests.plan.world import NOW, hq_desired, hq_live

GOLDEN = Path(__file__).parent / "golden"


def golden(name: str, actual: str) -> None:
    path = GOLDEN / name
    if os.environ.get("ORGCTL_UPDATE_GOLDEN"):
        path.write_text(actual, encoding="utf-8")
    assert actual == path.read_text(encoding="utf-8")


def busy_plan() -> Plan:
    desired = busy_hq()
    desired.members["bob"] = Member("bob", None, 1)  # an error: no custom role
    desired.members["dave"] = Member("dave", "Zeta")
    # A level-1 member's role with a privilege beyond the nine: a warning.
    desired.roles["Zeta"] = Role(
        "Zeta", "z", frozenset({"portal:user:joinGroup", "portal:user:createItem"})
    )
    return build_plan(desired, hq_live(), now=NOW)


def test_json_matches_the_contract_byte_for_byte() -> None:
    text = render_json(busy_plan())
    golden("busy.plan.json", text)
    assert text == render_json(busy_plan())
    doc = json.loads(text)
    assert list(doc) == [
        "formatVersion",
        "portal",
        "changes",
        "calls",
        "errors",
        "warnings",
        "summary",
        "liveFingerprint",
        "liveDigests",
    ]
    assert doc["summary"] == {"create": 1, "update": 6, "delete": 1, "calls": 9}


def test_json_round_trips() -> None:
    plan = busy_plan()
    again = plan_from_json(render_json(plan))
    assert again == plan
    assert [c.operation for c in again.calls] == [c.operation for c in plan.calls]
    assert again.calls[1].produces == "id"


def test_saved_plan_remembers_its_manifests() -> None:
    plan = busy_plan()
    assert "manifests" not in json.loads(render_json(plan)), "only a saved plan names them"
    saved = plan.with_manifests("portals/prod")
    again = plan_from_json(render_json(saved))
    assert again.manifests == "portals/prod"
    assert again == saved


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "not JSON"),
        ("[]", "not an orgctl plan"),
        ('{"formatVersion": 2}', "plan formatVersion 2 is not supported"),
        ('{"formatVersion": 1, "portal": {}}', "malformed plan"),
    ],
)
def test_a_broken_plan_file_is_a_user_error(text: str, message: str) -> None:
    with pytest.raises(UserError, match=message):
        plan_from_json(text, "plan.json")


@pytest.mark.parametrize("role_id", ["..", "r1%2F..%2F..", "%2E%2E"])
def test_a_plan_file_whose_path_argument_is_no_id_is_refused(role_id: str) -> None:
    """Edited, or planned from a hostile answer: `roles/../update` would be the
    organization's own Update."""
    doc = json.loads(render_json(busy_plan()))
    call = next(c for c in doc["calls"] if c["operation"] == "updateRole")
    call["url"] = call["url"].replace("/roles/r0000000000001/", f"/roles/{role_id}/")
    with pytest.raises(UserError, match=r"plan.json: malformed plan .*where an id belongs"):
        plan_from_json(json.dumps(doc), "plan.json")


def test_text_is_terraform_like() -> None:
    golden("busy.plan.txt", render_text(busy_plan()))


def test_text_has_no_colour_unless_asked() -> None:
    plain = render_text(busy_plan())
    coloured = render_text(busy_plan(), color=True)
    assert "\x1b[" not in plain
    assert "\x1b[" in coloured


def test_empty_plan_says_so() -> None:
    plan = build_plan(hq_desired(), hq_live(), now=NOW)
    assert render_text(plan) == "No changes. The portal matches the manifests.\n"
    assert render_text(plan, "drift").splitlines() == [
        "No drift. The portal matches the manifests.",
        # Information, not drift: roles the manifests leave alone.
        "Information: 2 custom roles are not declared: Analyst, Legacy Viewer",
    ]


def test_drift_shows_changes_only() -> None:
    plan = busy_plan()
    golden("busy.drift.txt", render_text(plan, "drift"))
    assert "Calls" not in render_text(plan, "drift")
    assert json.loads(render_json(plan, "drift"))["calls"] == []
    assert "<summary>Calls" not in render_markdown(plan, "drift")


def test_markdown_comment() -> None:
    golden("busy.plan.md", render_markdown(busy_plan()))


def test_markdown_is_truncated_with_a_note() -> None:
    live = hq_live()
    desired = hq_desired()
    for n in range(3000):
        user = f"user{n:05d}-with-a-rather-long-name-to-fill-the-comment"
        live.members[user] = Member(user, "org_user", 2)
        desired.members[user] = Member(user, "Analyst")
    plan = build_plan(desired, live, now=NOW)
    text = render_markdown(plan)
    assert len(text) <= 65_000
    note = text.strip().splitlines()[-1]
    assert note.startswith("> **Truncated to fit one comment:** left out ")
    shown = text.count("\n@@ ~ Member/")
    left_out = int(note.split("left out ")[1].split(" of ")[0].replace(",", ""))
    assert shown + left_out == 3000
    assert f"(Member: {left_out:,} to update) and all 3,000 calls" in note
    golden("truncated.tail.md", text[-600:])


def test_markdown_caps_a_long_error_list() -> None:
    desired = hq_desired()
    for n in range(2000):
        desired.members[f"ghost{n:05d}-with-a-long-name"] = Member(f"ghost{n:05d}", "org_user")
    plan = build_plan(desired, hq_live(), now=NOW)
    text = render_markdown(plan)
    assert len(plan.errors) == 2000
    assert len(text) <= 65_000
    assert "- … and " in text and " more" in text


def test_people_read_times_as_iso_while_json_keeps_milliseconds() -> None:
    run = Change(
        "TaskRun/frank/t1/run1",
        Action.DELETE,
        {"created": 1790812800000, "status": "succeeded"},
        None,
    )
    schedule = Change(
        "Workspace/c1/ws1",
        Action.UPDATE,
        {"schedule": {"startTime": 1767225600000, "interval": 24}},
        {"schedule": {"startTime": 1796090400000, "interval": 12}},
    )
    plan = Plan(PortalRef("https://p/sharing/rest", "pid", "self-hosted", "11.3"), (run, schedule))
    text = render_text(plan)
    assert 'created: "2026-10-01T00:00:00Z"' in text
    assert '"startTime": "2026-01-01T00:00:00Z"' in text
    assert '"startTime": "2026-12-01T02:00:00Z"' in text
    assert "2026-10-01T00:00:00Z" in render_markdown(plan)
    assert '"created": 1790812800000' in render_json(plan)


HOSTILE_NAME = "Evil\n```\n# injected \x1b[31mred\u202eexe.txt"
HOSTILE_PLAN = Plan(
    PortalRef("https://portal.example.com/sharing/rest", "p1", "self-hosted", "11.3"),
    changes=(
        Change(
            f"Role/{HOSTILE_NAME}",
            Action.CREATE,
            None,
            {"description": "a\x1b[2Jb\u202ec`````d", "privileges": ["portal:user:joinGroup"]},
        ),
    ),
)


@pytest.mark.parametrize("mode", ["plan", "drift"])
def test_control_and_bidi_characters_are_shown_as_escapes(mode: Mode) -> None:
    for shown in (render_text(HOSTILE_PLAN, mode), render_markdown(HOSTILE_PLAN, mode)):
        assert "\x1b" not in shown and "\u202e" not in shown, shown
        assert "Evil\\n```\\n# injected \\x1b[31mred\\u202eexe.txt" in shown, shown


def test_a_name_cannot_close_the_markdown_code_block() -> None:
    shown = render_markdown(HOSTILE_PLAN, "plan")
    fences = [line for line in shown.splitlines() if line.lstrip().startswith("```")]
    # Only the renderer's own fences open and close blocks: pairs, each longer than the
    # five backticks of the description.
    assert fences and len(fences) % 2 == 0, fences
    assert all(line.startswith("``````") for line in fences), fences
    assert "# injected" not in [line.strip() for line in shown.splitlines()]


def test_json_keeps_the_exact_text() -> None:
    document = json.loads(render_json(HOSTILE_PLAN))
    assert document["changes"][0]["address"] == f"Role/{HOSTILE_NAME}"
