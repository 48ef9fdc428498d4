"""orgctl reads a portal's release from whichever field the portal gives."""

from __future__ import annotations

import pytest

from reconciler.live.records import portal_info


@pytest.mark.parametrize(
    ("fields", "release"),
    [
        ({"currentVersion": "6.2", "fullVersion": "10.6.1"}, "10.6.1"),
        ({"currentVersion": "6.2"}, "10.6.1"),  # the REST version alone
        ({"currentVersion": "2024.1", "enterpriseVersion": "11.3.0"}, "11.3"),
        ({"currentVersion": "10.3"}, "11.1"),  # REST 10.3 is release 11.1, not 10.3
        ({"currentVersion": "8.2"}, "10.8.1"),
    ],
)
def test_self_hosted_release(fields: dict[str, str], release: str) -> None:
    info = portal_info({"id": "p", "isPortal": True, **fields}, "https://p.example.com")
    assert str(info.platform.release) == release


def test_hosted_cloud_release_from_either_field() -> None:
    given = portal_info({"isPortal": False, "fullVersion": "2026-06"}, "u")
    assert str(given.platform.release) == "2026-06"
    rest_only = portal_info({"isPortal": False, "currentVersion": "2026.6"}, "u")
    assert str(rest_only.platform.release) == "2026-06"
