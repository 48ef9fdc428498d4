"""`orgctl access` against `orgctl serve` (README: orgctl access): who holds which
privileges, the findings an access review starts from, the --fail-on gate, CSV and
Markdown that a role name cannot subvert, and a fleet. The truth each test compares with
is worked out from the state file the service was seeded with, not from orgctl."""

from __future__ import annotations

import csv
import io
import json
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from .harness import (
    DEMO_HQ_ADMIN,
    DEMO_HQ_ROLES,
    DEMO_STATE,
    EXAMPLES,
    Serve,
    World,
    demo_state_with,
    output_of,
    plan_json,
)

pytestmark = pytest.mark.e2e

HQ = EXAMPLES / "hq"
FLEET = EXAMPLES / "fleet"
FLEET_PORTALS = {"fleet-hq": "hq", "fleet-field": "field", "fleet-cloud": "cloud"}

# hq of the demo state, plus: a custom role holding administrative privileges (olga
# uses them at level 2, lena has them disabled at level 1), a disabled administrator,
# one whose last sign-in is 304 days before the state's clock (2026-11-01), one who never
# signed in, and one who signed in 10 days ago.
REVIEWED_USERS = (
    "      - {username: olga, password: olga-pass, role: Ops Admin, level: 2,"
    " lastLogin: 2026-10-20T00:00:00Z}\n"
    "      - {username: lena, password: lena-pass, role: Ops Admin, level: 1,"
    " lastLogin: 2026-10-30T00:00:00Z}\n"
    "      - {username: dora, password: dora-pass, role: org_admin, level: 2, disabled: true,"
    " lastLogin: 2026-10-31T00:00:00Z}\n"
    "      - {username: sam, password: sam-pass, role: org_admin, level: 2,"
    " lastLogin: 2026-01-01T00:00:00Z}\n"
    "      - {username: nina, password: nina-pass, role: org_admin, level: 2}\n"
    "      - {username: rita, password: rita-pass, role: org_admin, level: 2,"
    " lastLogin: 2026-10-22T00:00:00Z}\n"
)
REVIEWED_ROLES = (
    "      - id: r0000000000009\n"
    "        name: Ops Admin\n"
    "        privileges: [portal:user:joinGroup, portal:admin:viewUsers,"
    " portal:admin:deleteUsers]\n"
)


def reviewed_state(directory: Path) -> Path:
    return demo_state_with(
        directory, {DEMO_HQ_ADMIN: REVIEWED_USERS, DEMO_HQ_ROLES: REVIEWED_ROLES}
    )


def access_json(result: Any) -> dict[str, Any]:
    assert result.returncode == 0, output_of(result)
    return plan_json(result)


def admin_holders_in_state(state: Path) -> dict[str, bool]:
    """From the state file alone: each hq member whose role holds an administrative
    privilege (`portal:admin:*`), and whether its level 1 disables them. org_admin holds
    every privilege, org_publisher and org_user no administrative one (spec: built-in
    roles); a custom role holds what the state lists."""
    portal = YAML(typ="safe").load(state.read_text())["portals"][0]
    custom = {r["name"]: r["privileges"] for r in portal["roles"]}
    found: dict[str, bool] = {}
    for user in portal["users"]:
        privileges = custom.get(user["role"], [])
        if user["role"] == "org_admin" or any(fnmatchcase(p, "portal:admin:*") for p in privileges):
            found[user["username"]] = user.get("level") == 1
    return found


def test_admin_privileges_as_json_list_exactly_their_holders_in_the_demo(demo: World) -> None:
    report = access_json(
        demo.orgctl("access", HQ, "--privilege", "portal:admin:*", "--format", "json", portal="hq")
    )
    truth = admin_holders_in_state(DEMO_STATE)
    assert [m["username"] for m in report["members"]] == sorted(truth) == ["admin"]
    assert report["privilegeFilter"] == ["portal:admin:*"]
    assert all(p["name"].startswith("portal:admin:") for p in report["privileges"])
    assert all(
        p.startswith("portal:admin:") for m in report["members"] for p in m["disabledByLevel"]
    )
    assert all(
        set(p["roles"][0]) == {"name", "holders", "disabledByLevel"} for p in report["privileges"]
    )


def test_admin_privileges_list_custom_role_and_level_one_holders(
    serve: Serve, tmp_path: Path
) -> None:
    state = reviewed_state(tmp_path)
    world = serve(state)
    report = access_json(
        world.orgctl("access", HQ, "--privilege", "portal:admin:*", "--format", "json", portal="hq")
    )
    truth = admin_holders_in_state(state)
    members = {m["username"]: m for m in report["members"]}
    assert sorted(members) == sorted(truth)
    assert {"olga", "lena", "dora", "sam", "nina", "rita", "admin"} == set(truth)
    for username, disabled in truth.items():
        assert bool(members[username]["disabledByLevel"]) == disabled
    assert members["olga"]["role"] == "Ops Admin" and members["olga"]["roleType"] == "custom"
    ops = next(r for r in report["roles"] if r["name"] == "Ops Admin")
    admin_of_ops = [p for p in ops["privileges"] if p.startswith("portal:admin:")]
    assert members["lena"]["disabledByLevel"] == admin_of_ops and len(admin_of_ops) == 2
    assert members["olga"]["disabledByLevel"] == []
    delete_users = next(p for p in report["privileges"] if p["name"] == "portal:admin:deleteUsers")
    through = {r["name"]: (r["holders"], r["disabledByLevel"]) for r in delete_users["roles"]}
    assert through["Ops Admin"] == (2, 1)  # olga, and lena at level 1
    assert through["org_admin"][1] == 0 and through["org_admin"][0] >= 1  # sam among them


def test_who_can_delete_users_asked_by_a_holder_of_view_users(serve: Serve, tmp_path: Path) -> None:
    world = serve(reviewed_state(tmp_path))
    # olga is no administrator: portal:admin:viewUsers, through her custom role, is enough.
    done = world.orgctl(
        "access",
        HQ,
        "--privilege",
        "portal:admin:deleteUsers",
        portal="hq",
        username="olga",
        password="olga-pass",
    )
    assert done.returncode == 0, output_of(done)
    row = next(line for line in done.stdout.splitlines() if "portal:admin:deleteUsers  " in line)
    assert "Ops Admin (2, 1 disabled by level)" in row and "org_admin (5)" in row, row
    assert "carol" not in done.stdout.split("Members:")[1]  # a publisher cannot


def test_every_finding_of_a_reviewed_portal(serve: Serve, tmp_path: Path) -> None:
    world = serve(reviewed_state(tmp_path))
    report = access_json(world.orgctl("access", HQ, "--format", "json", portal="hq"))
    found = [(f["severity"], f["kind"], f["subject"]) for f in report["findings"]]
    assert found == [
        ("warning", "admin-custom-role", "Member/olga"),
        ("warning", "admin-disabled", "Member/dora"),
        ("warning", "admin-stale", "Member/nina"),
        ("warning", "admin-stale", "Member/sam"),
        # Every member assigned the built-in Administrator role is a default administrator.
        ("info", "default-admin", "Member/admin"),
        ("info", "default-admin", "Member/dora"),
        ("info", "default-admin", "Member/nina"),
        ("info", "default-admin", "Member/rita"),
        ("info", "default-admin", "Member/sam"),
        ("info", "level-one-disabled", "Member/erin"),
        ("info", "level-one-disabled", "Member/lena"),
        ("info", "role-unheld", "Role/Legacy Viewer"),
    ]
    by_subject = {(f["kind"], f["subject"]): f for f in report["findings"]}
    assert "never signed in" in by_subject["admin-stale", "Member/nina"]["message"]
    assert by_subject["admin-stale", "Member/sam"]["message"] == (
        "sam last signed in on 2026-01-01, 304 days ago (stale after 90), and holds 30"
        " administrative privileges"
    )
    assert by_subject["admin-custom-role", "Member/olga"]["privileges"] == [
        "portal:admin:deleteUsers",
        "portal:admin:viewUsers",
    ]
    assert by_subject["level-one-disabled", "Member/lena"]["privileges"] == [
        "portal:admin:deleteUsers",
        "portal:admin:viewUsers",
    ]
    members = {m["username"]: m for m in report["members"]}
    assert members["dora"]["disabled"] is True and members["sam"]["disabled"] is False
    assert members["sam"]["lastLogin"] == "2026-01-01T00:00:00Z"
    assert members["nina"]["lastLogin"] is None
    # The report's own sign-in is recorded, on the service clock: admin is not stale.
    assert members["admin"]["lastLogin"] == report["generatedAt"] == "2026-11-01T00:00:00Z"

    text = world.orgctl("access", HQ, "--stale-days", "400", portal="hq")
    assert text.returncode == 0, output_of(text)
    findings = text.stdout.split("Roles:")[0]
    assert "nina has never signed in" in findings and "sam last signed in" not in findings


def test_fail_on_makes_the_report_a_gate(serve: Serve, demo: World, tmp_path: Path) -> None:
    reviewed = serve(reviewed_state(tmp_path))
    stale = reviewed.orgctl("access", HQ, "--fail-on", "admin-stale", portal="hq")
    assert stale.returncode == 2, output_of(stale)
    assert "admin-stale" in stale.stdout
    # The demo has none of these: the same gate passes.
    clean = demo.orgctl(
        "access", HQ, "--fail-on", "admin-stale", "--fail-on", "admin-custom-role", portal="hq"
    )
    assert clean.returncode == 0, output_of(clean)
    # A filter that leaves the stale administrators' privileges out leaves the gate open.
    filtered = reviewed.orgctl(
        "access", HQ, "--fail-on", "admin-stale", "--privilege", "portal:user:*", portal="hq"
    )
    assert filtered.returncode == 0, output_of(filtered)
    refused = demo.orgctl(
        "access", HQ, "--fail-on", "admin-stale", portal="hq", password="wrong-pass"
    )
    assert refused.returncode == 1, output_of(refused)
    assert "wrong-pass" not in refused.stdout + refused.stderr
    unknown = demo.orgctl("access", HQ, "--fail-on", "nothing-such", portal="hq")
    assert unknown.returncode == 1 and "admin-stale" in unknown.stderr  # the choices named


def test_csv_is_one_row_per_member_and_privilege_with_formulas_defused(
    serve: Serve, tmp_path: Path
) -> None:
    state = demo_state_with(
        tmp_path,
        {
            DEMO_HQ_ADMIN: "      - {username: mal, password: mal-pass, role: r0000000000066,"
            " level: 2}\n",
            DEMO_HQ_ROLES: "      - id: r0000000000066\n"
            '        name: \'=HYPERLINK("https://evil.example","x")\'\n'
            "        privileges: [portal:user:joinGroup, portal:admin:viewUsers]\n",
        },
    )
    world = serve(state)
    out = tmp_path / "access.csv"
    done = world.orgctl("access", HQ, "--format", "csv", "-o", out, portal="hq")
    assert done.returncode == 0, output_of(done)
    rows = list(csv.reader(io.StringIO(out.read_text())))
    assert rows[0] == [
        "portal",
        "username",
        "role",
        "roleType",
        "level",
        "disabled",
        "lastLogin",
        "privilege",
        "administrative",
        "disabledByLevel",
    ]
    mal = [r for r in rows[1:] if r[1] == "mal"]
    assert sorted(r[7] for r in mal) == ["portal:admin:viewUsers", "portal:user:joinGroup"]
    assert {r[2] for r in mal} == {'\'=HYPERLINK("https://evil.example","x")'}
    assert not any(cell.startswith(("=", "+", "-", "@")) for row in rows for cell in row)
    # Every member, every privilege: as many rows as the JSON report holds pairs.
    report = access_json(world.orgctl("access", HQ, "--format", "json", portal="hq"))
    privileges = {r["name"]: len(r["privileges"]) for r in report["roles"]}
    pairs = sum(max(1, privileges.get(m["role"], 0)) for m in report["members"])
    assert len(rows) - 1 == pairs


def test_markdown_shows_a_hostile_role_name_as_text(serve: Serve, tmp_path: Path) -> None:
    name = "<script>alert(1)</script> | ops"
    state = demo_state_with(
        tmp_path,
        {
            DEMO_HQ_ADMIN: "      - {username: mal, password: mal-pass, role: r0000000000066,"
            " level: 2}\n",
            DEMO_HQ_ROLES: "      - id: r0000000000066\n"
            f"        name: '{name}'\n"
            "        privileges: [portal:user:joinGroup]\n",
        },
    )
    world = serve(state)
    done = world.orgctl("access", HQ, "--format", "markdown", portal="hq")
    assert done.returncode == 0, output_of(done)
    assert "<script>" not in done.stdout.replace("`<script>", "")  # only inside code
    row = next(line for line in done.stdout.splitlines() if line.startswith("| `<script>"))
    assert row == "| `<script>alert(1)</script> \\| ops` | custom | 1 | 1 | no |"
    member = next(line for line in done.stdout.splitlines() if line.startswith("| `mal`"))
    cells = [c for c in member.replace("\\|", "").split("|")][1:-1]
    assert len(cells) == 6, member


def test_a_fleet_root_reports_each_portal(demo: World) -> None:
    env = demo.fleet_env(FLEET_PORTALS)
    done = demo.orgctl("access", FLEET, "--format", "json", portal="", env=env)
    assert done.returncode == 0, output_of(done)
    report = json.loads(done.stdout)
    assert report["formatVersion"] == 2 and report["report"] == "access-fleet"
    portals = {p["name"]: p for p in report["portals"]}
    assert sorted(portals) == sorted(FLEET_PORTALS)
    cloud = portals["fleet-cloud"]
    assert cloud["state"] == "ok" and cloud["error"] is None
    assert cloud["manifests"].endswith("examples/fleet/cloud")
    assert [m["username"] for m in cloud["report"]["members"]] == ["admin", "gina"]
    assert cloud["findings"] == len(cloud["report"]["findings"])
    assert "3 portals:" in done.stderr

    table = demo.orgctl("access", FLEET, "--format", "csv", portal="", env=env)
    assert table.returncode == 0, output_of(table)
    rows = list(csv.reader(io.StringIO(table.stdout)))
    assert rows[0][0] == "portal" and [r[0] for r in rows].count("portal") == 1
    assert {r[0] for r in rows[1:]} == set(FLEET_PORTALS)

    broken = demo.fleet_env(
        FLEET_PORTALS, ORGCTL_FLEET_FIELD_USERNAME="admin", ORGCTL_FLEET_FIELD_PASSWORD="nope"
    )
    failed = demo.orgctl("access", FLEET, "--format", "json", portal="", env=broken)
    assert failed.returncode == 1, output_of(failed)
    field = next(p for p in json.loads(failed.stdout)["portals"] if p["name"] == "fleet-field")
    assert field["state"] == "error" and field["report"] is None and field["error"]
    text = demo.orgctl("access", FLEET, portal="", env=broken)
    assert text.returncode == 1
    assert "=== fleet-hq (" in text.stdout and "Findings" in text.stdout
    assert text.stdout.rstrip().endswith("3 portals: 1 failed, 2 with findings")


def test_a_member_without_view_users_is_told_who_may_read_members(demo: World) -> None:
    done = demo.orgctl("access", HQ, portal="hq", username="alice", password="alice-pass")
    assert done.returncode == 1, output_of(done)
    assert "portal:admin:viewUsers" in done.stderr
    assert "alice-pass" not in done.stdout + done.stderr


def test_a_disabled_account_cannot_sign_in(serve: Serve, tmp_path: Path) -> None:
    world = serve(reviewed_state(tmp_path))
    done = world.orgctl("access", HQ, portal="hq", username="dora", password="dora-pass")
    assert done.returncode == 1, output_of(done)
    assert "disabled" in done.stderr


def test_the_limits_of_a_portal_s_answers_apply(demo: World) -> None:
    done = demo.orgctl("access", HQ, "--max-answer-size", "1KB", portal="hq")
    assert done.returncode == 1, output_of(done)
    assert "--max-answer-size" in done.stderr and "Traceback" not in done.stderr


def test_markdown_says_why_no_report_could_be_made(demo: World) -> None:
    done = demo.orgctl("access", HQ, "--format", "markdown", portal="hq", password="wrong-pass")
    assert done.returncode == 1, output_of(done)
    assert done.stdout.startswith(f"## orgctl access: {HQ}\n"), done.stdout
    assert "**Failed: the portal could not be read for access; nothing was compared.**" in (
        done.stdout
    )
    assert "wrong-pass" not in done.stdout + done.stderr


def test_a_member_the_listing_answers_unreadably_is_left_out_with_a_warning(
    serve: Serve, tmp_path: Path
) -> None:
    odd = "      - {username: 'x/../y', password: x-pass, role: org_admin, level: 2}\n"
    world = serve(demo_state_with(tmp_path, {DEMO_HQ_ADMIN: odd}))
    done = world.orgctl("access", HQ, "--format", "json", portal="hq")
    assert done.returncode == 0, output_of(done)
    said = 'Warning: left out of the report: the portal answered a member: username: "x/../y"'
    assert said in done.stderr, done.stderr
    assert "x/../y" not in [m["username"] for m in json.loads(done.stdout)["members"]]
