"""Adoption of an existing portal: its live state written out as manifests (see the README's
Export section).

`write_manifests` is pure apart from writing files: it takes a `LiveState` already read
and never talks to a portal. `orgctl export` reads the portal and calls it.
"""

from reconciler.export.summary import ExportSummary
from reconciler.export.writer import (
    Exported,
    ManifestFile,
    check_output_folder,
    export_manifests,
    write_manifests,
)

__all__ = [
    "ExportSummary",
    "Exported",
    "ManifestFile",
    "check_output_folder",
    "export_manifests",
    "write_manifests",
]
