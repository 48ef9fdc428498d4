"""Live values written into the manifests, all or nothing."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from reconciler.adopt.addresses import Address
from reconciler.adopt.adopter import adopt
from reconciler.adopt.files import ManifestFiles
from reconciler.errors import ManifestError
from reconciler.manifest.desired import load_desired
from reconciler.state import LiveState


@dataclass(frozen=True, slots=True)
class Adopted:
    lines: tuple[str, ...]  # one sentence per address
    written: tuple[Path, ...]  # the files that changed


def adopt_into(
    root: Path, addresses: Sequence[Address], live: LiveState, environ: Mapping[str, str]
) -> Adopted:
    """Write the live value of each address into the manifests under `root`."""
    return edit_manifests(
        root,
        lambda files: [adopt(files, live, address) for address in addresses],
        "adopting",
        environ,
    )


def edit_manifests(
    root: Path,
    edit: Callable[[ManifestFiles], Sequence[str]],
    doing: str,
    environ: Mapping[str, str],
) -> Adopted:
    """Make `edit` (one sentence per resource) in the manifests under `root`, comments
    kept. The result must validate (under `environ`'s URL overrides, as it was read): if
    it does not, every file is put back and the problems are raised, led by what was being
    done (`doing`: "adopting")."""
    files = ManifestFiles.read(root)
    lines = tuple(edit(files))
    written = files.write()
    try:
        load_desired(root, environ)
    except ManifestError as exc:
        files.restore()
        raise ManifestError(
            [f"{doing} would leave the manifests invalid, so nothing was written:", *exc.lines]
        ) from None
    return Adopted(lines, tuple(written))
