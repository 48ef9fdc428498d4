"""Finding the portals of a fleet of 1,000 folders (what the agent does at each revision)
is linear: checking that every manifest is read compared each file with every portal
folder (155 s of wall time at 1,000 portals on a loaded machine). The CPU bound is about
8x what the linear finder takes, and below what the quadratic one took."""

from __future__ import annotations

import time
from pathlib import Path

from reconciler.fleet import find_targets

PORTALS = 1_000


def fleet(root: Path) -> None:
    (root / ".git").mkdir(parents=True)
    (root / "base").mkdir()
    (root / "base" / "roles.yaml").write_text(
        "apiVersion: orgctl/v1\nkind: Role\nmetadata: {name: Reader}\n"
        "spec: {description: d, privileges: [portal:user:joinGroup]}\n"
    )
    for p in range(PORTALS):
        folder = root / f"p{p:04d}"
        folder.mkdir()
        (folder / "portal.yaml").write_text(
            f"apiVersion: orgctl/v1\nkind: Portal\nmetadata: {{name: p{p:04d}}}\n"
            "spec: {url: 'https://p.example.com/portal/sharing/rest', deployment: self-hosted,"
            " version: '11.3', auth: {tokenEnv: ORGCTL_TOKEN}, include: [../base]}\n"
        )
        (folder / "members.yaml").write_text(
            "apiVersion: orgctl/v1\nkind: Members\nmetadata: {name: all}\nspec:\n  members:\n"
            "    someone: {role: Reader}\n"
        )


def test_a_thousand_portals_are_found_in_linear_time(tmp_path: Path) -> None:
    fleet(tmp_path)
    started = time.process_time()
    targets = find_targets(tmp_path)
    seconds = time.process_time() - started
    assert len(targets) == PORTALS
    assert seconds < 10, f"{seconds:.1f} s of CPU to find {PORTALS} portals"
