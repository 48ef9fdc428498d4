"""A broken or hostile portal (README: limits of a portal's answers), played by a proxy in
front of `orgctl serve` that misbehaves on one path: it cannot steer a write to another
URL or resource, hang orgctl, or exhaust its memory. Each run ends with one clear line
naming the URL and what was wrong, within its limit, and no write reaches a wrong URL.

Limits are set small (by flag or variable) where the default would take long; the
default figures are measured by benchmarks/hostile_portal.py.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from orgctl_service.testing.hostile import CASES, HostileProxy, trickled
from tests.cli import orgctl_command

from .harness import EXAMPLES, World, output_of

pytestmark = pytest.mark.e2e

HQ = EXAMPLES / "hq"
MIB = 1 << 20
# The lock and the sign-in: the only writes an apply may send when its plan has errors.
HARMLESS_WRITES = ("/generateToken", "/addResource", "/removeResource")
NOISE = ("Traceback", "Task was destroyed", "Task exception", "RecursionError", "MemoryError")


def through(world: World, case: str) -> HostileProxy:
    return HostileProxy.of(world.service.url, CASES[case])


def run(
    world: World, proxy: HostileProxy, *args: str | Path, **variables: str
) -> tuple[subprocess.CompletedProcess[str], float]:
    """The CLI as its own process (so all it prints at exit is seen), through the proxy;
    the result and its wall time."""
    env = world.env("hq")
    env["ORGCTL_PORTAL_URL"] = f"{proxy.url}/hq/sharing/rest"
    env["ORGCTL_ADMIN_URL"] = f"{proxy.url}/hq/admin"
    env.update(variables)
    began = time.monotonic()
    done = subprocess.run(
        orgctl_command([str(a) for a in args]),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=env,
        cwd=world.workdir,
        timeout=90,
    )
    return done, time.monotonic() - began


def assert_one_line(result: subprocess.CompletedProcess[str], *fragments: str) -> str:
    """Exit 1 and a single line on stderr holding every fragment; no traceback or noise."""
    shown = output_of(result)
    assert result.returncode == 1, shown
    for noise in NOISE:
        assert noise not in shown, shown
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, shown
    for fragment in fragments:
        assert fragment in lines[0], shown
    return lines[0]


def assert_clean(result: subprocess.CompletedProcess[str], *fragments: str) -> None:
    """Exit 1, every fragment said somewhere, no traceback or noise (an apply's report)."""
    shown = output_of(result)
    assert result.returncode == 1, shown
    for noise in NOISE:
        assert noise not in shown, shown
    for fragment in fragments:
        assert fragment in shown, shown


def assert_only_harmless_writes(proxy: HostileProxy) -> None:
    writes = proxy.writes()
    assert all(w.endswith(HARMLESS_WRITES) for w in writes), writes


def roles_of(world: World) -> dict[str, dict[str, Any]]:
    return world.api("hq").roles()


# --- ids that would steer a write ------------------------------------------------------


def test_a_role_listed_with_the_id_dot_dot_is_an_error_and_nothing_is_written(
    demo: World,
) -> None:
    """Before: Analyst's updateRole went to `portals/<id>/update` (the organization's own
    Update on a real portal) and its setPrivileges to `portals/<id>/setPrivileges`."""
    before = roles_of(demo)
    with through(demo, "role id ..") as proxy:
        result, _ = run(demo, proxy, "apply", HQ, "--auto-approve")
        assert proxy.hostile_answers
    assert_clean(result, 'Role/Analyst: id: ".." is not an id (a dot segment')
    assert_only_harmless_writes(proxy)
    assert roles_of(demo) == before


def test_a_role_listed_under_another_roles_id_is_an_error_naming_both(demo: World) -> None:
    """Before: Analyst's update and setPrivileges went to Legacy Viewer, which the same
    apply then deleted; the real Analyst was untouched."""
    before = roles_of(demo)
    with through(demo, "role under another's id") as proxy:
        result, _ = run(demo, proxy, "apply", HQ, "--auto-approve")
    assert_clean(
        result,
        "the portal listed Role/Analyst and Role/Legacy Viewer with the same id 'r0000000000002'",
    )
    assert_only_harmless_writes(proxy)
    assert roles_of(demo) == before


@pytest.mark.parametrize(
    ("case", "said"),
    [("portals/self id ..", '"..", not an id'), ("portals/self id a list", '["0123"], not an id')],
)
def test_a_portal_id_that_is_no_id_stops_before_any_read_uses_it(
    demo: World, case: str, said: str
) -> None:
    """Before: `..` sent every read to `sharing/rest/collaborations` and the like, and a
    list was quoted into every path as `%5B%270123%27%5D`."""
    with through(demo, case) as proxy:
        result, _ = run(demo, proxy, "plan", HQ)
    assert_one_line(result, "portals/self with the id", said)
    paths = [s.path for s in proxy.seen]
    assert not [p for p in paths if "/portals/" not in p and p.endswith("/collaborations")]
    assert not [p for p in paths if "%5B" in p or "/portals/../" in p], paths


def test_create_role_answering_an_id_that_is_a_list_sends_nothing_with_it(demo: World) -> None:
    """Before: `…/roles/%5B%27…%27%5D/setPrivileges` was sent."""
    with through(demo, "createRole id a list") as proxy:
        result, _ = run(demo, proxy, "apply", HQ, "--auto-approve")
        assert proxy.hostile_answers == 1
    assert_clean(result, "${Role/Field Analyst.id} is [", "a JSON array, not a string")
    writes = proxy.writes()
    assert not [w for w in writes if "%5B" in w or "%27" in w], writes
    field_analyst = roles_of(demo)["Field Analyst"]  # created: the portal did that much
    assert field_analyst["privileges"] == []
    assert demo.api("hq").members()["alice"].get("roleId") != field_analyst["id"]


# --- answers that would hang orgctl or exhaust its memory ------------------------------


def test_a_trickled_answer_ends_at_the_request_deadline(demo: World) -> None:
    """One byte every 0.5 s never trips the per-read timeout; before, orgctl waited on
    it for as long as the answer lasted (the issue's 2 s a byte: forever)."""
    with HostileProxy(demo.service.url, "/roles", trickled(0.5)) as proxy:
        result, wall = run(demo, proxy, "plan", HQ, "--request-timeout", "3s")
    assert_one_line(
        result,
        "/hq/sharing/rest/portals/self/roles did not finish its answer within the request"
        " deadline of 3 s (--request-timeout or ORGCTL_REQUEST_TIMEOUT)",
    )
    assert wall < 20


def test_a_next_start_that_goes_back_ends_the_listing(demo: World) -> None:
    """Before: 124,020 requests in 90 s, and no output."""
    with through(demo, "nextStart back to 1") as proxy:
        result, wall = run(demo, proxy, "plan", HQ)
    assert_one_line(result, "/roles answered nextStart 1 after the page at 1", "never ends")
    assert proxy.hostile_answers <= 5 and wall < 20


def test_a_listing_that_never_ends_stops_at_the_page_limit(demo: World) -> None:
    with through(demo, "a listing that never ends") as proxy:
        result, wall = run(demo, proxy, "plan", HQ, ORGCTL_MAX_PAGES="20")
    assert_one_line(
        result,
        "/roles went on listing past the limit of 20 pages (--max-pages or ORGCTL_MAX_PAGES)",
    )
    assert proxy.hostile_answers <= 24 and wall < 20


def test_a_total_of_a_billion_is_refused_before_its_pages_are_asked(demo: World) -> None:
    with through(demo, "total 10**9") as proxy:
        result, _ = run(demo, proxy, "plan", HQ)
    assert_one_line(result, "says its listing holds 1,000,000,000 entries", "6,000 pages")
    assert proxy.hostile_answers <= 5  # page 1, and the pages asked with it


def test_an_endless_body_is_cut_at_the_size_limit(demo: World) -> None:
    with through(demo, "an endless body") as proxy:
        result, wall = run(demo, proxy, "plan", HQ, ORGCTL_MAX_ANSWER_SIZE="1MiB")
    assert_one_line(
        result,
        "/roles answered more than the answer size limit of 1 MiB (--max-answer-size or"
        " ORGCTL_MAX_ANSWER_SIZE): it went on past it",
    )
    assert wall < 20


def test_a_huge_body_is_refused_by_its_declared_length(demo: World) -> None:
    """Before: a 100 MB body took 555 MB of memory; the default limit refuses it unread."""
    with through(demo, "a 100 MB body") as proxy:
        result, _ = run(demo, proxy, "plan", HQ)
    assert_one_line(result, "answer size limit of 16 MiB", "it declares 104,857,600 bytes")


def test_two_million_privileges_in_a_role_are_cut_at_the_default_size_limit(
    demo: World,
) -> None:
    """Before: 1.55 GB of memory, then MemoryError tracebacks and 2.5 M "Task was
    destroyed" lines."""
    with through(demo, "2,000,000 privileges") as proxy:
        result, _ = run(demo, proxy, "plan", HQ)
    assert_one_line(result, "/roles answered more than the answer size limit of 16 MiB")


def test_json_nested_100000_deep_is_one_line_not_a_recursion_error(demo: World) -> None:
    with through(demo, "JSON 100,000 deep") as proxy:
        result, _ = run(demo, proxy, "plan", HQ)
    assert_one_line(
        result,
        "/roles answered JSON nested deeper than the depth limit of 64 (--max-json-depth or"
        " ORGCTL_MAX_JSON_DEPTH)",
    )


def test_a_redirect_names_its_location(demo: World) -> None:
    with through(demo, "a 302") as proxy:
        result, _ = run(demo, proxy, "plan", HQ)
    assert_one_line(result, "answered HTTP 302, a redirect to https://idp.example.com/adfs/ls;")
