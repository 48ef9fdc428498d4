"""How long validating manifests takes, and what untrusted YAML costs (benchmarks/README.md).

Writes, in a temporary folder: a Portal with 1,000 roles and 1k, 10k and 100k members; a
1 MB members file; and an alias bomb. Prints the median of three `validate` runs of each,
in this process (the work `orgctl validate` and `orgctl plan` do before any request).
Targets: any input up to 1 MB validates in under 2 s; 100,000 members load in 3 s.

Run: .venv/bin/python benchmarks/load_manifests.py
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import reconciler.kinds  # noqa: F401  (the built-in kinds, as the CLI loads them)
from reconciler.manifest import validate
from reconciler.runtime import tune_garbage_collector

PORTAL = """apiVersion: orgctl/v1
kind: Portal
metadata: {name: bench}
spec:
  url: https://gis.example.com/portal/sharing/rest
  deployment: self-hosted
  version: "10.6.1"
  auth: {tokenEnv: ORGCTL_TOKEN}
"""
BOMB = """apiVersion: orgctl/v1
kind: Role
metadata: {name: Bomb}
spec: {description: x}
a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
""" + "\n".join(
    f"{n}: &{n} [{', '.join(['*' + p] * 9)}]" for p, n in zip("abcdefgh", "bcdefghi", strict=True)
)


def roles(count: int) -> str:
    return "".join(
        f"---\napiVersion: orgctl/v1\nkind: Role\nmetadata: {{name: Role {i}}}\n"
        f"spec: {{description: r, privileges: [portal:user:joinGroup, portal:user:viewOrgItems]}}\n"
        for i in range(count)
    )


def members(count: int) -> str:
    rows = "".join(f"    user{i:06d}: {{role: Role {i % 1000}, level: 2}}\n" for i in range(count))
    return (
        f"apiVersion: orgctl/v1\nkind: Members\nmetadata: {{name: all}}\nspec:\n  members:\n{rows}"
    )


def folder(root: Path, name: str, files: dict[str, str]) -> Path:
    target = root / name
    target.mkdir()
    for file, text in {"portal.yaml": PORTAL, **files}.items():
        (target / file).write_text(text)
    return target


def median_seconds(action: Callable[[], object], runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        one_mb = members(23_000)
        cases = {
            "1,000 roles + 1,000 members": {"roles.yaml": roles(1000), "m.yaml": members(1000)},
            "1,000 roles + 10,000 members": {"roles.yaml": roles(1000), "m.yaml": members(10_000)},
            "1,000 roles + 100,000 members": {
                "roles.yaml": roles(1000),
                "m.yaml": members(100_000),
            },
            f"one members file of {len(one_mb) / 1e6:.2f} MB": {"m.yaml": one_mb},
            f"alias bomb ({len(BOMB)} bytes)": {"bomb.yaml": BOMB},
        }
        print(f"{'input':<36} {'validate (median of 3)':>24}")
        for label, files in cases.items():
            path = folder(root, str(len(list(root.iterdir()))), files)
            seconds = median_seconds(lambda path=path: validate(path, {}))  # type: ignore[misc]
            print(f"{label:<36} {seconds:>22.2f} s")


if __name__ == "__main__":
    tune_garbage_collector()  # as the orgctl process does
    main()
