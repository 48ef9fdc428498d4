"""Every `rev:` the README and the pre-commit hooks file tell users to pin names a commit
or tag of this repository: pre-commit fails (exit 3) on a revision that does not exist."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PINNED_IN = ("README.md", ".pre-commit-hooks.yaml")
REV = re.compile(r"^[#\s-]*rev:\s*['\"]?([^\s'\"#]+)", re.MULTILINE)


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)


def _full_history() -> None:
    """Skip unless this is a git checkout with its whole history (a shallow clone, or a
    source archive, cannot tell whether an older commit exists)."""
    if shutil.which("git") is None or _git("rev-parse", "--git-dir").returncode != 0:
        pytest.skip("not a git checkout")
    if _git("rev-parse", "--is-shallow-repository").stdout.strip() == "true":
        pytest.skip("a shallow clone lacks older commits")


def revs(text: str) -> list[str]:
    return REV.findall(text)


def test_the_pattern_finds_a_rev_in_yaml_and_in_a_yaml_comment() -> None:
    text = "- repo: x\n  rev: v9.9.9\n#     rev: 'abc123'   # note\n"
    assert revs(text) == ["v9.9.9", "abc123"]


@pytest.mark.parametrize("name", PINNED_IN)
def test_every_pinned_rev_resolves_in_this_repository(name: str) -> None:
    _full_history()
    found = revs((ROOT / name).read_text())
    assert found, f"{name} names no rev: any more; drop it from PINNED_IN"
    missing = [r for r in found if _git("rev-parse", "--verify", f"{r}^{{commit}}").returncode]
    assert not missing, f"{name} pins revisions this repository does not have: {missing}"
