"""The five-minute tour behind `make demo`.

Starts the reference service with the demo state on a free loopback port, then for each
example portal: validate, plan, apply, and plan again (nothing left to do). Finally it
changes a role by hand through the API, as someone clicking in the portal would, and
shows `orgctl drift` catching it. The service stops at the end, whatever happens.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.parse
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ORGCTL = [sys.executable, "-m", "reconciler"]
STATE = ROOT / "examples" / "demo" / "state.yaml"
EXAMPLES = ("hq", "field", "cloud")
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


def orgctl(args: Sequence[str], env: dict[str, str], allowed: Sequence[int] = (0,)) -> int:
    print(f"$ orgctl {' '.join(args)}", flush=True)
    code = subprocess.run([*ORGCTL, *args], env=env, cwd=ROOT, check=False).returncode
    if code not in allowed:
        raise SystemExit(f"orgctl {args[0]} exited {code}")
    return code


def change_by_hand(base: str) -> None:
    """Give the Analyst role on hq an extra privilege, outside orgctl."""
    rest = f"{base}/hq/sharing/rest"
    token = post(
        rest + "/generateToken",
        {
            "username": "admin",
            "password": "admin-pass",
            "client": "requestip",
            "expiration": "60",
        },
    )["token"]
    roles = get(rest + "/portals/self/roles", token)["roles"]
    analyst = next(r for r in roles if r["name"] == "Analyst")
    privileges = sorted({*analyst["privileges"], "portal:user:shareToPublic"})
    post(
        f"{rest}/portals/0123456789abcdef/roles/{analyst['id']}/setPrivileges",
        {"privileges": json.dumps({"privileges": privileges})},
        token,
    )
    print("  Analyst on hq may now share to the public (portal:user:shareToPublic).")


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
    banner("Done: the service is stopped. Next: README.md, 'A five-minute tour'.")


if __name__ == "__main__":
    main()
