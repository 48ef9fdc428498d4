"""Seeding and listing at scale: the member listing's order is kept between pages instead
of sorted for each one (a full read of 100,000 members was quadratic: a page cost 36x more
than at 1,000), and the state file is read once (it was parsed a second time just to look
for `clock:`, 4 of the 8.8 s before a service of 100,000 members listened)."""

from __future__ import annotations

from pathlib import Path

import pytest

from orgctl_service.seed import load_state_file
from orgctl_service.world import World
from reconciler.cli.serve import world_ticks
from reconciler.errors import UserError

CLOCK = "clock: 2026-11-01T00:00:00Z\n"
STATE = (
    CLOCK
    + """\
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
)


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


def seeded(tmp_path: Path, state_text: str) -> World:
    state = tmp_path / "state.yaml"
    state.write_text(state_text)
    world = load_state_file(state)
    state.unlink()  # what decides must be the world, not a second reading of the file
    return world


def test_a_seeded_world_with_a_clock_stands_still(tmp_path: Path) -> None:
    assert world_ticks(tmp_path / "state.yaml", seeded(tmp_path, STATE)) is False


def test_a_seeded_world_without_a_clock_ticks(tmp_path: Path) -> None:
    no_clock = STATE.removeprefix(CLOCK)
    assert world_ticks(tmp_path / "state.yaml", seeded(tmp_path, no_clock)) is True


def test_a_world_from_the_database_asks_the_state_file(tmp_path: Path) -> None:
    state = tmp_path / "state.yaml"
    state.write_text(STATE)
    assert world_ticks(state, World(clock=0)) is False
    assert world_ticks(None, World(clock=0)) is True


def test_a_custom_role_named_like_a_prebuilt_one_is_refused(tmp_path: Path) -> None:
    """The pre-built Viewer is in every portal: a custom `viewer` beside it would make the
    roles listing name two roles alike, which no real organization answers."""
    state = tmp_path / "state.yaml"
    state.write_text(STATE + "    roles:\n      - {id: r1, name: viewer, privileges: []}\n")
    with pytest.raises(UserError, match=r"'iAAAAAAAAAAAAAAA' and 'r1' are both named 'viewer'"):
        load_state_file(state)
