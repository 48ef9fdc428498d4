"""A file orgctl cannot write (`plan -o`, `drift -o`, `apply --journal`) is one clear line
naming it, found before the portal is read or anything is sent; never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from .harness import EXAMPLES, World, closed_port, output_of

pytestmark = pytest.mark.e2e

HQ = EXAMPLES / "hq"
# (how the path is broken, the OS reason the message must give)
BROKEN = [("missing-folder", "No such file or directory"), ("folder-is-a-file", "Not a directory")]


def broken_path(workdir: Path, how: str, name: str) -> Path:
    """A path whose folder is missing, or is a regular file (root may write anywhere else,
    so permissions cannot stand in for these)."""
    if how == "missing-folder":
        return workdir / "missing" / name
    blocker = workdir / "blocker"
    blocker.write_text("a file, not a folder\n")
    return blocker / name


def unreachable_env(demo: World) -> dict[str, str]:
    env = demo.env("hq")
    port = closed_port()
    env["ORGCTL_PORTAL_URL"] = f"http://127.0.0.1:{port}/hq/sharing/rest"
    env["ORGCTL_ADMIN_URL"] = f"http://127.0.0.1:{port}/hq/admin"
    return env


def assert_one_line_naming(result_stderr: str, path: Path, reason: str, shown: str) -> None:
    lines = [line for line in result_stderr.splitlines() if line.strip()]
    assert len(lines) == 1, shown
    assert str(path) in lines[0] and reason in lines[0], shown
    assert "Traceback" not in result_stderr, shown


@pytest.mark.parametrize("command", ["plan", "drift"])
@pytest.mark.parametrize(("how", "reason"), BROKEN, ids=[b[0] for b in BROKEN])
def test_an_output_file_that_cannot_be_written_fails_before_anything_is_printed(
    demo: World, command: str, how: str, reason: str
) -> None:
    out = broken_path(demo.workdir, how, "out.json")
    result = demo.orgctl(command, HQ, "-o", out, portal="hq")
    assert result.returncode == 1, output_of(result)
    assert result.stdout == "", output_of(result)
    assert_one_line_naming(result.stderr, out, reason, output_of(result))


@pytest.mark.parametrize(("how", "reason"), BROKEN, ids=[b[0] for b in BROKEN])
def test_a_journal_that_cannot_be_opened_sends_nothing(demo: World, how: str, reason: str) -> None:
    api = demo.api("hq")
    before = api.snapshot()
    journal = broken_path(demo.workdir, how, "journal.jsonl")
    result = demo.orgctl("apply", HQ, "--auto-approve", "--journal", journal, portal="hq")
    assert result.returncode == 1, output_of(result)
    assert_one_line_naming(result.stderr, journal, reason, output_of(result))
    assert result.stdout == "", output_of(result)  # refused before the plan is shown
    assert api.snapshot() == before


@pytest.mark.parametrize("command", ["plan", "drift"])
def test_checking_the_output_file_leaves_no_file_when_the_portal_fails(
    demo: World, command: str
) -> None:
    out = demo.workdir / "new.json"
    result = demo.orgctl(command, HQ, "-o", out, portal="hq", env=unreachable_env(demo))
    assert result.returncode == 1, output_of(result)
    assert not out.exists(), output_of(result)


@pytest.mark.parametrize("command", ["plan", "drift"])
def test_checking_the_output_file_keeps_an_earlier_one_when_the_portal_fails(
    demo: World, command: str
) -> None:
    out = demo.workdir / "earlier.json"
    out.write_text("the earlier report\n")
    result = demo.orgctl(command, HQ, "-o", out, portal="hq", env=unreachable_env(demo))
    assert result.returncode == 1, output_of(result)
    assert out.read_text() == "the earlier report\n"


@pytest.mark.parametrize("command", ["plan", "drift"])
def test_the_output_file_is_written_after_the_check(demo: World, command: str) -> None:
    out = demo.workdir / "report.json"
    out.write_text("an earlier, longer report that must not show through\n" * 50)
    result = demo.orgctl(command, HQ, "--format", "json", "-o", out, portal="hq")
    assert result.returncode in (0, 2), output_of(result)
    printed = demo.orgctl(command, HQ, "--format", "json", portal="hq")
    assert out.read_text() == printed.stdout, output_of(result)
