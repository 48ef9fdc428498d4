"""The `orgctl` command line: a thin click layer over library functions.

Each command lives in its own module and is imported only when it runs, so `orgctl
validate` never pays for the web stack that `orgctl serve` needs.
"""

from __future__ import annotations

import importlib
import sys

import click

from reconciler import __version__
from reconciler.errors import UserError

# command name -> "module:attribute" of its click.Command
COMMANDS: dict[str, str] = {
    "adopt": "reconciler.cli.adopt:command",
    "apply": "reconciler.cli.apply:command",
    "drift": "reconciler.cli.drift:command",
    "export": "reconciler.cli.export:command",
    "plan": "reconciler.cli.plan:command",
    "schema": "reconciler.cli.schema:command",
    "serve": "reconciler.cli.serve:command",
    "targets": "reconciler.cli.targets:command",
    "validate": "reconciler.cli.validate:command",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attribute = target.split(":")
        command: click.Command = getattr(importlib.import_module(module_name), attribute)
        return command

    def invoke(self, ctx: click.Context) -> object:
        # User errors end here, whoever called the group (console script or a test's
        # CliRunner): one message on stderr and exit 1; --debug keeps the traceback.
        try:
            return super().invoke(ctx)
        except UserError as exc:
            if ctx.params.get("debug"):
                raise
            click.echo(f"Error: {exc}", err=True)
            ctx.exit(exc.exit_code)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="orgctl")
@click.option("--debug", is_flag=True, help="Show tracebacks for errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Declare an organization portal's configuration in YAML; plan, apply, detect drift."""
    ctx.obj = {"debug": debug}


def main() -> None:
    # Usage errors exit 1 like every other user error (click's own default is 2, which
    # `plan --detailed-exitcode` and `drift` reserve for "there are changes").
    try:
        outcome = cli.main(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(1)
    except click.ClickException as exc:
        exc.show()
        sys.exit(1)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    # Without standalone mode click returns the code that ctx.exit() was given.
    sys.exit(outcome if isinstance(outcome, int) else 0)
