"""Every command's --help ends with examples to copy and the environment it reads."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from reconciler.cli import COMMANDS, cli

# Commands that talk to a portal read its credentials, URLs and TLS settings.
TALKS_TO_A_PORTAL = {"access", "adopt", "apply", "drift", "export", "force-unlock", "plan"}


def help_of(name: str) -> str:
    done = CliRunner().invoke(cli, [name, "--help"], terminal_width=100)
    assert done.exit_code == 0, done.output
    return done.output


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_has_an_example_of_the_command_and_its_environment(name: str) -> None:
    text = help_of(name)
    examples = text.split("Examples:", 1)[1].split("Environment:", 1)[0]
    runnable = [line.strip() for line in examples.splitlines() if line.strip()]
    assert runnable and all(line.startswith("orgctl ") for line in runnable), examples
    assert any(line.startswith(f"orgctl {name}") for line in runnable), examples
    environment = text.split("Environment:", 1)[1]
    assert environment.strip(), f"{name} names no variable (nor says it reads none)"
    if name in TALKS_TO_A_PORTAL:
        assert "ORGCTL_TOKEN" in environment and "ORGCTL_CA_BUNDLE" in environment


def test_every_command_of_the_group_is_covered() -> None:
    group_commands = cli.list_commands(click.Context(cli))
    assert sorted(group_commands) == sorted(COMMANDS)
    assert set(group_commands) >= TALKS_TO_A_PORTAL
