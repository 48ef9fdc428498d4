"""An organization webhook as portals list it: the vendor's reference names its state
`isActive`; an answer that says `active` is read the same way."""

from __future__ import annotations

import pytest

from reconciler.live import records


@pytest.mark.parametrize("key", ["isActive", "active"])
def test_a_deactivated_webhook_reads_as_inactive_under_either_key(key: str) -> None:
    assert records.webhook({"id": "w1", "name": "hook", key: False}).active is False
    assert records.webhook({"id": "w1", "name": "hook", key: True}).active is True


def test_isactive_wins_when_both_are_given() -> None:
    raw = {"id": "w1", "name": "hook", "isActive": False, "active": True}
    assert records.webhook(raw).active is False
