"""A portal with many roles and manifests that change each: an apply of `calls`
setPrivileges calls, one per role, each idempotent. For the tests that stop an apply in
the middle (a killed portal, a refused token, a signal, a lost lock)."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from tests.cli import CLI_TIMEOUT_SECONDS, orgctl_command

from .harness import ADMIN

PORTAL = "bulk"
SEEDED = ["portal:user:joinGroup", "portal:user:viewOrgItems", "portal:user:viewOrgUsers"]
WANTED = ["portal:user:joinGroup", "portal:user:viewOrgItems", "portal:user:createItem"]


def bulk_state(directory: Path, roles: int) -> Path:
    """The state file of one portal holding `roles` custom roles."""
    lines = [
        "clock: 2026-11-01T00:00:00Z",
        "portals:",
        "  - id: 0123456789abcdef",
        f"    urlKey: {PORTAL}",
        "    name: Bulk",
        "    deployment: self-hosted",
        '    version: "11.3"',
        "    users:",
        f"      - {{username: {ADMIN[0]}, password: {ADMIN[1]}, role: org_admin,"
        " defaultAdmin: true}",
        "    roles:",
    ]
    lines += [
        f"      - {{id: r{i:013d}, name: Role {i:04d}, description: d, privileges: {SEEDED}}}"
        for i in range(roles)
    ]
    path = directory / "bulk-state.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def bulk_manifests(directory: Path, roles: int) -> Path:
    """Manifests giving each of the `roles` roles other privileges: `roles` calls."""
    folder = directory / "bulk"
    folder.mkdir()
    (folder / "portal.yaml").write_text(
        "apiVersion: orgctl/v1\nkind: Portal\nmetadata: {name: bulk}\n"
        "spec: {url: http://127.0.0.1:8080/bulk/sharing/rest, deployment: self-hosted,"
        " version: '11.3',\n"
        "       auth: {usernameEnv: ORGCTL_USERNAME, passwordEnv: ORGCTL_PASSWORD}}\n"
    )
    documents = [
        f"apiVersion: orgctl/v1\nkind: Role\nmetadata: {{name: Role {i:04d}}}\n"
        f"spec: {{description: d, privileges: {WANTED}}}\n"
        for i in range(roles)
    ]
    (folder / "roles.yaml").write_text("---\n".join(documents))
    return folder


# The line ApplyLog prints as a resource's last call is done.
_DONE = re.compile(r"^\S.*: done, \d+ calls? in [\d.]+s$")


def _as_a_foreground_job() -> None:
    """The child starts with Ctrl-C's default, as a command typed at a terminal does. A
    process started with SIGINT ignored keeps it ignored, as a background job must (POSIX),
    and a test runner's worker may ignore it: the child would then never see the test's
    Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Running:
    """The real CLI in a subprocess, its output (stdout and stderr, merged) read line by
    line as it comes, each line with the moment it arrived, so a test can tell what was
    printed after it did something (killed the portal, sent a signal)."""

    def __init__(self, args: list[str | Path], env: dict[str, str], cwd: Path) -> None:
        self.lines: list[tuple[float, str]] = []
        self.process = subprocess.Popen(
            orgctl_command([str(a) for a in args]),
            env=env,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            preexec_fn=_as_a_foreground_job,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append((time.monotonic(), line.rstrip("\n")))

    def wait(self, timeout: float = CLI_TIMEOUT_SECONDS) -> int:
        try:
            code = self.process.wait(timeout)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait(10)
        self._reader.join(10)
        return code

    def since(self, moment: float) -> list[str]:
        """The lines read from `moment` on, less those telling a resource done: under load
        the reader lags, and calls finished before `moment` may be read after it."""
        return [line for at, line in self.lines if at >= moment and not _DONE.match(line)]

    @property
    def output(self) -> str:
        return "\n".join(line for _, line in self.lines)


def journal_events(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.endswith("}")]


def wait_for_done(path: Path, count: int, process: Running, timeout: float = 60.0) -> None:
    """Return once the journal at `path` tells `count` calls done."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = [e for e in journal_events(path) if e["event"] == "done"]
        if len(done) >= count:
            return
        if process.process.poll() is not None:
            raise AssertionError(f"apply ended before {count} calls were done:\n{process.output}")
        time.sleep(0.02)
    raise AssertionError(f"{count} calls were not done within {timeout}s:\n{process.output}")


def unanswered_starts(events: list[dict[str, Any]]) -> list[int]:
    """Calls the journal says were started and never given an outcome."""
    outcomes = {"done", "failed", "skipped", "not-sent", "unknown"}
    started = {e["seq"] for e in events if e["event"] == "start"}
    ended = {e["seq"] for e in events if e["event"] in outcomes}
    return sorted(started - ended)
