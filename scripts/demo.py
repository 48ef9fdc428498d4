"""The five-minute tour behind `make demo`.

Starts the reference service with the demo state on a free loopback port, then for each
example portal: validate, plan, apply, and plan again (nothing left to do). Then it
changes a role by hand through the API, as someone clicking in the portal would, and
shows `orgctl drift` catching it. Last, the fleet of `examples/fleet` (a shared base and
three portals, each with an overlay): validate it, render one portal, plan the fleet,
apply each portal, drift the fleet, and catch a hand change on one portal. The service
stops at the end, whatever happens.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.parse
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from reconciler.environment import variable_stem

ROOT = Path(__file__).resolve().parents[1]
ORGCTL = [sys.executable, "-m", "reconciler"]
STATE = ROOT / "examples" / "demo" / "state.yaml"
EXAMPLES = ("hq", "field", "cloud")
FLEET = "examples/fleet"
# Each fleet portal's Portal name and the demo portal (urlKey) that serves it.
FLEET_PORTALS = {"fleet-hq": "hq", "fleet-field": "field", "fleet-cloud": "cloud"}
READY = re.compile(r"http://127\.0\.0\.1:(\d+)")
CREDENTIALS = {"ORGCTL_USERNAME": "admin", "ORGCTL_PASSWORD": "admin-pass"}


def banner(text: str) -> None:
    print(f"\n\033[1m=== {text}\033[0m" if sys.stdout.isatty() else f"\n=== {text}", flush=True)


@contextmanager
def reference_service() -> Iterator[str]:
    """Run `orgctl serve` on a free port; yield its base URL; always stop it."""
    process = subprocess.Popen(
        [*ORGCTL, "serve", "--state", str(STATE), "--port", "0", "--host", "127.0.0.1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
    )
    try:
        assert process.stdout is not None
        for line in process.stdout:
            match = READY.search(line)
            if match:
                print(f"  {line.strip()}")
                yield f"http://127.0.0.1:{match.group(1)}"
                return
        raise SystemExit("orgctl serve stopped before it was ready")
    finally:
        process.terminate()
        process.wait(timeout=10)


def environment(base: str, portal: str) -> dict[str, str]:
    return {
        **os.environ,
        **CREDENTIALS,
        "ORGCTL_PORTAL_URL": f"{base}/{portal}/sharing/rest",
        "ORGCTL_ADMIN_URL": f"{base}/{portal}/admin",
    }


def fleet_environment(base: str) -> dict[str, str]:
    """Each fleet portal pointed at this service by its own URL variables: a fleet run
    refuses the plain ORGCTL_PORTAL_URL, which would send every portal to one address."""
    env = {
        k: v for k, v in os.environ.items() if k not in ("ORGCTL_PORTAL_URL", "ORGCTL_ADMIN_URL")
    }
    env.update(CREDENTIALS)
    for name, url_key in FLEET_PORTALS.items():
        stem = variable_stem(name)
        env[f"{stem}_PORTAL_URL"] = f"{base}/{url_key}/sharing/rest"
        env[f"{stem}_ADMIN_URL"] = f"{base}/{url_key}/admin"
    return env


def orgctl(args: Sequence[str], env: dict[str, str], allowed: Sequence[int] = (0,)) -> int:
    """Run orgctl as a user would (a page written with -o leaves one line on stdout)."""
    print(f"$ orgctl {' '.join(args)}", flush=True)
    code = subprocess.run([*ORGCTL, *args], env=env, cwd=ROOT, check=False).returncode
    if code not in allowed:
        raise SystemExit(f"orgctl {args[0]} exited {code}")
    return code


def change_by_hand(base: str, portal: str = "hq", role: str = "Analyst") -> None:
    """Give a role an extra privilege, outside orgctl."""
    rest = f"{base}/{portal}/sharing/rest"
    token = post(
        rest + "/generateToken",
        {
            "username": "admin",
            "password": "admin-pass",
            "client": "requestip",
            "expiration": "60",
        },
    )["token"]
    portal_id = get(rest + "/portals/self", token)["id"]
    roles = get(f"{rest}/portals/{portal_id}/roles", token)["roles"]
    found = next(r for r in roles if r["name"] == role)
    privileges = sorted({*found["privileges"], "portal:user:shareToPublic"})
    post(
        f"{rest}/portals/{portal_id}/roles/{found['id']}/setPrivileges",
        {"privileges": json.dumps({"privileges": privileges})},
        token,
    )
    print(f"  {role} on {portal} may now share to the public (portal:user:shareToPublic).")


def post(url: str, form: dict[str, str], token: str | None = None) -> dict[str, Any]:
    data = urllib.parse.urlencode({**form, "f": "json"}).encode()
    return _send(urllib.request.Request(url, data=data, method="POST"), token)


def get(url: str, token: str) -> dict[str, Any]:
    query = urllib.parse.urlencode({"f": "json", "returnPrivileges": "true", "num": "100"})
    return _send(urllib.request.Request(f"{url}?{query}"), token)


def _send(request: urllib.request.Request, token: str | None) -> dict[str, Any]:
    if token:
        request.add_header("X-Esri-Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=10) as response:  # loopback only
        body: dict[str, Any] = json.load(response)
    if "error" in body:
        raise SystemExit(f"the service refused {request.full_url}: {body['error']}")
    return body


def main() -> None:
    banner("Starting the reference service with examples/demo/state.yaml")
    with reference_service() as base:
        for portal in EXAMPLES:
            env = environment(base, portal)
            folder = f"examples/{portal}"
            banner(f"Portal {portal}: validate, plan, apply, plan again")
            orgctl(["validate", folder], env)
            orgctl(["plan", folder], env)
            orgctl(["apply", folder, "--auto-approve"], env)
            orgctl(["plan", folder, "--detailed-exitcode"], env)
        banner("Someone changes a role by hand in the portal")
        change_by_hand(base)
        banner("orgctl drift notices (exit code 2 means drift)")
        code = orgctl(["drift", "examples/hq"], environment(base, "hq"), allowed=(2,))
        print(f"  drift exited {code}: the portal no longer matches examples/hq.")
        access_review(base)
        fleet(base)
    banner("Done: the service is stopped. Next: README.md, 'A five-minute tour'.")


def access_review(base: str) -> None:
    env = environment(base, "hq")
    banner("Who holds an administrative privilege, and through which role (orgctl access)")
    orgctl(["access", "examples/hq", "--privilege", "portal:admin:*"], env)
    page = Path(tempfile.gettempdir()) / "orgctl-demo-access.html"
    banner("The whole access review as a page to sort and filter in a browser")
    orgctl(["access", "examples/hq", "--format", "html", "-o", str(page)], env)
    print(f"  open {page} in a browser.")


def fleet(base: str) -> None:
    env = fleet_environment(base)
    banner(f"A fleet: {FLEET} (a base and three portals with overlays), validated")
    orgctl(["validate", FLEET], env)
    banner("What plan will use for one portal: the base, patched by its overlay")
    orgctl(["render", f"{FLEET}/hq", "--show-origin"], env)
    banner("Plan the fleet: each portal on its own, concurrently (exit 2: changes)")
    orgctl(["plan", FLEET, "--jobs", "3", "--detailed-exitcode"], env, allowed=(2,))
    for name in FLEET_PORTALS:
        folder = f"{FLEET}/{name.removeprefix('fleet-')}"
        banner(f"Apply {folder}")
        orgctl(["apply", folder, "--auto-approve"], env)
    banner("Drift of the fleet: all in sync")
    orgctl(["drift", FLEET], env)
    banner("Someone changes Fleet Viewer by hand on the field portal")
    change_by_hand(base, "field", "Fleet Viewer")
    code = orgctl(["drift", FLEET], env, allowed=(2,))
    print(f"  drift of the fleet exited {code}: one portal drifted, the others in sync.")


if __name__ == "__main__":
    main()
