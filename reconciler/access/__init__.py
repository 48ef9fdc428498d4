"""`orgctl access`: who holds which privileges on a portal, and what an access review
should look at first.

One function builds the report's document (`document.access_document`, the JSON shape
README documents); every format renders that document and nothing else, so the formats
never disagree and a new one (HTML) needs only a renderer. `write_access` writes a format
to a stream as it is made; `render_access` returns it as one string.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reconciler.lazy import exports

if TYPE_CHECKING:
    from reconciler.access.document import AccessQuery, access_document, fleet_document
    from reconciler.access.findings import FINDING_KINDS
    from reconciler.access.render import FORMATS, render_access, write_access

# Imported on first use: policies read `access.holdings` at validate, which needs none of
# the report's renderers (HTML, CSV, Markdown).
__getattr__ = exports(
    __name__,
    {
        "AccessQuery": "document",
        "access_document": "document",
        "fleet_document": "document",
        "FINDING_KINDS": "findings",
        "FORMATS": "render",
        "render_access": "render",
        "write_access": "render",
    },
)

__all__ = [
    "FINDING_KINDS",
    "FORMATS",
    "AccessQuery",
    "access_document",
    "fleet_document",
    "render_access",
    "write_access",
]
