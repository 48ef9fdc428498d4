"""Adoption of an existing portal: its live state written out as manifests (see the README's
Export section).

`write_manifests` is pure apart from writing files: it takes a `LiveState` already read
and never talks to a portal. `orgctl export` reads the portal and calls it.

The names are imported on first use (reconciler/lazy.py): a kind's export part imports
`export.documents` at validate, which needs neither the writer nor ruamel.yaml.
"""

from typing import TYPE_CHECKING as _TYPE_CHECKING

from reconciler.lazy import exports as _exports
from reconciler.lazy import listing as _listing

if _TYPE_CHECKING:
    from reconciler.export.summary import ExportSummary
    from reconciler.export.writer import (
        Exported,
        ManifestFile,
        check_output_folder,
        export_manifests,
        write_manifests,
    )

_HOMES = {
    "ExportSummary": "summary",
    "Exported": "writer",
    "ManifestFile": "writer",
    "check_output_folder": "writer",
    "export_manifests": "writer",
    "write_manifests": "writer",
}
__getattr__ = _exports(__name__, _HOMES)
__dir__ = _listing(globals(), _HOMES)

__all__ = [
    "ExportSummary",
    "Exported",
    "ManifestFile",
    "check_output_folder",
    "export_manifests",
    "write_manifests",
]
