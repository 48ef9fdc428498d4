"""Verdicts: what a plan introduces, keeps or cures, and when an exception ends."""

from __future__ import annotations

import datetime as dt

from reconciler.policy.verdicts import Rule, Status, compiled, judge, until_time

NOW = dt.datetime(2026, 6, 1, tzinfo=dt.UTC)


def _member(username: str, administrative: bool) -> tuple[str, dict[str, object]]:
    return f"Member/{username}", {"username": username, "administrative": administrative}


def test_each_violation_is_introduced_existing_or_cured_with_its_cause() -> None:
    rule = compiled("no-admins", "mandatory", "member", None, "!member.administrative", "m", [])
    before = {"member": [_member("ann", True), _member("bo", True), _member("cy", False)]}
    after = {"member": [_member("ann", True), _member("bo", False), _member("cy", True)]}
    causes = {"Member/bo": "Member/bo", "Member/cy": "Role/Admins"}
    found = {(v.subject, v.status, v.cause) for v in judge([rule], before, after, NOW, causes)}
    assert found == {
        ("Member/ann", Status.EXISTING, None),
        ("Member/bo", Status.CURED, "Member/bo"),
        ("Member/cy", Status.INTRODUCED, "Role/Admins"),
    }


def test_a_match_limits_the_subjects_judged() -> None:
    rule = compiled(
        "x", "advisory", "member", 'member.username == "ann"', "!member.administrative", "m", []
    )
    after = {"member": [_member("ann", True), _member("bo", True)]}
    verdicts = judge([rule], {}, after, NOW, {})
    assert [v.subject for v in verdicts] == ["Member/ann"]


def test_an_exception_applies_until_its_date_then_stops() -> None:
    def rule(until: str) -> Rule:
        exceptions = [("Member/ann", "pilot", until)]
        return compiled("x", "mandatory", "member", None, "!member.administrative", "m", exceptions)

    after = {"member": [_member("ann", True)]}
    assert judge([rule("2026-07-01")], {}, after, NOW, {}) == []
    expired = judge([rule("2026-05-31T23:59:59Z")], {}, after, NOW, {})
    assert [v.subject for v in expired] == ["Member/ann"]


def test_until_reads_rfc_3339_and_dates_as_their_start_in_utc() -> None:
    assert until_time("2026-01-02") == dt.datetime(2026, 1, 2, tzinfo=dt.UTC)
    assert until_time(dt.date(2026, 1, 2)) == dt.datetime(2026, 1, 2, tzinfo=dt.UTC)
    assert until_time("2026-01-02T03:04:05+02:00") == dt.datetime(
        2026, 1, 2, 1, 4, 5, tzinfo=dt.UTC
    )


def test_a_message_writes_out_the_fields_it_names_as_judged() -> None:
    rule = compiled(
        "x", "mandatory", "member", None, "!member.administrative", "{username} ({roles}) {x", []
    )
    after = {
        "member": [("Member/ann", {"username": "ann", "administrative": True, "roles": ("a", "b")})]
    }
    [verdict] = judge([rule], {}, after, NOW, {})
    assert verdict.message == "ann (a, b) {x"
    # A cured verdict is said as it was before the plan.
    before = {"member": [("Member/bo", {"username": "bo", "administrative": True, "roles": ()})]}
    after = {"member": [("Member/bo", {"username": "bo", "administrative": False, "roles": ()})]}
    [cured] = judge([rule], before, after, NOW, {})
    assert (cured.status, cured.message) == (Status.CURED, "bo () {x")
