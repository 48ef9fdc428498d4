"""`write_manifests`: live records in, manifest files out (README: manifest reference)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from reconciler import kind as registry
from reconciler.errors import UserError
from reconciler.export import ExportSummary, write_manifests
from reconciler.export.writer import check_output_folder
from reconciler.kinds.collaboration import slots as collaborations
from reconciler.state import Auth, GroupLink, LiveState, Role, Workspace
from tests.export import worlds

PASSWORD_AUTH = Auth(usernameEnv="ORGCTL_USERNAME", passwordEnv="ORGCTL_PASSWORD")
TOKEN_AUTH = Auth(tokenEnv="ORGCTL_TOKEN")
HQ_URL = "http://127.0.0.1:8080/hq/sharing/rest"
AT = datetime(2026, 11, 1, tzinfo=UTC)


def export(live: LiveState, out: Path, admin: str | None = None, **kw: Any) -> ExportSummary:
    kw.setdefault("auth", PASSWORD_AUTH)
    kw.setdefault("exported_at", AT)
    return write_manifests(live, out, portal_url=HQ_URL, admin_url=admin, **kw)


def load(path: Path) -> list[Any]:
    return [d for d in YAML(typ="safe").load_all(path.read_text(encoding="utf-8")) if d]


def spec_of(path: Path, kind: str) -> list[dict[str, Any]]:
    return [d["spec"] for d in load(path) if d["kind"] == kind]


# --- hq: self-hosted 10.6.1, host of c1 ----------------------------------------------------------


def test_portal_document_names_the_platform_and_the_variables_never_a_secret(
    tmp_path: Path,
) -> None:
    export(worlds.hq(), tmp_path, admin="http://127.0.0.1:8080/hq/admin", name="hq")
    [portal] = load(tmp_path / "portal.yaml")
    assert portal == {
        "apiVersion": "orgctl/v1",
        "kind": "Portal",
        "metadata": {"name": "hq"},
        "spec": {
            "url": HQ_URL,
            "adminUrl": "http://127.0.0.1:8080/hq/admin",
            "deployment": "self-hosted",
            "version": "10.6.1",
            "auth": {"usernameEnv": "ORGCTL_USERNAME", "passwordEnv": "ORGCTL_PASSWORD"},
        },
    }
    assert 'version: "10.6.1"' in (tmp_path / "portal.yaml").read_text()


def test_token_auth_names_only_the_token_variable(tmp_path: Path) -> None:
    export(worlds.cloud(), tmp_path, auth=TOKEN_AUTH)
    [spec] = spec_of(tmp_path / "portal.yaml", "Portal")
    assert spec["auth"] == {"tokenEnv": "ORGCTL_TOKEN"}
    assert "adminUrl" not in spec


def test_the_portal_name_becomes_the_default_label(tmp_path: Path) -> None:
    export(worlds.field(), tmp_path)
    [portal] = load(tmp_path / "portal.yaml")
    assert portal["metadata"] == {"name": "field-office"}


def test_roles_one_document_each_sorted_with_sorted_privileges(tmp_path: Path) -> None:
    summary = export(worlds.hq(), tmp_path)
    roles = load(tmp_path / "roles.yaml")
    assert [r["metadata"]["name"] for r in roles] == ["Analyst", "Legacy Viewer"]
    assert roles[0]["spec"] == {
        "description": "Creates content",
        "privileges": sorted(worlds.ANALYST.privileges or ()),
    }
    assert roles[1]["spec"] == {"description": "", "privileges": []}
    assert summary.counts["Role"] == 2 and "2 roles" in summary.phrases
    assert (tmp_path / "roles.yaml").read_text().count("\n---\n") == 1


def test_prebuilt_roles_that_cannot_be_edited_are_left_out_with_a_note(tmp_path: Path) -> None:
    live = worlds.hq()
    live.roles["Viewer"] = Role("Viewer", "", frozenset({"portal:user:joinGroup"}), editable=False)
    summary = export(live, tmp_path)
    names = [r["metadata"]["name"] for r in load(tmp_path / "roles.yaml")]
    assert "Viewer" not in names
    assert any("Viewer" in note and "cannot be edited" in note for note in summary.notes)


def test_privileges_outside_the_catalog_go_to_extra_privileges(tmp_path: Path) -> None:
    live = worlds.hq()
    odd = replace(
        worlds.ANALYST,
        privileges=frozenset({"portal:user:runNotebookWebTools", "portal:user:joinGroup"}),
    )
    live.roles["Analyst"] = odd
    summary = export(live, tmp_path)
    [spec] = spec_of(tmp_path / "portal.yaml", "Portal")
    assert spec["extraPrivileges"] == ["portal:user:runNotebookWebTools"]
    assert any("extraPrivileges" in note for note in summary.notes)


def test_members_on_10_6_1_carry_their_level(tmp_path: Path) -> None:
    summary = export(worlds.hq(), tmp_path)
    [members] = spec_of(tmp_path / "members.yaml", "Members")
    assert members["members"] == {
        "admin": {"level": 2, "role": "org_admin"},
        "alice": {"level": 2, "role": "org_user"},
        "carol": {"level": 2, "role": "org_publisher"},
        "erin": {"level": 1, "role": "Analyst"},
    }
    assert "  erin: {level: 1, role: Analyst}\n" in (tmp_path / "members.yaml").read_text()
    assert "4 members" in summary.phrases


@pytest.mark.parametrize("version", ["10.7", "11.3"])
def test_members_after_10_6_1_have_no_level(tmp_path: Path, version: str) -> None:
    export(worlds.hq(version), tmp_path)
    [members] = spec_of(tmp_path / "members.yaml", "Members")
    assert members["members"]["erin"] == {"role": "Analyst"}
    assert all("level" not in m for m in members["members"].values())


def test_host_exports_workspace_info_and_invalidated_invitations_only(tmp_path: Path) -> None:
    summary = export(worlds.hq(), tmp_path)
    [collab] = load(tmp_path / "collaborations.yaml")
    assert collab["metadata"] == {"name": "Regional sharing", "id": "c1"}
    assert collab["spec"] == {
        "invalidInvitations": ["inv2"],
        "workspaces": {
            "ws1": {
                "name": "Field data",
                "maxItemSizeInMB": 1024,
                "maxReplicationPackageSizeInMB": 4096,
                "copyByRefIfCopyFail": False,
            }
        },
    }
    assert "1 collaboration (1 workspace)" in summary.phrases
    assert any("1 invitation" in note for note in summary.notes)


def test_host_before_10_6_has_no_size_settings(tmp_path: Path) -> None:
    export(worlds.hq("10.5.1"), tmp_path)
    [collab] = spec_of(tmp_path / "collaborations.yaml", "Collaboration")
    assert collab["workspaces"]["ws1"] == {"name": "Field data"}


# --- field: self-hosted 11.3, guest of c1 --------------------------------------------------------


def test_guest_exports_its_group_link_and_schedule_in_iso_utc(tmp_path: Path) -> None:
    export(worlds.field(), tmp_path)
    [collab] = spec_of(tmp_path / "collaborations.yaml", "Collaboration")
    assert collab == {
        "workspaces": {
            "ws1": {
                "schedule": {
                    "startTime": "2026-01-01T00:00:00Z",
                    "interval": 24,
                    "repeatCount": -1,
                },
                "groupLink": {
                    "portalGroupId": "g1",
                    "enableRealtimeSync": False,
                    "copyFeatureServiceData": False,
                    "enableFeatureServiceBidirectionalSync": False,
                },
            }
        }
    }


def test_guest_schedule_keeps_milliseconds(tmp_path: Path) -> None:
    live = worlds.field()
    ws = live.get(collaborations.LIVE)["c1"].workspaces["ws1"]
    assert ws.schedule is not None
    timed = replace(ws, schedule=replace(ws.schedule, startTime=worlds.START_2026 + 1234))
    live.get(collaborations.LIVE)["c1"] = replace(
        live.get(collaborations.LIVE)["c1"], workspaces={"ws1": timed}
    )
    export(live, tmp_path)
    [collab] = spec_of(tmp_path / "collaborations.yaml", "Collaboration")
    assert collab["workspaces"]["ws1"]["schedule"]["startTime"] == "2026-01-01T00:00:01.234Z"


def test_guest_on_10_6_1_leaves_out_group_link_fields_it_lacks(tmp_path: Path) -> None:
    live = worlds.field("10.6.1")
    ws = Workspace("ws1", groupLink=GroupLink("g1", True, True, True))
    live.get(collaborations.LIVE)["c1"] = replace(
        live.get(collaborations.LIVE)["c1"], workspaces={"ws1": ws}
    )
    export(live, tmp_path)
    [collab] = spec_of(tmp_path / "collaborations.yaml", "Collaboration")
    # bidirectional sync came at 10.9 (docs/rules.md §9)
    assert collab["workspaces"]["ws1"] == {
        "groupLink": {
            "portalGroupId": "g1",
            "enableRealtimeSync": True,
            "copyFeatureServiceData": True,
        }
    }


def test_guest_with_no_job_and_no_link_declares_the_bare_workspace(tmp_path: Path) -> None:
    live = worlds.field()
    live.get(collaborations.LIVE)["c1"] = replace(
        live.get(collaborations.LIVE)["c1"], workspaces={"ws1": Workspace("ws1", name="Field data")}
    )
    export(live, tmp_path)
    [collab] = spec_of(tmp_path / "collaborations.yaml", "Collaboration")
    assert collab == {"workspaces": {"ws1": {}}}


def test_known_webhook_settings_are_written_in_full(tmp_path: Path) -> None:
    settings = {
        "daysInPast": 7,
        "numberOfFailures": 10,
        "notificationElapsedTimeInSeconds": 5,
        "notificationTimeOutInSeconds": 10,
        "notificationAttempts": 4,
    }
    summary = export(
        worlds.field(settings=settings), tmp_path, admin="http://127.0.0.1:1/field/admin"
    )
    [spec] = spec_of(tmp_path / "webhook-settings.yaml", "WebhookSettings")
    assert spec == settings
    assert list(spec) == [
        "notificationAttempts",
        "notificationTimeOutInSeconds",
        "notificationElapsedTimeInSeconds",
        "numberOfFailures",
        "daysInPast",
    ]
    assert "webhook settings" in summary.phrases
    assert summary.counts["WebhookSettings"] == 1


def test_unknown_webhook_settings_are_not_written_and_say_why(tmp_path: Path) -> None:
    summary = export(worlds.field(settings=None), tmp_path, admin="http://127.0.0.1:1/field/admin")
    assert not (tmp_path / "webhook-settings.yaml").exists()
    assert "webhook settings" not in summary.phrases
    assert any("did not tell" in note for note in summary.notes)


def test_webhook_settings_need_the_admin_url(tmp_path: Path) -> None:
    summary = export(worlds.field(settings={"notificationAttempts": 3}), tmp_path)
    assert not (tmp_path / "webhook-settings.yaml").exists()
    assert any("--admin-url" in note for note in summary.notes)


def test_org_webhooks_and_tasks_are_left_out_with_notes(tmp_path: Path) -> None:
    summary = export(worlds.field(), tmp_path)
    assert any("organization webhook" in note for note in summary.notes)
    assert any("task" in note for note in summary.notes)


# --- cloud ---------------------------------------------------------------------------------------


def test_cloud_has_a_month_release_no_levels_and_no_webhook_settings(tmp_path: Path) -> None:
    summary = export(worlds.cloud(), tmp_path, admin="https://cloud.example.com/admin")
    text = (tmp_path / "portal.yaml").read_text()
    assert 'version: "2026-06"' in text
    assert "deployment: hosted-cloud" in text
    [members] = spec_of(tmp_path / "members.yaml", "Members")
    assert members["members"] == {"admin": {"role": "org_admin"}, "gina": {"role": "org_user"}}
    assert not (tmp_path / "webhook-settings.yaml").exists()
    assert not (tmp_path / "collaborations.yaml").exists()
    assert summary.sentence() == f"Exported 1 role, 2 members, 0 collaborations to {tmp_path}."


# --- bytes ---------------------------------------------------------------------------------------


def test_same_state_gives_the_same_bytes_whatever_the_order_read(tmp_path: Path) -> None:
    live = worlds.hq()
    shuffled = worlds.hq()
    shuffled.roles = dict(reversed(list(shuffled.roles.items())))
    shuffled.members = dict(reversed(list(shuffled.members.items())))
    export(live, tmp_path / "a")
    export(shuffled, tmp_path / "b")
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "b").iterdir())
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_every_file_starts_with_the_header(tmp_path: Path) -> None:
    summary = export(worlds.hq(), tmp_path)
    assert len(summary.files) == 4
    for path in summary.files:
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert first == (
            f"# Exported by orgctl export from {HQ_URL} at 2026-11-01T00:00:00Z"
            " — review before committing."
        )


def test_without_a_time_the_header_says_now(tmp_path: Path) -> None:
    export(worlds.hq(), tmp_path, exported_at=None)
    assert " at now — " in (tmp_path / "portal.yaml").read_text(encoding="utf-8")


def test_strings_a_yaml_reader_would_misread_are_quoted(tmp_path: Path) -> None:
    live = worlds.hq("10.10")
    live.members = {
        "1e5": replace(live.members["erin"], username="1e5"),
        "yes": replace(live.members["alice"], username="yes"),
        "007": replace(live.members["carol"], username="007"),
    }
    live.put(
        collaborations.LIVE,
        {
            "12345": replace(
                live.get(collaborations.LIVE)["c1"],
                id="12345",
                name="2026-01-01",
                workspaces={"2024": Workspace("2024", name="on")},
            )
        },
    )
    export(live, tmp_path)
    assert 'version: "10.10"' in (tmp_path / "portal.yaml").read_text()
    [members] = spec_of(tmp_path / "members.yaml", "Members")
    assert sorted(members["members"]) == ["007", "1e5", "yes"]
    [collab] = load(tmp_path / "collaborations.yaml")
    assert collab["metadata"] == {"name": "2026-01-01", "id": "12345"}
    assert collab["spec"]["workspaces"] == {"2024": {"name": "on"}}
    # A YAML 1.1 reader too: no bare scalar that it would take for a number or a boolean.
    text = (tmp_path / "members.yaml").read_text()
    assert '"1e5":' in text and '"yes":' in text and '"007":' in text


# --- safety of the output folder and of the URLs -------------------------------------------------


def test_a_non_empty_folder_is_refused_naming_it(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(UserError, match=str(tmp_path)) as caught:
        export(worlds.hq(), tmp_path)
    assert "--force" in str(caught.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_force_rewrites_and_drops_stale_files_of_an_earlier_export(tmp_path: Path) -> None:
    export(worlds.hq(), tmp_path)
    (tmp_path / "notes.txt").write_text("mine")
    live = worlds.hq()
    live.put(collaborations.LIVE, {})
    summary = export(live, tmp_path, force=True)
    assert not (tmp_path / "collaborations.yaml").exists()
    assert (tmp_path / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in summary.files) == ["members.yaml", "portal.yaml", "roles.yaml"]


def test_a_file_as_output_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "out"
    target.write_text("")
    with pytest.raises(UserError, match="is a file"):
        export(worlds.hq(), target)


def test_an_output_below_a_file_is_refused_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "plain").write_text("")
    with pytest.raises(UserError, match="plain is a file, not a folder"):
        check_output_folder(tmp_path / "plain" / "out", force=False)


def test_a_missing_folder_is_created(tmp_path: Path) -> None:
    summary = export(worlds.hq(), tmp_path / "new" / "dir")
    assert summary.files[0] == tmp_path / "new" / "dir" / "portal.yaml"
    assert summary.files[0].is_file()


@pytest.mark.parametrize(
    "url",
    [
        "https://admin:s3cret-pw@gis.example.com/portal/sharing/rest",
        "https://gis.example.com/portal/sharing/rest?token=s3cret-pw",
    ],
)
def test_a_url_carrying_a_credential_is_refused_without_echoing_it(
    tmp_path: Path, url: str
) -> None:
    with pytest.raises(UserError) as caught:
        write_manifests(worlds.hq(), tmp_path, portal_url=url, admin_url=None, auth=TOKEN_AUTH)
    assert "s3cret-pw" not in str(caught.value)
    assert list(tmp_path.iterdir()) == []


def test_auth_without_variable_names_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="tokenEnv"):
        export(worlds.hq(), tmp_path, auth=Auth(usernameEnv="ORGCTL_USERNAME"))


def test_summary_sentence_counts_what_was_written(tmp_path: Path) -> None:
    summary = export(
        worlds.field(settings={"daysInPast": 5}), tmp_path, admin="http://127.0.0.1:1/a"
    )
    # The built-in kinds' phrases first, in their order; a kind added later says its own.
    built_in = "0 roles, 2 members, 1 collaboration (1 workspace), webhook settings"
    assert summary.sentence().startswith(f"Exported {built_in}")
    assert summary.sentence() == f"Exported {', '.join(summary.phrases)} to {tmp_path}."
    # Every kind that writes a file is counted, none found in this world but these.
    written = {kind.name: 0 for kind in registry.registered() if kind.export.file}
    found = {"Portal": 1, "Members": 1, "Collaboration": 1, "WebhookSettings": 1}
    assert summary.counts == written | found


def test_what_could_not_be_read_is_left_out_and_said(tmp_path: Path) -> None:
    live = worlds.hq()
    live.unreadable = {"Member/alice": "the portal answered Member/alice: level: not a number"}
    summary = export(live, tmp_path / "out")
    assert any("Member/alice left out" in note for note in summary.notes), summary.notes


# --- the editor's schema line ------------------------------------------------------------------


def test_each_file_names_the_repositorys_schema_on_its_first_line(tmp_path: Path) -> None:
    schema = tmp_path / "repo" / "schemas" / "orgctl-v1.schema.json"
    schema.parent.mkdir(parents=True)
    schema.write_text("{}")
    out = tmp_path / "repo" / "portals" / "prod"
    summary = export(worlds.hq(), out)
    assert summary.files
    for path in summary.files:
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert first == "# yaml-language-server: $schema=../../schemas/orgctl-v1.schema.json"
        assert load(path), path  # still YAML


def test_without_a_schema_file_no_guessed_line_but_a_note(tmp_path: Path) -> None:
    summary = export(worlds.hq(), tmp_path / "prod")
    text = summary.files[0].read_text(encoding="utf-8")
    assert "$schema=" not in text
    assert "orgctl schema" in text.splitlines()[1]
