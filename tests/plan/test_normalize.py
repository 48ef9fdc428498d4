"""Each normalization that keeps a plan right after an apply empty."""

from __future__ import annotations

import pytest

from reconciler.plan.diff import changed_fields, diff_record
from reconciler.plan.normalize import canonical, fields_at, form_value

WORKSPACE = "Workspace/c/w"


@pytest.mark.parametrize(
    ("address", "name", "spelling", "value"),
    [
        (WORKSPACE, "maxItemSizeInMB", 1024.0, 1024),
        (WORKSPACE, "maxItemSizeInMB", "1024", 1024),
        ("Member/a", "level", "1", 1),
        (WORKSPACE, "copyByRefIfCopyFail", "true", True),
        (WORKSPACE, "enableRealtimeSync", "False", False),
        (WORKSPACE, "startTime", "2026-01-01T00:00:00Z", 1_767_225_600_000),
        (WORKSPACE, "startTime", "2026-01-01T01:00:00+01:00", 1_767_225_600_000),
        (WORKSPACE, "startTime", 1_767_225_600_000.0, 1_767_225_600_000),
        ("Role/r", "privileges", frozenset({"b", "a"}), ["a", "b"]),
        ("Role/r", "description", None, ""),
        ("Role/r", "privileges", None, []),
        (WORKSPACE, "enableFeatureServiceBidirectionalSync", None, False),
        (WORKSPACE, "interval", None, 24),
        (WORKSPACE, "repeatCount", None, -1),
        ("WebhookSettings", "daysInPast", None, 5),
    ],
)
def test_service_spellings_are_one_value(
    address: str, name: str, spelling: object, value: object
) -> None:
    assert canonical(fields_at(address), name, spelling) == value


def test_fractional_numbers_stay_fractional() -> None:
    assert canonical(fields_at(WORKSPACE), "maxItemSizeInMB", 1024.5) == 1024.5


def test_a_group_id_that_looks_numeric_stays_text() -> None:
    assert canonical(fields_at(WORKSPACE), "portalGroupId", "123") == "123"


def test_nested_records_are_normalized() -> None:
    assert canonical(fields_at(WORKSPACE), "groupLink", {"enableRealtimeSync": "true"}) == {
        "enableRealtimeSync": True
    }


def test_equal_after_normalization_is_no_change() -> None:
    live = {"maxItemSizeInMB": 1024.0, "copyByRefIfCopyFail": "false", "description": None}
    desired = {"maxItemSizeInMB": 1024, "copyByRefIfCopyFail": False, "description": ""}
    assert diff_record(WORKSPACE, live, desired) is None


def test_unmanaged_fields_are_not_compared() -> None:
    assert diff_record(
        "Role/x", {"description": "old", "privileges": []}, {"description": None}
    ) is (None)


def test_only_differing_fields_are_reported() -> None:
    change = diff_record("Member/a", {"role": "org_user", "level": 2}, {"role": "x", "level": 2})
    assert change is not None
    assert change.before == {"role": "org_user"}
    assert change.after == {"role": "x"}


def test_changed_fields_names_nested_differences_by_top_field() -> None:
    assert changed_fields({"a": {"b": 1}, "c": 1}, {"a": {"b": 2}, "c": 1}) == ["a"]


@pytest.mark.parametrize(
    ("value", "sent"), [(True, "true"), (False, "false"), (1024.0, "1024"), (3, "3"), ("g", "g")]
)
def test_form_values(value: object, sent: str) -> None:
    assert form_value(value) == sent


def test_privileges_as_a_list_compare_as_a_set() -> None:
    assert (
        diff_record("Role/r", {"privileges": ["b", "a", "a"]}, {"privileges": ["a", "b"]}) is None
    )


def test_a_nested_record_reports_only_its_differing_subfields() -> None:
    live = {"groupLink": {"portalGroupId": "g1", "enableRealtimeSync": "false"}}
    desired = {"groupLink": {"portalGroupId": "g1", "enableRealtimeSync": True}}
    change = diff_record("Workspace/c/w", live, desired)
    assert change is not None
    assert change.before == {"groupLink": {"enableRealtimeSync": False}}
    assert change.after == {"groupLink": {"enableRealtimeSync": True}}


def test_a_missing_nested_record_is_reported_whole() -> None:
    change = diff_record("Workspace/c/w", {"schedule": None}, {"schedule": {"interval": 24}})
    assert change is not None
    assert (change.before, change.after) == ({"schedule": None}, {"schedule": {"interval": 24}})
