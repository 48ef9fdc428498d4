"""The commands' way into the Python API (reconciler.api): this process's environment
as the connection, and the manifests loaded as every command loads them."""

from __future__ import annotations

import os
from pathlib import Path

from reconciler.api import Connection, Manifests, load
from reconciler.cli.fleet_report import note_skipped
from reconciler.state import DesiredState
from reconciler.workflow import fleet_notice, say_on_stderr


def connection(portal: str | None = None) -> Connection:
    """The ORGCTL_* variables of this process; each retry told on stderr, with the
    portal's name first when `portal` is one of a fleet read at once."""
    notice = fleet_notice(portal, say_on_stderr) if portal else say_on_stderr
    return Connection(os.environ, notice)


def manifests(path: Path, verbose: bool) -> Manifests:
    """The manifests of one portal folder, the skipped files named when `verbose`."""
    loaded = load(path, connection())
    if verbose:
        note_skipped(loaded.skipped)
    return loaded


def desired(path: Path, verbose: bool) -> DesiredState:
    """The desired state of one portal folder, the skipped files named when `verbose`."""
    return manifests(path, verbose).desired
