"""Accept what the portal holds: each adopted resource's live value is written into the
manifest document that declares it, or into a new document where its kind lives.

The live values come from export's documents, so an adopted resource reads exactly as an
exported one would, and plans empty for the same reasons.
"""

from __future__ import annotations

from pathlib import Path

from reconciler.adopt.addresses import Address
from reconciler.adopt.files import ManifestFiles
from reconciler.kind import owner
from reconciler.state import LiveState


def adopt(files: ManifestFiles, live: LiveState, address: Address) -> str:
    """Write the live value of `address` into `files`; a sentence saying what changed."""
    found = owner(address.kind)
    assert found is not None and found[0].adopt is not None  # parse_address checked
    return found[0].adopt.write(files, live, address)


def outcome(address: Address, path: Path, fields: list[str], files: ManifestFiles) -> str:
    if not fields:
        return f"{address}: already as the portal has it"
    files.touch(path)
    return f"{address}: {', '.join(fields)} written to {path}"


def added(address: Address, path: Path) -> str:
    return f"{address}: added to {path}"
