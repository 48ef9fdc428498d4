"""Round trips and wall time of a plan against a large portal (benchmarks/README.md).

Seeds the reference service with 10,000 members and 1,000 roles, then plans manifests
that manage every role and every member's role. Target: the requests a plan makes are
within 10% of the page count (10,000 / 100 + 1,000 / 100 = 110 pages).

Run: .venv/bin/python benchmarks/plan_requests.py [--members N] [--roles N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path

import httpx
from serving import serving

import reconciler.kinds  # noqa: F401  (the built-in kinds, as the CLI loads them)
from reconciler.live.client import PortalClient
from reconciler.manifest.desired import load_desired
from reconciler.plan.planner import build_plan
from reconciler.runtime import tune_garbage_collector
from reconciler.workflow import plan_live

# The administrator `state_yaml` seeds, as the variables the manifests' Portal names.
CREDENTIALS = {"ORGCTL_USERNAME": "admin", "ORGCTL_PASSWORD": "admin-pass"}
PRIVILEGES = ["portal:user:joinGroup", "portal:user:viewOrgItems", "portal:user:viewOrgUsers"]


def state_yaml(members: int, roles: int) -> str:
    lines = [
        "clock: 2026-11-01T00:00:00Z",
        "portals:",
        "  - id: 0123456789abcdef",
        "    urlKey: big",
        "    name: Big",
        "    deployment: self-hosted",
        '    version: "11.3"',
        "    users:",
        "      - {username: admin, password: admin-pass, role: org_admin, defaultAdmin: true}",
    ]
    lines += [
        f"      - {{username: user{i:05d}, password: p, role: org_user}}" for i in range(members)
    ]
    lines.append("    roles:")
    lines += [
        f"      - {{id: r{i:013d}, name: Role {i:04d}, description: d, privileges: {PRIVILEGES}}}"
        for i in range(roles)
    ]
    return "\n".join(lines) + "\n"


def issued_token(root: str) -> str:
    """A token for the seeded administrator from the sharing root `root`, bound to it as
    the referer (send `Referer: root` with it)."""
    form = {"username": "admin", "password": "admin-pass", "referer": root, "f": "json"}
    token: str = httpx.post(f"{root}/generateToken", data=form).json()["token"]
    return token


def manifests(
    folder: Path, url: str, members: int, roles: int, privileges: list[str] = PRIVILEGES
) -> Path:
    """Manifests managing every role (with `privileges`) and every member's role."""
    folder.mkdir()
    (folder / "portal.yaml").write_text(
        "apiVersion: orgctl/v1\nkind: Portal\nmetadata: {name: big}\n"
        f"spec: {{url: {url}, deployment: self-hosted, version: '11.3',\n"
        "       auth: {usernameEnv: ORGCTL_USERNAME, passwordEnv: ORGCTL_PASSWORD}}\n"
    )
    role_docs = [
        f"apiVersion: orgctl/v1\nkind: Role\nmetadata: {{name: Role {i:04d}}}\n"
        f"spec: {{description: d, privileges: {privileges}}}\n"
        for i in range(roles)
    ]
    (folder / "roles.yaml").write_text("---\n".join(role_docs))
    member_lines = [f"    user{i:05d}: {{role: org_user}}" for i in range(members)]
    (folder / "members.yaml").write_text(
        "apiVersion: orgctl/v1\nkind: Members\nmetadata: {name: all}\nspec:\n  members:\n"
        + "\n".join(member_lines)
        + "\n"
    )
    return folder


async def measure(folder: Path) -> tuple[int, float, float, int]:
    os.environ.update(CREDENTIALS)
    desired = load_desired(folder, os.environ)
    client = PortalClient(desired.portal.url, auth=desired.portal.auth, env=os.environ)
    async with client:
        started = time.perf_counter()
        planned = await plan_live(client, desired)
        read_and_plan = time.perf_counter() - started
    started = time.perf_counter()
    build_plan(desired, planned.live)
    planning = time.perf_counter() - started
    return client.requests, read_and_plan, planning, len(planned.plan.calls)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--members", type=int, default=10_000)
    parser.add_argument("--roles", type=int, default=1_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state.yaml"
        state.write_text(state_yaml(args.members, args.roles))
        with serving(state) as served:
            url = f"{served.origin}/big/sharing/rest"
            folder = manifests(Path(tmp) / "manifests", url, args.members, args.roles)
            requests, wall, planning, calls = asyncio.run(measure(folder))
    pages = -(-args.members // 100) + -(-args.roles // 100)
    print(f"portal: {args.members} members, {args.roles} roles ({pages} pages of 100)")
    print(f"plan requests: {requests} ({requests / pages:.2f} x the page count; target <= 1.10)")
    print(f"read + plan wall time: {wall:.2f} s; planning alone: {planning * 1000:.0f} ms")
    print(f"calls planned: {calls} (the manifests match the portal: expected 0)")


if __name__ == "__main__":
    tune_garbage_collector()  # as the orgctl process does
    main()
