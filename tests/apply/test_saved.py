"""How `apply --plan` names what differs between a plan file and a plan made now."""

from __future__ import annotations

from reconciler.apply.saved import differences, listed

CALL = {"seq": 1, "address": "Role/A", "url": "https://p/roles/r1/delete", "params": {}}


def test_each_differing_leaf_is_named_by_its_path() -> None:
    saved = {"calls": [{**CALL, "url": "https://p/roles/r2/delete"}], "summary": {"delete": 0}}
    fresh = {"calls": [CALL], "summary": {"delete": 1}}
    found = [p for part in saved for p in differences(saved[part], fresh[part], part)]
    assert found == ["calls[0].url", "summary.delete"]


def test_a_missing_or_extra_item_and_a_changed_type_are_named() -> None:
    assert list(differences([CALL], [CALL, CALL], "calls")) == ["calls[1]"]
    assert list(differences({"seq": "1"}, {"seq": 1}, "calls[0]")) == ["calls[0].seq"]
    assert list(differences(None, [], "allowedDeletes")) == ["allowedDeletes"]
    assert list(differences([CALL], [dict(CALL)], "calls")) == []


def test_paths_are_grouped_by_the_change_or_call_they_lie_in_with_its_address() -> None:
    document = {"calls": [CALL]}
    paths = ["calls[0].url", "calls[0].params.role", "summary.delete", "calls[1]"]
    shown = listed(paths, document, {"calls": [CALL, {**CALL, "address": "Member/b"}]})
    assert shown == ("calls[0].{url, params.role} (Role/A), summary.delete, calls[1] (Member/b)")


def test_a_long_list_is_cut_with_a_count() -> None:
    paths = [f"calls[{i}].url" for i in range(13)]
    assert listed(paths).endswith("calls[9].url and 3 more")
