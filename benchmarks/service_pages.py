"""The reference service's listing pages and seeding at scale (benchmarks/README.md):
one page of the member listing must cost about the same at 100,000 members as at 1,000
(goal: within 1.5x), so reading a whole portal is linear, not quadratic.

Starts `orgctl serve` on a generated state of N members (the time until it listens is
the seeding), then times GET portals/self/users pages from the middle of the listing:
the median of 50, in milliseconds, one client, HTTP on loopback included.

Run: .venv/bin/python benchmarks/service_pages.py [--members 1000 100000]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import httpx
from plan_requests import issued_token, state_yaml
from serving import serving

PAGE = 100


def measure(members: int) -> tuple[float, float]:
    """(seconds until the service listens, median ms of one users page)."""
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state.yaml"
        state.write_text(state_yaml(members, 10))
        with serving(state) as served:
            page = _page_ms(f"{served.origin}/big/sharing/rest", members)
            return served.seconds_to_listen, page


def _page_ms(root: str, members: int) -> float:
    with httpx.Client(timeout=60) as client:
        headers = {"X-Esri-Authorization": f"Bearer {issued_token(root)}", "Referer": root}
        params: dict[str, str | int] = {
            "start": max(1, min(members // 2, members - PAGE)),
            "num": PAGE,
            "f": "json",
        }
        url = f"{root}/portals/self/users"
        timings = []
        for _ in range(50):
            begun = time.perf_counter()
            answer = client.get(url, params=params, headers=headers).json()
            timings.append((time.perf_counter() - begun) * 1000)
            assert len(answer["users"]) == PAGE, answer
        return statistics.median(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--members", type=int, nargs="+", default=[1_000, 100_000])
    sizes = parser.parse_args().members
    results = {n: measure(n) for n in sizes}
    for n, (seeded, page) in results.items():
        print(
            f"{n:>7,} members: seeded and listening in {seeded:5.1f} s; users page {page:6.2f} ms"
        )
    if len(sizes) > 1:
        ratio = results[sizes[-1]][1] / results[sizes[0]][1]
        print(f"users page at {sizes[-1]:,} / at {sizes[0]:,} members: {ratio:.2f}x (goal <= 1.5x)")


if __name__ == "__main__":
    main()
