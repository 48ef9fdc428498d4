"""The `orgctl` command line: a thin click layer over library functions.

Each command lives in its own module and is imported only when it runs, so `orgctl
validate` never pays for the web stack that `orgctl serve` needs.
"""

from __future__ import annotations

import importlib
import sys

import click

from reconciler import __version__
from reconciler.cli import help
from reconciler.errors import UserError
from reconciler.runtime import leave_memory_to_the_system, tune_garbage_collector
from reconciler.shown import safe

# command name -> "module:attribute" of its click.Command
COMMANDS: dict[str, str] = {
    "access": "reconciler.cli.access:command",
    "adopt": "reconciler.cli.adopt:command",
    "agent": "reconciler.cli.agent:command",
    "apply": "reconciler.cli.apply:command",
    "certify": "reconciler.cli.certify:command",
    "doctor": "reconciler.cli.doctor:command",
    "drift": "reconciler.cli.drift:command",
    "export": "reconciler.cli.export:command",
    "force-unlock": "reconciler.cli.unlock:command",
    "plan": "reconciler.cli.plan:command",
    "policy": "reconciler.cli.policy:command",
    "render": "reconciler.cli.render:command",
    "schema": "reconciler.cli.schema:command",
    "serve": "reconciler.cli.serve:command",
    "targets": "reconciler.cli.targets:command",
    "test": "reconciler.cli.cases:command",
    "validate": "reconciler.cli.validate:command",
    "what-if": "reconciler.cli.what_if:command",
}


# command name -> the line `orgctl --help` shows, so listing the commands imports none
SUMMARIES: dict[str, str] = {
    "access": "Report who holds which privileges, administrative ones first.",
    "adopt": "Write live values of drifted resources into the manifests.",
    "agent": "Keep portals reconciled from Git: report drift, or self-heal.",
    "apply": "Converge the portal on the manifests (or on a saved --plan).",
    "certify": "Run a certification campaign: review files, close, evidence.",
    "doctor": "Check the live portal against orgctl's model of it (reads only).",
    "drift": "Report every difference between the portal and the manifests.",
    "export": "Read a live portal and write manifests that describe it.",
    "force-unlock": "Break the apply lock of a dead apply, by its lock ID.",
    "plan": "Show the ordered calls that would converge the portal.",
    "policy": "List the policies (rules in CEL) of a portal's manifests.",
    "render": "Print a portal's manifests after includes and overlays.",
    "schema": "Print the JSON Schema of the manifest format.",
    "serve": "Run the reference service (every portal of a state file).",
    "targets": "List the portal folders below a fleet root.",
    "test": "Run kind: Test scenarios, each against its own reference service.",
    "validate": "Check manifests offline: every problem at once.",
    "what-if": "Who would gain or lose a privilege if roles or members changed.",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, SUMMARIES[name]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attribute = target.split(":")
        command: click.Command = getattr(importlib.import_module(module_name), attribute)
        return command

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        if name and not name.startswith("-") and name not in COMMANDS:
            # Imported here: the manifest package is no cost a command that exists pays.
            from reconciler.manifest.suggestions import did_you_mean

            ctx.fail(f"No such command {name!r}{did_you_mean(name, COMMANDS)}.")
        return super().resolve_command(ctx, args)

    def invoke(self, ctx: click.Context) -> object:
        # User errors end here, whoever called the group (console script or a test's
        # CliRunner): one message on stderr and exit 1; --debug keeps the traceback.
        try:
            return super().invoke(ctx)
        except UserError as exc:
            if ctx.params.get("debug"):
                raise
            # One line per problem, as validate prints them (never one line holding `\n`s).
            for line in exc.lines:
                click.echo(f"Error: {safe(line)}", err=True)
            ctx.exit(exc.exit_code)


@click.group(
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=help.environment(),
)
@click.version_option(__version__, prog_name="orgctl")
@click.option("--debug", is_flag=True, help="Show tracebacks for errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Declare an organization portal's configuration in YAML; plan, apply, detect drift."""
    # Every command but `--help` works on the manifest kinds, which stand above the engine
    # that loops over them: the CLI, standing above both, loads them (reconciler/kind.py).
    import reconciler.kinds  # noqa: F401

    ctx.obj = {"debug": debug}


def main() -> None:
    tune_garbage_collector()
    code = run()
    leave_memory_to_the_system()
    sys.exit(code)


def run(args: list[str] | None = None) -> int:
    """Run the command line on `args` (default: the process's arguments); the exit code.

    Usage errors exit 1 like every other user error (click's own default is 2, which
    `plan --detailed-exitcode` and `drift` reserve for "there are changes").
    """
    try:
        outcome = cli.main(args=args, prog_name="orgctl", standalone_mode=False)
    except click.exceptions.Abort as exc:
        # click turns Ctrl-C into Abort; apply handles its own signals (exit 130/143).
        if isinstance(exc.__cause__, KeyboardInterrupt):
            click.echo(_interrupted(sys.argv[1:] if args is None else args), err=True)
            return 130
        click.echo("Aborted.", err=True)
        return 1
    except KeyboardInterrupt:  # Ctrl-C outside apply's own handling: no traceback
        click.echo("Interrupted (SIGINT).", err=True)
        return 130
    except click.ClickException as exc:
        exc.show()
        return 1
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except SystemExit as exc:  # a command that ends with sys.exit(code)
        return _exit_code(exc.code)
    # Without standalone mode click returns the code that ctx.exit() was given.
    return outcome if isinstance(outcome, int) else 0


# Commands that only read (the portal or the manifests): an interrupted one changed nothing.
_READ_ONLY = {"plan", "drift", "doctor", "access", "validate", "render", "schema", "targets"}
_READ_ONLY |= {"policy", "what-if"}


def _interrupted(args: list[str]) -> str:
    command = next((a for a in args if not a.startswith("-")), "")
    changed = "; nothing was changed" if command in _READ_ONLY else ""
    return f"Interrupted (SIGINT){changed}."


def _exit_code(code: str | int | None) -> int:
    """What the interpreter would exit with for `sys.exit(code)`."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    click.echo(code, err=True)
    return 1
