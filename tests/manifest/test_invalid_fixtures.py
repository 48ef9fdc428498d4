"""One fixture per error class: the real CLI must refuse it, naming file:line and the rule."""

from __future__ import annotations

import json

import pytest

from tests.manifest.conftest import FIXTURES, run_cli

# (fixture folder, file, line, words the message must hold)
CASES: list[tuple[str, str, int, tuple[str, ...]]] = [
    # A syntax error is placed where the unclosed construct opened, not where the text ran out.
    ("malformed-yaml", "roles.yaml", 3, ("YAML", "flow mapping opened here", "at line 4")),
    (
        "yaml-unclosed-quote",
        "roles.yaml",
        5,
        ("YAML", "quoted scalar opened here is never closed", "end of stream at line 10"),
    ),
    ("duplicate-key", "roles.yaml", 6, ("duplicate key 'description'", "first at line 5")),
    ("unknown-kind", "roles.yaml", 2, ("unknown kind 'Group'", "Portal")),
    (
        "unknown-field",
        "roles.yaml",
        6,
        ('Role "X"', "spec.privilege:", "unknown field", "(did you mean 'privileges'?)"),
    ),
    ("kind-misspelt", "roles.yaml", 2, ("unknown kind 'Rol' (did you mean 'Role'?)",)),
    (
        "field-misspelt-in-a-member",
        "members.yaml",
        6,
        ("spec.members.alice.levle: unknown field 'levle' (did you mean 'level'?)",),
    ),
    ("wrong-type", "roles.yaml", 5, ("spec.description", "valid string")),
    ("missing-required-field", "members.yaml", 4, ("spec.members", "required")),
    ("version-not-a-string", "portal.yaml", 7, ("spec.version", "quoted string")),
    ("role-name-too-long", "roles.yaml", 3, ("metadata.name", "129 characters", "128")),
    ("role-description-too-long", "roles.yaml", 5, ("spec.description", "250")),
    ("workspace-name-too-long", "collaborations.yaml", 7, ("ws1.name", "100")),
    (
        "workspace-size-negative",
        "collaborations.yaml",
        8,
        ("ws1.maxReplicationPackageSizeInMB", "greater than or equal to 0"),
    ),
    (
        "role-name-with-surrounding-space",
        "roles.yaml",
        3,
        ("metadata.name", "white space", "write 'Analyst'"),
    ),
    ("workspace-name-blank", "collaborations.yaml", 7, ("ws1.name", "must not be blank")),
    ("workspace-name-with-nul", "collaborations.yaml", 7, ("ws1.name", "control", "U+0000")),
    ("role-name-with-control-characters", "roles.yaml", 3, ("metadata.name", "U+001B")),
    ("role-description-with-bidi-override", "roles.yaml", 5, ("spec.description", "U+202E")),
    (
        "schedule-start-before-1970",
        "collaborations.yaml",
        7,
        ("schedule.startTime", "before 1970", "-5"),
    ),
    (
        "schedule-start-in-seconds",
        "collaborations.yaml",
        7,
        ("schedule.startTime", "looks like seconds", "1615586200000"),
    ),
    ("workspace-description-too-long", "collaborations.yaml", 7, ("ws1.description", "250")),
    (
        "unknown-privilege",
        "roles.yaml",
        8,
        (
            'Role "Field Analyst": spec.privileges[2]: unknown privilege'
            " 'portal:user:createItm' (did you mean 'portal:user:createItem'?)",
        ),
    ),
    (
        "cloud-only-privilege-on-self-hosted",
        "roles.yaml",
        5,
        ("premium:user:places", "only on hosted-cloud"),
    ),
    ("privilege-needs-11-0", "roles.yaml", 5, ("portal:user:reassignItems", "11.0")),
    ("level-on-10-7", "members.yaml", 6, ("alice.level", "updateUserLevel", "10.6.1")),
    ("level-on-cloud", "members.yaml", 6, ("alice.level", "not available on hosted-cloud")),
    ("level-3", "members.yaml", 6, ("alice.level", "1 or 2")),
    ("level-1-builtin-role", "members.yaml", 6, ("level 1 needs a custom role", "org_user")),
    ("schedule-interval-zero", "collaborations.yaml", 7, ("schedule.interval", "positive")),
    ("schedule-interval-over-a-year", "collaborations.yaml", 7, ("interval", "8760", "100000")),
    (
        "workspace-size-over-1-tib",
        "collaborations.yaml",
        8,
        ("ws1.maxReplicationPackageSizeInMB", "1048576"),
    ),
    ("schedule-repeat-count-zero", "collaborations.yaml", 7, ("repeatCount", "-1", "got 0")),
    (
        "schedule-finite-without-start",
        "collaborations.yaml",
        7,
        ("finite repeatCount", "explicit startTime"),
    ),
    ("schedule-bad-start-time", "collaborations.yaml", 7, ("startTime", "ISO 8601")),
    (
        "bidirectional-without-copy",
        "collaborations.yaml",
        10,
        ("enableFeatureServiceBidirectionalSync", "needs copyFeatureServiceData: true"),
    ),
    (
        "bidirectional-on-10-8",
        "collaborations.yaml",
        9,
        ("enableFeatureServiceBidirectionalSync needs self-hosted 10.9",),
    ),
    ("webhook-settings-on-11-1", "webhooks.yaml", 1, ("webhook settings", "11.2")),
    (
        "webhook-settings-on-cloud",
        "webhooks.yaml",
        1,
        ("webhook settings", "not available on hosted-cloud"),
    ),
    ("task-retention-on-10-8", "retention.yaml", 1, ("task run delete", "10.8.1")),
    ("retention-without-limits", "retention.yaml", 4, ("keepLast", "maxAgeDays")),
    ("http-url-not-loopback", "portal.yaml", 5, ("spec.url", "https", "loopback")),
    ("portal-url-with-query", "portal.yaml", 5, ("spec.url", "plain address", "has a query")),
    ("literal-secret-in-auth", "portal.yaml", 10, ("spec.auth.password", "literal secret")),
    ("env-name-holds-secret", "portal.yaml", 9, ("spec.auth.tokenEnv", "NAME of an environment")),
    ("two-portals", "portal.yaml", 1, ("second Portal document", "more/portal.yaml:1")),
    ("duplicate-role-across-files", "roles.yaml", 3, ("role 'Analyst'", "declared twice")),
    (
        "role-names-differ-only-in-case",
        "roles.yaml",
        10,
        ("role 'analyst'", "declared twice", "first as 'Analyst'"),
    ),
    ("duplicate-username", "members.yaml", 13, ("username 'alice'", "declared twice")),
    (
        "duplicate-collaboration-id",
        "collaborations.yaml",
        9,
        ("collaboration id 'c1'", "declared twice"),
    ),
    ("duplicate-workspace-id", "collaborations.yaml", 14, ("workspace id 'ws1'", "twice")),
    (
        "members-role-declared-absent",
        "members.yaml",
        6,
        ("dave.role", "'Legacy Viewer' is declared absent"),
    ),
    (
        "update-info-sizes-on-10-5",
        "collaborations.yaml",
        8,
        ("maxItemSizeInMB", "10.6 or later", "10.5"),
    ),
]
# Untrusted YAML: each refused with its place, before anything is built from it.
CASES += [
    ("yaml-alias-bomb", "roles.yaml", 12, ("aliases expand this document", "10,000 nodes")),
    ("yaml-nested-too-deep", "roles.yaml", 6, ("nested deeper than 32 levels",)),
    ("yaml-nested-deep", "roles.yaml", 6, ("nested deeper than 32 levels",)),
    ("yaml-custom-tag", "roles.yaml", 5, ("tag '!custom' is not allowed",)),
    ("yaml-recursive-alias", "roles.yaml", 5, ("alias refers to a node that contains it",)),
]
CASES += [
    (
        "webhook-settings-without-admin-url",
        "webhooks.yaml",
        1,
        ("WebhookSettings", "spec.adminUrl"),
    ),
    ("organization-webhooks-on-10-6", "webhooks.yaml", 1, ("webhook delete", "10.7")),
    (
        "invalidate-invitation-on-10-4",
        "collaborations.yaml",
        5,
        ("spec.invalidInvitations", "invalidate invitation needs self-hosted 10.5"),
    ),
    ("group-link-on-10-4", "collaborations.yaml", 7, ("updatePortalGroupLink", "10.5")),
    (
        "copy-feature-service-data-on-10-5",
        "collaborations.yaml",
        7,
        ("groupLink.copyFeatureServiceData", "10.5.1"),
    ),
    ("schedule-on-10-5", "collaborations.yaml", 7, ("ws1.schedule", "schedule update", "10.6")),
    ("two-webhook-settings", "webhooks.yaml", 7, ("second WebhookSettings document",)),
    ("org-webhook-absent-and-kept", "webhooks.yaml", 5, ("spec.absent[0]", "also in keep")),
    (
        "absent-collaboration-with-workspaces",
        "collaborations.yaml",
        5,
        ("spec.state", "declared absent cannot also declare workspaces"),
    ),
    (
        "absent-role-with-privileges",
        "roles.yaml",
        5,
        ("spec.state", "role declared absent cannot also declare"),
    ),
    ("auth-incomplete", "portal.yaml", 8, ("spec.auth", "usernameEnv and passwordEnv")),
]
# Nothing meant for orgctl is dropped in silence; every name refuses control characters.
CASES += [
    ("members-api-version-not-orgctl", "members.yaml", 2, ("apiVersion", "'orgctl/v1'", "123")),
    ("portal-name-with-control-characters", "portal.yaml", 3, ("metadata.name", "U+000A")),
    ("members-name-with-control-characters", "members.yaml", 3, ("metadata.name", "U+001B")),
    ("username-with-control-characters", "members.yaml", 6, ("'username'", "U+000D")),
    ("collaboration-name-with-bidi-override", "collaborations.yaml", 3, ("name", "U+202E")),
    (
        "collaboration-id-with-control-characters",
        "collaborations.yaml",
        3,
        ("'collaboration id'", "U+0009"),
    ),
]
# Ignore rules: a path the kind lacks (with the one meant), one whose absence means
# something, a blank pattern, a pattern that would drive a terminal.
CASES += [
    (
        "ignore-changes-unknown-path",
        "collaborations.yaml",
        6,
        (
            "metadata.ignoreChanges[0]",
            "spec.workspaces.*.schedule has no field 'startTme'",
            "did you mean spec.workspaces.*.schedule.startTime?",
        ),
    ),
    ("ignore-changes-state", "roles.yaml", 5, ("ignoreChanges[1]", "spec.state", "'present'")),
    ("ignore-privileges-blank-pattern", "roles.yaml", 6, ("ignorePrivileges[1]", "blank")),
    ("ignore-privileges-on-absent-role", "roles.yaml", 6, ("spec.ignorePrivileges", "absent")),
    (
        "ignore-privileges-pattern-with-control-character",
        "portal.yaml",
        9,
        ("spec.ignorePrivileges[0]", "U+001B"),
    ),
]
_SETTINGS = {
    "notificationAttempts": 5,
    "notificationTimeOutInSeconds": 60,
    "notificationElapsedTimeInSeconds": 60,
    "numberOfFailures": 30,
    "daysInPast": 30,
}
for _name, _high in _SETTINGS.items():
    CASES.append(
        (
            f"webhook-{_name}-out-of-range",
            "webhooks.yaml",
            5,
            (f"from 1 to {_high}, got {_high + 1}",),
        )
    )
    CASES.append((f"webhook-{_name}-zero", "webhooks.yaml", 5, (f"from 1 to {_high}, got 0",)))


# Renames in place and strict mode for roles (metadata.previousNames, spec.pruneRoles).
CASES += [
    (
        "role-previous-name-declared",
        "roles.yaml",
        9,
        ("previousNames[1]", "'analyst' is the name of Role \"Analyst\"", "roles.yaml:1)"),
    ),
    (
        "role-previous-name-claimed-twice",
        "roles.yaml",
        12,
        ("'ANALYST' is also a previous name of Role \"Field Analyst\"", "roles.yaml:1)"),
    ),
    ("role-previous-name-is-own-name", "roles.yaml", 5, ("'Analyst' is the role's own name",)),
    ("role-absent-with-previous-names", "roles.yaml", 5, ("declared absent", "previousNames")),
    (
        "members-role-by-previous-name",
        "members.yaml",
        6,
        ("dave.role", "'analyst' is renamed to 'Field Analyst'", "name it by its new name"),
    ),
    ("portal-prune-roles-not-boolean", "portal.yaml", 9, ("spec.pruneRoles", "valid boolean")),
    # With pruneRoles the manifests hold every role: a role they lack is known to be wrong.
    (
        "members-role-misspelt-roles-complete",
        "members.yaml",
        6,
        ("alice.role", "'Feld Analyst' is neither built-in nor declared", "'Field Analyst'?"),
    ),
    (
        "members-role-misspelt-roles-complete",
        "members.yaml",
        7,
        ("bob.role", "'org_publishr'", "pruneRoles", "(did you mean 'org_publisher'?)"),
    ),
]


@pytest.mark.parametrize(("folder", "file", "line", "words"), CASES, ids=[c[0] for c in CASES])
def test_each_error_class_is_refused_with_file_line_and_reason(
    folder: str, file: str, line: int, words: tuple[str, ...]
) -> None:
    root = FIXTURES / "invalid" / folder
    result = run_cli("validate", str(root))
    assert result.exit_code == 1, result.output
    prefix = f"{root / file}:{line}: "
    lines = [text for text in result.output.splitlines() if text.startswith(prefix)]
    assert lines, f"no problem at {prefix}\n{result.output}"
    assert any(all(word in text for word in words) for text in lines), result.output


def test_every_fixture_folder_has_a_case() -> None:
    folders = {p.name for p in (FIXTURES / "invalid").iterdir() if p.is_dir()}
    assert folders == {case[0] for case in CASES} | {"zero-portal"}


def test_zero_portal_is_reported_against_the_folder() -> None:
    root = FIXTURES / "invalid" / "zero-portal"
    result = run_cli("validate", str(root))
    assert result.exit_code == 1
    assert f"{root}:1: no Portal document" in result.output


def test_secrets_never_appear_in_any_output() -> None:
    for folder, secret in (
        ("literal-secret-in-auth", "hunter2-secret"),
        ("env-name-holds-secret", "3xF9-sEcReT.token"),
        ("portal-url-with-query", "tok-in-url-7Q2"),
    ):
        for output_format in ("text", "json", "github"):
            root = FIXTURES / "invalid" / folder
            result = run_cli("validate", str(root), "--format", output_format)
            assert result.exit_code == 1
            assert secret not in result.output


def test_json_format_lists_every_problem_with_its_place() -> None:
    root = FIXTURES / "invalid" / "update-info-sizes-on-10-5"
    result = run_cli("validate", str(root), "--format", "json")
    assert result.exit_code == 1
    body = json.loads(result.output)
    assert body["valid"] is False
    assert [(p["line"], p["field"]) for p in body["problems"]] == [
        (8, "spec.workspaces.ws1.maxItemSizeInMB"),
        (9, "spec.workspaces.ws1.copyByRefIfCopyFail"),
    ]
    first = body["problems"][0]
    assert first["file"] == str(root / "collaborations.yaml")
    assert first["resource"] == 'Collaboration "Sharing"'
    assert first["column"] == 7


def test_github_format_prints_annotations() -> None:
    root = FIXTURES / "invalid" / "level-3"
    result = run_cli("validate", str(root), "--format", "github")
    assert result.exit_code == 1
    file = str(root / "members.yaml").replace(":", "%3A").replace(",", "%2C")
    assert result.output == (
        f"::error file={file},line=6::"
        'Members "staff": spec.members.alice.level: Input should be 1 or 2\n'
    )
