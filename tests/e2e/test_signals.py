"""Ctrl-C (SIGINT) and SIGTERM during apply and at its prompt (README: interrupting
apply): no call is started after the signal, the calls in flight finish (or, after a
second signal, are told unknown), every outcome is journaled, the summary is printed, the
lock is released, and apply exits 130 or 143 without a traceback."""

from __future__ import annotations

import contextlib
import json
import os
import pty
import select
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from orgctl_service.testing.proxy import FaultyProxy
from reconciler.apply.lock import KEY
from reconciler.testing import env_with
from tests.cli import orgctl_command

from .bulk import (
    PORTAL,
    SEEDED,
    Running,
    bulk_manifests,
    bulk_state,
    journal_events,
    unanswered_starts,
    wait_for_done,
)
from .harness import EXAMPLES, Serve, World
from .test_apply_lock import lease

pytestmark = pytest.mark.e2e

SIGNALS = [
    pytest.param(signal.SIGINT, 130, id="SIGINT"),
    pytest.param(signal.SIGTERM, 143, id="SIGTERM"),
]


def lease_kept(world: World) -> bool:
    api = world.api(PORTAL)
    keys = [r["key"] for r in api.listing("portals/self/resources", "resources")]
    return KEY in keys


def assert_ended_cleanly(applying: Running, events: list[dict[str, object]]) -> None:
    assert "Traceback" not in applying.output and "Task was destroyed" not in applying.output
    assert unanswered_starts(events) == []  # every call started has its outcome


@pytest.mark.parametrize(("signum", "code"), SIGNALS)
def test_a_signal_during_apply_stops_it_cleanly(
    serve: Serve, tmp_path: Path, signum: signal.Signals, code: int
) -> None:
    world = serve(bulk_state(tmp_path, 300))
    journal = tmp_path / "apply.jsonl"
    args: list[str | Path] = [
        "apply",
        bulk_manifests(tmp_path, 300),
        "--auto-approve",
        "--journal",
        journal,
    ]
    applying = Running([*args, "--parallelism", "2"], world.env(PORTAL), tmp_path)
    wait_for_done(journal, 20, applying)
    applying.process.send_signal(signum)
    signalled = time.monotonic()
    assert applying.wait(60) == code, applying.output
    after = applying.since(signalled)

    events = journal_events(journal)
    assert_ended_cleanly(applying, events)
    not_sent = [e for e in events if e["event"] == "not-sent"]
    assert len(not_sent) > 100, applying.output
    assert f"interrupted by {signum.name}" in str(not_sent[-1]["error"])
    summary = [line for line in after if line.startswith("Apply: ")]
    assert summary and "not sent" in summary[0], applying.output
    assert after[-1] == f"Error: interrupted by {signum.name}; run apply again to converge"
    assert len(after) < 20, "\n".join(after)
    assert not lease_kept(world)  # released


def test_a_second_ctrl_c_stops_waiting_for_calls_in_flight(serve: Serve, tmp_path: Path) -> None:
    world = serve(bulk_state(tmp_path, 100))
    journal = tmp_path / "apply.jsonl"
    args: list[str | Path] = [
        "apply",
        bulk_manifests(tmp_path, 100),
        "--auto-approve",
        "--journal",
        journal,
    ]
    # The proxy holds the first setPrivileges: a call in flight that never finishes.
    with FaultyProxy(world.service.url, stall=("/setPrivileges",)) as proxy:
        env = world.env(PORTAL)
        env["ORGCTL_PORTAL_URL"] = f"{proxy.url}/{PORTAL}/sharing/rest"
        applying = Running([*args, "--parallelism", "2"], env, tmp_path)
        assert proxy.stalled.wait(60), applying.output
        wait_for_done(journal, 5, applying)
        applying.process.send_signal(signal.SIGINT)
        time.sleep(1.0)
        assert applying.process.poll() is None, applying.output  # waiting for the held call
        applying.process.send_signal(signal.SIGINT)
        assert applying.wait(30) == 130, applying.output

    events = journal_events(journal)
    assert_ended_cleanly(applying, events)
    unknown = [e for e in events if e["event"] == "unknown"]
    assert len(unknown) == 1, applying.output
    assert "may or may not have taken effect" in str(unknown[0]["error"])
    assert "Interrupted again (SIGINT)" in applying.output
    assert not lease_kept(world)


def interrupted_at_the_prompt(
    args: list[str], env: dict[str, str], cwd: Path, signum: signal.Signals
) -> tuple[int | None, str]:
    """The real CLI on a pseudo-terminal, sent `signum` once it asks to apply; its exit
    code (None when it was still running 15 s later) and everything it printed."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        orgctl_command(args), env=env, cwd=cwd, stdin=terminal, stdout=terminal, stderr=terminal
    )
    os.close(terminal)
    output = b""
    signalled = False
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            if select.select([controller], [], [], 0.2)[0]:
                try:
                    chunk = os.read(controller, 4096)
                except OSError:  # the terminal closed: the process has exited
                    break
                if not chunk:
                    break
                output += chunk
            if not signalled and b"Apply these calls?" in output:
                time.sleep(0.3)  # the prompt is reading the terminal
                process.send_signal(signum)
                signalled = True
                deadline = time.monotonic() + 15
            if process.poll() is not None and not select.select([controller], [], [], 0.2)[0]:
                break
        try:  # the terminal closes as the process ends: wait for its exit code
            code: int | None = process.wait(max(deadline - time.monotonic(), 0.1))
        except subprocess.TimeoutExpired:
            code = None
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
        os.close(controller)
    return code, output.decode(errors="replace")


@pytest.mark.parametrize(("signum", "code"), SIGNALS)
def test_the_first_signal_at_the_prompt_cancels(
    serve: Serve, tmp_path: Path, signum: signal.Signals, code: int
) -> None:
    world = serve(bulk_state(tmp_path, 5))
    args = ["apply", str(bulk_manifests(tmp_path, 5))]
    exit_code, output = interrupted_at_the_prompt(args, world.env(PORTAL), tmp_path, signum)
    assert "Apply these calls?" in output
    assert exit_code == code, output
    assert f"apply cancelled ({signum.name}); nothing was sent" in output
    assert "Traceback" not in output
    ours = {n: r for n, r in world.api(PORTAL).roles().items() if n.startswith("Role ")}
    assert len(ours) == 5
    assert all(sorted(role["privileges"]) == sorted(SEEDED) for role in ours.values()), ours
    assert not lease_kept(world)


def test_a_signal_while_waiting_for_the_lock_ends_the_wait(serve: Serve, tmp_path: Path) -> None:
    world = serve(bulk_state(tmp_path, 5))
    held = json.dumps(lease("cccc2222dddd3333"))
    world.api(PORTAL).post("portals/self/addResource", key=KEY, text=held, access="orgprivate")
    args: list[str | Path] = ["apply", bulk_manifests(tmp_path, 5), "--auto-approve"]
    waiting = Running([*args, "--lock-timeout", "1m"], world.env(PORTAL), tmp_path)
    deadline = time.monotonic() + 30
    while not any("The portal is locked" in line for _, line in waiting.lines):
        assert time.monotonic() < deadline and waiting.process.poll() is None, waiting.output
        time.sleep(0.05)
    waiting.process.send_signal(signal.SIGINT)
    assert waiting.wait(15) == 130, waiting.output
    assert "Traceback" not in waiting.output
    last = waiting.output.splitlines()[-1]
    assert last == "Error: interrupted by SIGINT before any call was sent"
    assert lease_kept(world)  # the other apply's lease is left alone


class SilentPortal:
    """A loopback listener that accepts connections and never answers: a read in flight
    for as long as the test likes."""

    def __init__(self) -> None:
        self._socket = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._socket.getsockname()[1]}"
        self.accepted = threading.Event()
        self._held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        with contextlib.suppress(OSError):  # closed by the test
            while True:
                connection, _ = self._socket.accept()
                self._held.append(connection)
                self.accepted.set()

    def close(self) -> None:
        self._socket.close()
        for connection in self._held:
            connection.close()


@pytest.mark.parametrize("command", ["plan", "drift", "access"])
def test_ctrl_c_during_a_read_ends_a_reading_command_with_130(tmp_path: Path, command: str) -> None:
    """Ctrl-C while plan, drift or access waits for the portal: at once, exit 130 as
    apply's, one line saying so, no traceback (it was click's "Aborted." and exit 1, the
    code of an error)."""
    portal = SilentPortal()
    try:
        env = env_with(
            ORGCTL_PORTAL_URL=f"{portal.url}/hq/sharing/rest",
            ORGCTL_ADMIN_URL=f"{portal.url}/hq/admin",
            ORGCTL_USERNAME="admin",
            ORGCTL_PASSWORD="never-sent-anywhere-else",
        )
        reading = Running([command, EXAMPLES / "hq"], env, tmp_path)
        assert portal.accepted.wait(30), reading.output
        reading.process.send_signal(signal.SIGINT)
        assert reading.wait(15) == 130, reading.output
    finally:
        portal.close()
    assert "Traceback" not in reading.output and "Aborted" not in reading.output
    assert reading.output.splitlines()[-1] == "Interrupted (SIGINT); nothing was changed."
