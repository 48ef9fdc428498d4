"""The commands' way into the Python API (reconciler.api): the command line's `Settings`
(read once, `options.settings()`) as the connection, and the manifests loaded as every
command loads them. The one place a command builds a `Connection`."""

from __future__ import annotations

from pathlib import Path

from reconciler.api import Connection, Manifests, load
from reconciler.cli.fleet_report import note_skipped
from reconciler.settings import Settings
from reconciler.state import DesiredState
from reconciler.workflow import fleet_notice, say_on_stderr


def connection(given: Settings, portal: str | None = None) -> Connection:
    """The ORGCTL_* values of `given` (the variables the command line read, by name);
    each retry told on stderr, with the portal's name first when `portal` is one of a
    fleet read at once."""
    notice = fleet_notice(portal, say_on_stderr) if portal else say_on_stderr
    return Connection(given.environ, notice)


def manifests(path: Path, verbose: bool, given: Settings) -> Manifests:
    """The manifests of one portal folder, under `given`'s URL overrides, the skipped
    files named when `verbose`."""
    loaded = load(path, connection(given))
    if verbose:
        note_skipped(loaded.skipped)
    return loaded


def desired(path: Path, verbose: bool, given: Settings) -> DesiredState:
    """The desired state of one portal folder, the skipped files named when `verbose`."""
    return manifests(path, verbose, given).desired
