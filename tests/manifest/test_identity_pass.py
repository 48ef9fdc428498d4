"""Loading builds one record of the keys a document declares (its usernames, a role's
name), for the name rules and the duplicate check both: at 100,000 members a record per
username cost a fifth of a second, and a second one per username most of a half second.
Counted, not timed: calls into `Identities`' constructor."""

from __future__ import annotations

import sys
from pathlib import Path
from types import FrameType
from typing import Any

from reconciler.kind import Identities
from reconciler.manifest import validate
from tests.manifest.conftest import members_document

PORTAL = """apiVersion: orgctl/v1
kind: Portal
metadata: {name: hq}
spec:
  url: https://gis.example.com/portal/sharing/rest
  deployment: self-hosted
  version: "10.6.1"
  auth: {tokenEnv: ORGCTL_TOKEN}
"""
ROLES = "".join(
    f"---\napiVersion: orgctl/v1\nkind: Role\nmetadata: {{name: Role {i}}}\n"
    "spec: {description: r, privileges: [portal:user:joinGroup]}\n"
    for i in range(3)
)


def identities_built(path: Path) -> int:
    constructor = Identities.__init__.__code__
    count = 0

    def counted(frame: FrameType, event: str, _arg: Any) -> None:
        nonlocal count
        if event == "call" and frame.f_code is constructor:
            count += 1

    sys.setprofile(counted)
    try:
        _documents, problems = validate(path, {"ORGCTL_TOKEN": "t"})
    finally:
        sys.setprofile(None)
    assert problems == [], problems
    return count


def test_a_documents_usernames_are_one_record(tmp_path: Path) -> None:
    (tmp_path / "portal.yaml").write_text(PORTAL)
    (tmp_path / "roles.yaml").write_text(ROLES)
    entries = "".join(f"    user{i:03d}: {{role: Role {i % 3}, level: 2}}\n" for i in range(30))
    (tmp_path / "members.yaml").write_text(members_document(entries))
    assert identities_built(tmp_path) == 1 + 3  # the Members document, each Role


def test_a_username_declared_twice_across_documents_is_still_found(tmp_path: Path) -> None:
    (tmp_path / "portal.yaml").write_text(PORTAL)
    (tmp_path / "a.yaml").write_text(members_document("    alice: {level: 2}\n", "a"))
    (tmp_path / "b.yaml").write_text(members_document("    alice: {level: 1}\n", "b"))
    problems = [str(p) for p in validate(tmp_path, {"ORGCTL_TOKEN": "t"})[1]]
    assert any("username 'alice' is declared twice" in p and "a.yaml" in p for p in problems), (
        problems
    )
