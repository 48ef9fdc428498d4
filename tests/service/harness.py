"""The service tests' states and their checks of the API's answers.

Starting `orgctl serve` and speaking its API (`Service`, `Api`) is the package's own
`orgctl_service.testing.service`, shared with the benchmarks; it is re-exported here so
the tests keep one place to import from.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from orgctl_service.testing.service import Api as Api
from orgctl_service.testing.service import Service as Service

STATES = Path(__file__).parent / "states"


HQ_ID = "0123456789abcdef"


def hq_state(
    version: str, users: list[dict[str, Any]], roles: list[dict[str, Any]], **portal: Any
) -> dict[str, Any]:
    """A state of one self-hosted portal, `hq`, at `version`, on the clock the named states
    start at; `portal` adds its other fields (webhooks, tasks, ...)."""
    hq = {"id": HQ_ID, "urlKey": "hq", "name": "Headquarters", "deployment": "self-hosted"}
    hq.update(version=version, users=users, roles=roles, **portal)
    return {"clock": "2026-11-01T06:00:00Z", "portals": [hq]}


def write_state(state: str | dict[str, Any], directory: Path) -> Path:
    """A state file in `directory`: a named file of `states/` or a dict built by a test."""
    if isinstance(state, str):
        source = STATES / f"{state}.yaml"
        target = directory / source.name
        target.write_text(source.read_text())
        return target
    target = directory / "state.yaml"
    with target.open("w") as out:
        YAML().dump(state, out)
    return target


def error_of(body: Any, code: int | None = None, message_code: str | None = None) -> dict[str, Any]:
    """The Sharing API error of `body`, asserting it is one (and its code and messageCode
    when given)."""
    assert isinstance(body, dict) and "error" in body, f"expected an error, got {body}"
    assert set(body) == {"error"}, f"the envelope has a single key, got {sorted(body)}"
    error = body["error"]
    assert set(error) >= {"code", "messageCode", "message", "details"}, error
    assert isinstance(error["details"], list), error
    if code is not None:
        assert error["code"] == code, error
    if message_code is not None:
        assert error["messageCode"] == message_code, error
    return dict(error)


def admin_error_of(body: Any, code: int | None = None) -> dict[str, Any]:
    """The admin root's error of `body`: `{"status": "error", "messages", "code"}`."""
    assert isinstance(body, dict) and body.get("status") == "error", body
    assert isinstance(body.get("messages"), list), body
    if code is not None:
        assert body.get("code") == code, body
    return dict(body)


def succeeded(body: Any) -> dict[str, Any]:
    assert isinstance(body, dict) and body.get("success") is True, body
    return dict(body)
