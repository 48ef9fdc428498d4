"""Reading a portal across a WAN (benchmarks/README.md): orgctl's read against the floor and
against reading it one resource at a time, at a fixed injected round-trip time.

Seeds `orgctl serve` with N members and 1,000 roles and puts a loopback proxy adding RTT
(`latency_proxy.py`, 20 ms by default) in front of it. Then, in the same run:
- orgctl's read of manifests managing every role and member (median wall of `--runs`,
  requests), once signing in with a username and password (generateToken: a round trip
  and the service's password hashing) and once given a token, as `tokenEnv` does;
- loading the same manifests (`load_desired`, median of `--runs`), against the read;
- the floor: pages / concurrency x RTT (each page needs one round trip and orgctl keeps
  `concurrency` requests in flight; sign-in and connection set-up are above the floor);
- the per-resource read an administrator's script does with the vendor client, one
  request after another on one kept-alive connection: the member listing's pages, then
  each member (`community/users/<name>`) and each role's privileges
  (`portals/self/roles/<id>/privileges`); `--sample K` reads only the first K members
  and roles, says so, and estimates the whole read from the time per request.

Run: .venv/bin/python benchmarks/latency.py [--members 10000] [--rtt-ms 20] [--sample K]
     [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path

import httpx
from latency_proxy import proxied
from plan_requests import CREDENTIALS, issued_token, manifests, state_yaml
from serving import serving

import reconciler.kinds  # noqa: F401  (the built-in kinds, as the CLI loads them)
from reconciler.live.client import PortalClient
from reconciler.live.reader import read_live
from reconciler.manifest.desired import load_desired
from reconciler.plan.planner import build_plan
from reconciler.runtime import tune_garbage_collector
from reconciler.state import Auth

ROLES = 1_000
CONCURRENCY = 8
PAGE = 100


async def orgctl_read(folder: Path, auth: Auth | None = None) -> tuple[float, int, int]:
    """(seconds, requests) of orgctl's read, sign-in included when `auth` (else the
    Portal's own) signs in, and the calls planned afterwards, outside the time, to check
    that the read was complete."""
    desired = load_desired(folder, os.environ)
    client = PortalClient(
        desired.portal.url,
        auth=auth or desired.portal.auth,
        env=os.environ,
        concurrency=CONCURRENCY,
    )
    async with client:
        started = time.perf_counter()
        live = await read_live(client, desired)
        seconds = time.perf_counter() - started
        plan = build_plan(desired, live, now=client.server_clock)
        return seconds, client.requests, len(plan.calls)


def median_read(folder: Path, auth: Auth | None, runs: int) -> tuple[float, int, int]:
    """The run of median wall among `runs` reads, each in a new client (new connections)."""
    reads = sorted(asyncio.run(orgctl_read(folder, auth)) for _ in range(runs))
    return reads[len(reads) // 2]


def median_loading(folder: Path, runs: int) -> float:
    """Median seconds of loading the manifests as plan does before it reads."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        load_desired(folder, os.environ)
        times.append(time.perf_counter() - started)
    return sorted(times)[len(times) // 2]


def per_resource_read(root: str, members: int, sample: int | None) -> tuple[float, int]:
    """(seconds, requests) of reading each resource in turn, as a script would."""
    started = time.perf_counter()
    requests = 0
    with httpx.Client(timeout=60) as client:
        params = {"f": "json", "token": issued_token(root)}
        names: list[str] = []
        for start in range(1, members + 2, PAGE):  # + the administrator
            page = client.get(
                f"{root}/portals/self/users", params={**params, "start": start, "num": PAGE}
            )
            names += [u["username"] for u in page.json()["users"]]
            requests += 1
        role_ids = [f"r{i:013d}" for i in range(ROLES)]
        for name in names[:sample]:
            client.get(f"{root}/community/users/{name}", params=params).raise_for_status()
            requests += 1
        for role_id in role_ids[:sample]:
            url = f"{root}/portals/self/roles/{role_id}/privileges"
            client.get(url, params=params).raise_for_status()
            requests += 1
    return time.perf_counter() - started, requests + 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--members", type=int, default=10_000)
    parser.add_argument("--rtt-ms", type=float, default=20.0)
    parser.add_argument("--sample", type=int, default=None)
    parser.add_argument("--runs", type=int, default=5, help="orgctl reads: the median of N")
    args = parser.parse_args()
    rtt = args.rtt_ms / 1000
    os.environ.update(CREDENTIALS)
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state.yaml"
        state.write_text(state_yaml(args.members, ROLES))
        with serving(state) as served, proxied(served.port, rtt) as port:
            root = f"http://127.0.0.1:{port}/big/sharing/rest"
            folder = manifests(Path(tmp) / "manifests", root, args.members, ROLES)
            loading = median_loading(folder, args.runs)
            signed_in = median_read(folder, None, args.runs)
            os.environ["ORGCTL_TOKEN"] = issued_token(root)
            given = median_read(folder, Auth(tokenEnv="ORGCTL_TOKEN"), args.runs)
            script, script_requests = per_resource_read(root, args.members, args.sample)
    pages = -(-(args.members + 1) // PAGE) + -(-ROLES // PAGE)
    floor = pages / CONCURRENCY * rtt
    print(
        f"portal: {args.members:,} members, {ROLES:,} roles ({pages} pages); RTT {args.rtt_ms:g} ms"
    )
    print(f"floor (pages / {CONCURRENCY} x RTT): {floor:.2f} s")
    for how, (wall, requests, calls) in (("signing in", signed_in), ("token given", given)):
        print(
            f"orgctl read, {how}: {wall:.2f} s, {requests} requests, {calls} calls planned;"
            f" / floor: {wall / floor:.2f}x"
        )
    print(
        f"loading the manifests: {loading:.2f} s;"
        f" / orgctl read signing in: {loading / signed_in[0]:.2f}x,"
        f" given a token: {loading / given[0]:.2f}x"
    )
    whole = members_and_roles_requests(args.members)
    if args.sample is not None:
        print(
            f"per-resource read (first {args.sample} members and roles): {script:.1f} s,"
            f" {script_requests} requests; the whole read ({whole:,} requests) at that pace:"
            f" {script / script_requests * whole:.0f} s (estimated)"
        )
        script = script / script_requests * whole
    else:
        print(f"per-resource read: {script:.1f} s, {script_requests} requests")
    print(f"per-resource / orgctl signing in: {script / signed_in[0]:.0f}x")


def members_and_roles_requests(members: int) -> int:
    """The per-resource read's requests: sign-in, pages, each member and each role."""
    return 1 + -(-(members + 1) // PAGE) + (members + 1) + ROLES


if __name__ == "__main__":
    tune_garbage_collector()  # as the orgctl process does
    main()
