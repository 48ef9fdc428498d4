"""Apply through random faults converges (issue 11, build 10): a seeded proxy answers a
share of requests with a gateway's HTML 5xx, the portal's JSON error envelope (in HTTP 200
and in HTTP 500), 429 with Retry-After, or drops the connection before or after the service
acted; apply is run again until a plan without faults finds nothing to do.

Each case names requests its seed faults (patterns over `Injected`: kind, status, method,
path), so it keeps testing what it was chosen for: a read answered 500, which a retry must
absorb (apply reaches its calls); a createRole without a usable reply, resolved by looking
the role up and sent again only when it is absent; a delete whose reply was lost, done when
the retry finds it gone. benchmarks/faults.py measures the same loop over many seeds.
"""

from __future__ import annotations

from fnmatch import fnmatchcase

import pytest

from orgctl_service.testing.chaos import HTML_5XX, JSON_5XX, MIXED, ChaosProxy, Fault, spread
from orgctl_service.testing.converge import apply_until_converged, duplicate_roles

from .harness import EXAMPLES, World

pytestmark = pytest.mark.e2e

# A create whose reply was unusable and which turns out absent is sent again in the same
# run (role names are unique, so a late first request cannot make a duplicate): over 10
# seeds (benchmarks/faults.py) every case converged in at most MAX_RUNS; the seeds below in one.
MAX_RUNS = 3

READ_500 = "*-5xx* 500 GET *"
CREATE = "*-5xx* * POST */createRole"
CASES = [
    # (example, faults, rate, seed, requests the seed faults)
    pytest.param("cloud", HTML_5XX, 0.10, 23, ["html-5xx 500 GET *", CREATE], id="html-10%"),
    pytest.param("cloud", HTML_5XX, 0.20, 7, ["html-5xx 500 GET *", CREATE], id="html-20%"),
    pytest.param(
        "cloud", JSON_5XX, 0.10, 2, ["json-5xx-200 * GET *", READ_500, CREATE], id="json-10%"
    ),
    pytest.param(
        "cloud", JSON_5XX, 0.20, 3, ["json-5xx-200 * GET *", READ_500, CREATE], id="json-20%"
    ),
    pytest.param("hq", MIXED, 0.20, 6, ["drop-after * POST */createRole"], id="mixed-20%-create"),
    pytest.param("hq", MIXED, 0.20, 57, ["drop-after * POST */delete"], id="mixed-20%-delete"),
]


@pytest.mark.parametrize(("example", "faults", "rate", "seed", "exercised"), CASES)
def test_apply_through_random_faults_converges_without_duplicates(
    demo: World,
    example: str,
    faults: tuple[Fault, ...],
    rate: float,
    seed: int,
    exercised: list[str],
) -> None:
    with ChaosProxy(demo.service.url, spread(faults, rate), seed, retry_after=0) as proxy:
        outcome = apply_until_converged(
            EXAMPLES / example, demo.env(example), demo.service.url, proxy, MAX_RUNS, demo.workdir
        )
    faulted = [str(injected) for injected in proxy.faulted]
    for pattern in exercised:
        assert any(fnmatchcase(f, pattern) for f in faulted), (
            f"seed {seed} no longer faults {pattern!r}; pick another: {faulted}"
        )

    # Converged, so nothing was lost: a plan without faults finds nothing to do.
    assert outcome.converged, f"not converged in {MAX_RUNS} runs\n{outcome.describe()}"
    assert not duplicate_roles(demo.api(example))
    assert not outcome.tracebacks(), outcome.tracebacks()[0]
    for applied, check in zip(outcome.applies, outcome.checks, strict=True):
        # Reads are retried whatever the fault: every run gets as far as sending calls.
        assert "Apply: " in applied.stdout, outcome.describe()
        # apply's verdict is the truth: 0 exactly when the portal matches the manifests.
        assert (applied.returncode == 0) == (check.returncode == 0), outcome.describe()
