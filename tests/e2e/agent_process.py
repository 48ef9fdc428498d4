"""Drive a real `orgctl agent` process: a Git repository made in tmp_path, the agent on
`--listen 127.0.0.1:0` (it prints the address it bound), its endpoints read over HTTP."""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from tests.cli import orgctl_command
from tests.e2e.harness import EXAMPLES, World

WAIT_SECONDS = 40.0  # an upper bound for a noisy machine, never a speed claim


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True,
        env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
             "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"},
    )  # fmt: skip
    return done.stdout.strip()


def repository(tmp_path: Path, portals: dict[str, Path] | None = None) -> Path:
    """A Git repository holding `portals/<name>` copies (examples/hq by default), on main."""
    repo = tmp_path / "repo"
    for name, folder in (portals or {"hq": EXAMPLES / "hq"}).items():
        shutil.copytree(folder, repo / "portals" / name)
    git(repo, "init", "--quiet", "--initial-branch", "main")
    commit(repo, "manifests")
    return repo


def commit(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "--quiet", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def edit(file: Path, old: str, new: str) -> None:
    text = file.read_text()
    assert old in text, old
    file.write_text(text.replace(old, new, 1))


def agent_env(world: World, **extra: str) -> dict[str, str]:
    return {**world.env("hq"), "ORGCTL_TRUSTED_ORIGINS": world.service.url, **extra}


class Agent:
    """A running `orgctl agent`; `close` sends SIGTERM and returns the exit code."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: Path) -> None:
        self.process = subprocess.Popen(
            orgctl_command(["agent", "--listen", "127.0.0.1:0", *args]),
            env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )  # fmt: skip
        self.url = self._bound_address()
        self.http = httpx.Client(base_url=self.url, timeout=10)

    def _bound_address(self) -> str:
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], WAIT_SECONDS)
        line = self.process.stdout.readline().decode() if ready else ""
        prefix = "orgctl agent listening on "
        if not line.startswith(prefix):
            self.process.kill()
            _, err = self.process.communicate()
            raise AssertionError(f"no address line: {line!r}\n{err.decode()}")
        return line[len(prefix) :].strip()

    def portals(self) -> dict[str, dict[str, Any]]:
        shown = self.http.get("/api/v1/portals").json()
        return {portal["name"]: portal for portal in shown["portals"]}

    def wait_for(self, what: str, check: Callable[[], bool]) -> None:
        end = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < end:
            if self.process.poll() is not None:
                raise AssertionError(f"the agent exited {self.process.returncode}: {self.stderr()}")
            if check():
                return
            time.sleep(0.2)
        raise AssertionError(f"never {what}: {json.dumps(self.portals())}\n{self.stderr()}")

    def wait_state(self, portal: str, state: str, revision: str | None = None) -> dict[str, Any]:
        def reached() -> bool:
            shown = self.portals().get(portal, {})
            return shown.get("state") == state and revision in (None, shown.get("revision"))

        self.wait_for(f"{portal} {state} at {revision}", reached)
        return self.portals()[portal]

    def close(self) -> int:
        self.http.close()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(WAIT_SECONDS)
        finally:
            if self.process.poll() is None:
                self.process.kill()
        return self.process.returncode

    def stderr(self) -> str:
        if self.process.poll() is None:
            return "(running)"
        assert self.process.stderr is not None
        return self.process.stderr.read().decode(errors="replace")
