"""Apply through a faulty proxy until the portal matches the manifests, and what it took.

Each run is `orgctl apply --auto-approve` through the proxy, then `orgctl plan
--detailed-exitcode` straight to the service (no faults), which is the judge: exit 0 means
converged, 2 that changes are left. orgctl's chaos tests and benchmarks/faults.py share it,
so the figures the benchmark prints are those the tests assert on.
"""

from __future__ import annotations

import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from orgctl_service.testing.chaos import ChaosProxy
from orgctl_service.testing.service import PortalApi
from reconciler.testing import orgctl, output_of

URL_VARIABLES = ("ORGCTL_PORTAL_URL", "ORGCTL_ADMIN_URL")


@dataclass
class Convergence:
    applies: list[subprocess.CompletedProcess[str]] = field(default_factory=list)
    checks: list[subprocess.CompletedProcess[str]] = field(default_factory=list)
    requests: int = 0  # through the proxy, over every apply
    converged: bool = False

    @property
    def runs(self) -> int:
        return len(self.applies)

    def outputs(self) -> list[str]:
        return [output_of(result) for result in (*self.applies, *self.checks)]

    def tracebacks(self) -> list[str]:
        return [shown for shown in self.outputs() if "Traceback" in shown]

    def describe(self) -> str:
        """Every run's output, for a failing assertion."""
        return "\n".join(
            f"=== apply {n}\n{output_of(a)}\n=== plan after it\n{output_of(c)}"
            for n, (a, c) in enumerate(zip(self.applies, self.checks, strict=False), start=1)
        )


def through(env: dict[str, str], service_url: str, proxy_url: str) -> dict[str, str]:
    """`env` (pointing orgctl at the service) pointed at the proxy in front of it instead."""
    return {
        name: value.replace(service_url, proxy_url, 1) if name in URL_VARIABLES else value
        for name, value in env.items()
    }


def apply_until_converged(
    example: Path,
    env: dict[str, str],
    service_url: str,
    proxy: ChaosProxy,
    max_runs: int,
    cwd: Path | None = None,
) -> Convergence:
    """Up to `max_runs` applies of `example` through `proxy`, until a plan without faults
    finds nothing to do. `env` points orgctl at the service itself."""
    faulty = through(env, service_url, proxy.url)
    outcome = Convergence()
    before = proxy.requests
    while outcome.runs < max_runs and not outcome.converged:
        outcome.applies.append(orgctl("apply", example, "--auto-approve", env=faulty, cwd=cwd))
        check = orgctl("plan", example, "--detailed-exitcode", env=env, cwd=cwd)
        outcome.checks.append(check)
        if check.returncode not in (0, 2):
            raise AssertionError(f"a plan without faults failed:\n{output_of(check)}")
        outcome.converged = check.returncode == 0
    outcome.requests = proxy.requests - before
    return outcome


def duplicate_roles(api: PortalApi) -> dict[str, int]:
    """Role names held by more than one role (a createRole sent twice), from the listing."""
    roles = api.listing(f"portals/{api.portal_id}/roles", "roles")
    counts = Counter(str(role["name"]) for role in roles)
    return {name: count for name, count in counts.items() if count > 1}
