"""Load of the reference service over loopback: requests/second for one read and one write.

Starts `orgctl serve` on a free port with the demo state (examples/demo), then for
`--seconds` drives `GET portals/<pid>/roles` and, separately, `POST .../setPrivileges`
from `--clients` concurrent clients, and prints each rate. Not a test: figures depend on
the machine. Usage: `.venv/bin/python benchmarks/service_load.py --seconds 10 --clients 4`.
"""

from __future__ import annotations

import argparse
import functools
import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx
from serving import DEMO_STATE, timed_threads

from orgctl_service.testing.service import ADMIN, Api, PortalApi, Service

PRIVILEGE_SETS = [
    ["portal:user:viewOrgItems"],
    ["portal:user:viewOrgItems", "portal:user:createItem", "portal:user:joinGroup"],
]


def measure(
    name: str, seconds: float, clients: int, request: Callable[[httpx.Client, int], None]
) -> float:
    """Run `request` in `clients` threads for `seconds`; return completed requests/second."""
    deadline = time.perf_counter() + seconds
    counts = [0] * clients
    failures: list[str] = []

    def client(index: int) -> None:
        with httpx.Client(timeout=30) as http:
            while time.perf_counter() < deadline:
                try:
                    request(http, counts[index])
                except AssertionError as error:
                    failures.append(str(error))
                    return
                counts[index] += 1

    elapsed = timed_threads([functools.partial(client, i) for i in range(clients)])
    if failures:
        raise SystemExit(f"{name}: a request failed: {failures[0]}")
    rate = sum(counts) / elapsed
    print(f"{name:<40} {sum(counts):>7} requests  {rate:>8.1f} req/s  ({clients} clients)")
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as directory:
        folder = Path(directory)
        service = Service(folder / "state.sqlite", DEMO_STATE).start()
        api = Api(service.url)
        hq = PortalApi(api, "hq", *ADMIN)
        analyst = hq.roles()["Analyst"]["id"]
        headers = api.auth_headers("hq")
        roles_url = api.sharing("hq", f"portals/{hq.portal_id}/roles")
        privileges_url = api.sharing("hq", f"portals/{hq.portal_id}/roles/{analyst}/setPrivileges")

        def read(http: httpx.Client, _: int) -> None:
            params = {"f": "json", "num": "100", "returnPrivileges": "true"}
            body = http.get(roles_url, params=params, headers=headers).json()
            assert "roles" in body, body

        def write(http: httpx.Client, n: int) -> None:
            value = json.dumps({"privileges": PRIVILEGE_SETS[n % 2]})
            data = {"f": "json", "privileges": value}
            body = http.post(privileges_url, data=data, headers=headers).json()
            assert body.get("success") is True, body

        try:
            measure("read  GET portals/<pid>/roles", args.seconds, args.clients, read)
            measure("write POST roles/<rid>/setPrivileges", args.seconds, args.clients, write)
        finally:
            api.close()
            service.stop()


if __name__ == "__main__":
    main()
