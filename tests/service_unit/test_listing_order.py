"""The member listing's order is kept between pages instead of sorted for each one (a
full read of 100,000 members was quadratic: a page cost 36x more than at 1,000)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.errors import UserError
from reconciler.service.seed import load_state_file

STATE = """\
clock: 2026-11-01T00:00:00Z
portals:
  - id: 0123456789abcdef
    urlKey: hq
    name: HQ
    deployment: self-hosted
    version: "11.3"
    users:
      - {username: admin, password: admin-pass, role: org_admin, defaultAdmin: true}
      - {username: Carol, password: p, role: org_user}
      - {username: bob, password: p, role: org_user}
"""


def test_the_sorted_order_is_kept_until_the_members_change(tmp_path: Path) -> None:
    state = tmp_path / "state.yaml"
    state.write_text(STATE)
    world = load_state_file(state)
    portal = world.portals["0123456789abcdef"]
    first = world.sorted_usernames(portal)
    assert first == ["admin", "bob", "Carol"]  # case-insensitive, as the listing pages
    assert world.sorted_usernames(portal) is first, "sorted again for the next page"
    portal["users"]["aaron"] = {**portal["users"]["bob"], "username": "aaron"}
    assert world.sorted_usernames(portal) == ["aaron", "admin", "bob", "Carol"]


def test_a_state_file_with_a_duplicate_key_names_its_line(tmp_path: Path) -> None:
    state = tmp_path / "state.yaml"
    state.write_text(STATE.replace("    name: HQ\n", "    name: HQ\n    name: Other\n"))
    with pytest.raises(
        UserError, match=r"state\.yaml:6:5: duplicate key .name. \(first at line 5\)"
    ):
        load_state_file(state)
