"""`orgctl policy list [PATH]`: the policies a portal's manifests declare, each with its
CEL, so a reviewer reads what plan will judge without opening every file."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from reconciler.cli import help, options
from reconciler.manifest.loader import Document
from reconciler.manifest.validation import check
from reconciler.policy import builtin
from reconciler.shown import safe

_EXAMPLES = [
    "orgctl policy list   # the built-in policies",
    "orgctl policy list portals/prod",
    "orgctl policy list portals/prod --format json",
]


@click.group("policy", epilog=help.epilog(_EXAMPLES, help.URLS))
def command() -> None:
    """Policies: rules in CEL judged on effective access (kind: Policy)."""


@command.command(
    "list",
    epilog=help.epilog(_EXAMPLES, help.URLS),
)
@click.argument("path", type=click.Path(path_type=Path), required=False)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def list_policies(path: Path | None, fmt: str) -> None:
    """List the built-in policies and, with PATH, the policies of the portal in PATH,
    each with where it is declared and its CEL."""
    policies = [builtin.shown(p) for p in builtin.BUILTINS]
    own: list[dict[str, Any]] = []
    if path is not None:
        checked = check(path, options.settings().environ)
        if checked.problems:
            for problem in checked.problems:
                click.echo(safe(str(problem)), err=True)
            count = len(checked.problems)
            click.echo(
                f"{count} problem{'s' if count != 1 else ''} found: nothing listed", err=True
            )
            sys.exit(1)
        own = [_shown(d) for d in checked.documents if d.kind == "Policy"]
    if fmt == "json":
        click.echo(json.dumps({"policies": policies + own}, indent=2))
        return
    text = _text(policies)
    if path is not None:
        text += "\n\n" + (_text(own) if own else f"{path.as_posix()} declares no policy")
    click.echo(text)


def _shown(document: Document) -> dict[str, Any]:
    spec = document.model.spec  # type: ignore[attr-defined]  # a Policy document
    file, line, _ = document.locate(())
    return {
        "name": document.name,
        "builtIn": False,
        "declaredAt": f"{file}:{line}",
        "enforcement": spec.enforcement,
        "subject": spec.subject,
        "description": spec.description,
        "match": spec.match,
        "rule": spec.rule,
        "message": spec.message,
        "exceptions": [
            {
                "subject": e.subject,
                "reason": e.reason,
                "until": None if e.until is None else str(e.until),
            }
            for e in spec.exceptions
        ],
    }


def _text(policies: list[dict[str, Any]]) -> str:
    blocks = []
    for policy in policies:
        lines = [f"{policy['name']} ({policy['enforcement']}, on each {policy['subject']})"]
        where = policy["declaredAt"]
        lines.append(f"  declared at {where}" if where else "  built in: judged on every plan")
        if policy["description"]:
            lines.append(f"  {policy['description']}")
        if policy["match"]:
            lines.append(f"  match: {policy['match']}")
        lines.append(f"  rule:  {policy['rule']}")
        lines.append(f"  message: {policy['message']}")
        for e in policy["exceptions"]:
            until = f" until {e['until']}" if e["until"] else ""
            lines.append(f"  except {e['subject']}{until}: {e['reason']}")
        blocks.append("\n".join(safe(line) for line in lines))
    return "\n\n".join(blocks)
