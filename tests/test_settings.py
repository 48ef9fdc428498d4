"""One table of ORGCTL_* variables: every name the code and the README spell is a row of
it, only `reconciler/settings.py` (and its named exceptions) reads the environment, and
the README's table and `orgctl --help` are made from it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

import reconciler
from reconciler import settings
from reconciler.cli import cli
from reconciler.errors import UserError
from reconciler.settings import TABLE, Settings, Variable, is_row, markdown_table, setting
from tests.cli import env_with, orgctl

ROOT = Path(reconciler.__file__).resolve().parents[1]
README = ROOT / "README.md"
NAME = re.compile(r"ORGCTL_[A-Z0-9_]*[A-Z0-9]")
# Nothing listens here: a command that reached the network would say "unreachable".
UNUSED_URL = "http://127.0.0.1:9/hq/sharing/rest"


def environment_reads(source: str) -> list[int]:
    """The lines of `source` that touch the process's environment: `os.environ`,
    `os.getenv`, `environ` or `getenv` imported from `os`, `os.putenv`."""
    touching = {"environ", "getenv", "putenv"}
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in touching:
            named_os = isinstance(node.value, ast.Name) and node.value.id == "os"
            lines += [node.lineno] if named_os else []
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            lines += [node.lineno] if {a.name for a in node.names} & touching else []
    return lines


def test_the_scan_sees_each_way_of_reading_the_environment() -> None:
    assert environment_reads("import os\nx = os.environ['A']") == [2]
    assert environment_reads("import os\nx = os.getenv('A')") == [2]
    assert environment_reads("from os import environ as e\n") == [1]
    assert environment_reads("from os import getenv\n") == [1]
    assert environment_reads("environ = {}\nx = environ.get('A')") == []


def test_only_the_named_modules_read_the_environment() -> None:
    readers = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "reconciler").rglob("*.py")
        if environment_reads(path.read_text(encoding="utf-8"))
    }
    assert readers == set(settings.EXCEPTIONS)


def _names_in(*paths: Path) -> dict[str, str]:
    """Each ORGCTL_* name spelled in the files under `paths`, and a file spelling it."""
    names: dict[str, str] = {}
    files = [p for path in paths for p in ([path] if path.is_file() else path.rglob("*.py"))]
    for file in files:
        for name in NAME.findall(file.read_text(encoding="utf-8")):
            names.setdefault(name, file.relative_to(ROOT).as_posix())
    return names


def test_every_variable_the_code_and_the_readme_name_is_a_row() -> None:
    names = _names_in(ROOT / "reconciler", ROOT / "orgctl_service", README)
    assert len(names) > 20  # the scan reads what it should
    strays = {name: where for name, where in names.items() if not is_row(name)}
    assert strays == {}


def test_a_portal_named_variable_is_a_row_and_a_stranger_is_not() -> None:
    assert is_row("ORGCTL_FIELD_OFFICE_TOKEN")
    assert is_row("ORGCTL_HQ_PASSWORD_FILE")
    assert not is_row("ORGCTL_TIMEOUT")


def test_each_row_is_named_once() -> None:
    names = [row.name for row in TABLE]
    assert len(names) == len(set(names))


def test_orgctl_help_names_every_variable_orgctl_reads_and_no_value() -> None:
    secret = "s3cret-value-never-shown"
    done = CliRunner().invoke(cli, ["--help"], env={"ORGCTL_TOKEN": secret}, terminal_width=100)
    assert done.exit_code == 0, done.output
    epilog = done.output.split("Environment", 1)[1]
    for row in TABLE:
        assert (row.name in epilog) == (row.reader == "orgctl"), row.name
    assert secret not in done.output


def test_settings_hold_parsed_values_and_show_no_secret() -> None:
    given = Settings.read(
        {
            "ORGCTL_TOKEN": "tok-123",
            "ORGCTL_REQUEST_TIMEOUT": "2m",
            "ORGCTL_MAX_ANSWER_SIZE": "500KB",
            "ORGCTL_LOCK_LEASE": " 90s ",
            "ORGCTL_NOTIFY_URL": "https://hooks.example.com/T0/B0/abc",
            "ORGCTL_PORTAL_URL": "",
        }
    )
    assert (given.token, given.request_timeout, given.max_answer_size) == (
        "tok-123",
        120.0,
        500_000,
    )
    assert (given.lock_lease, given.portal_url) == (90.0, None)
    assert "tok-123" not in repr(given) and "hooks.example.com" not in repr(given)


@pytest.mark.parametrize(
    ("variable", "value", "said"),
    [
        ("ORGCTL_REQUEST_TIMEOUT", "abc", "ORGCTL_REQUEST_TIMEOUT: 'abc' is not a duration"),
        ("ORGCTL_MAX_PAGES", "0", "ORGCTL_MAX_PAGES: must be more than 0, got '0'"),
        ("ORGCTL_LOCK_LEASE", "2h", "ORGCTL_LOCK_LEASE: '2h' is not a lease period"),
    ],
)
def test_a_bad_value_is_one_error_naming_its_variable(variable: str, value: str, said: str) -> None:
    with pytest.raises(UserError) as caught:
        Settings.read({variable: value})
    assert str(caught.value).startswith(said)


def test_a_bad_secret_is_named_but_never_repeated() -> None:
    row = Variable("ORGCTL_X", "a secret number", "count", secret=True, parse=settings.parse_count)
    with pytest.raises(UserError) as caught:
        setting(row, {"ORGCTL_X": "hunter2"})
    assert str(caught.value) == "ORGCTL_X: not a valid count"


@pytest.mark.parametrize(
    ("variable", "value", "said"),
    [
        # Read when the command starts: a typo in the lease a later apply takes fails the
        # plan that comes first, before any portal is read.
        (
            "ORGCTL_LOCK_LEASE",
            "soon",
            "'soon' is not a lease period from 3s to 1h (like 90s or 10m)",
        ),
        ("ORGCTL_REQUEST_TIMEOUT", "abc", "'abc' is not a duration like 45s, 2m or 1m30s"),
    ],
)
def test_a_bad_value_stops_a_command_at_once_without_a_traceback(
    tmp_path: Path, variable: str, value: str, said: str
) -> None:
    env = env_with(ORGCTL_TOKEN="t", ORGCTL_PORTAL_URL=UNUSED_URL, **{variable: value})
    done = orgctl("plan", ROOT / "examples" / "hq", env=env, cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [f"Error: {variable}: {said}"]


def test_the_readme_table_is_the_settings_table() -> None:
    text = README.read_text(encoding="utf-8")
    between = text.split(settings.README_START, 1)[1].split(settings.README_END, 1)[0]
    assert between.strip("\n") == markdown_table().strip("\n"), (
        "run: python scripts/settings_table.py"
    )
