"""`orgctl access`: who holds which privileges on a portal, and what an access review
should look at first.

One function builds the report's document (`document.access_document`, the JSON shape
README documents); every format renders that document and nothing else, so the formats
never disagree and a new one (HTML) needs only a renderer. `write_access` writes a format
to a stream as it is made; `render_access` returns it as one string.
"""

from typing import TYPE_CHECKING as _TYPE_CHECKING

from reconciler.lazy import exports as _exports
from reconciler.lazy import listing as _listing

if _TYPE_CHECKING:
    from reconciler.access.document import AccessQuery, access_document, fleet_document
    from reconciler.access.findings import FINDING_KINDS
    from reconciler.access.render import FORMATS, render_access, write_access

# Imported on first use: policies read `access.holdings` at validate, which needs none of
# the report's renderers (HTML, CSV, Markdown).
_HOMES = {
    "AccessQuery": "document",
    "access_document": "document",
    "fleet_document": "document",
    "FINDING_KINDS": "findings",
    "FORMATS": "render",
    "render_access": "render",
    "write_access": "render",
}
__getattr__ = _exports(__name__, _HOMES)
__dir__ = _listing(globals(), _HOMES)

__all__ = [
    "FINDING_KINDS",
    "FORMATS",
    "AccessQuery",
    "access_document",
    "fleet_document",
    "render_access",
    "write_access",
]
