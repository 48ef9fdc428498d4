"""Plan a manifest folder against a portal and apply it, through orgctl's Python API
(docs/python-api.md), as a program of one's own would: no `orgctl` command involved.

    python examples/api/plan_and_apply.py MANIFESTS --portal-url URL [--admin-url URL] [--apply]

The credentials come from this script's environment (ORGCTL_TOKEN, or ORGCTL_USERNAME and
ORGCTL_PASSWORD): the API itself reads no environment, it is handed `Credentials`.
Exit 0 when the portal matches (or was made to), 2 when changes are planned and not
applied, 1 on an error.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence

from reconciler import api
from reconciler.api import Connection, Credentials, UserError


def credentials_from(environ: Mapping[str, str]) -> Credentials:
    token = environ.get("ORGCTL_TOKEN")
    if token:
        return Credentials(token=token)
    return Credentials(
        username=environ.get("ORGCTL_USERNAME"), password=environ.get("ORGCTL_PASSWORD")
    )


def converge(manifests_path: str, connection: Connection, send: bool) -> int:
    manifests = api.load(manifests_path, connection)
    plan = api.plan_sync(manifests, connection)
    for change in plan.changes:
        print(f"  {change.action.value:<7} {change.address}")
    for problem in plan.errors:
        print(f"Error: {problem}")
    if plan.errors:
        return 1
    if plan.empty:
        print("No changes: the portal matches the manifests.")
        return 0
    counts = plan.summary()
    print(f"Plan: {len(plan.changes)} changes in {counts['calls']} calls.")
    if not send:
        return 2
    applied = api.apply_sync(manifests, plan, connection)
    done = applied.result.counts()["done"] if applied.result else 0
    print(f"Sent {done} calls.", "Converged." if applied.converged else "Not converged.")
    return 0 if applied.converged else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("manifests", help="the manifest folder of one portal")
    parser.add_argument("--portal-url", required=True, help="the portal's sharing REST root")
    parser.add_argument("--admin-url", help="the portal's admin root (webhook settings)")
    parser.add_argument("--apply", action="store_true", help="send the plan, then verify")
    args = parser.parse_args(argv)
    try:
        connection = Connection.of(
            credentials_from(os.environ),
            portal_url=args.portal_url,
            admin_url=args.admin_url,
            notice=lambda line: print(line, file=sys.stderr),
        )
        return converge(args.manifests, connection, args.apply)
    except UserError as error:
        for line in error.lines:
            print(f"Error: {line}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
