"""`orgctl adopt`: accept live values into the manifests (the other way round from apply).

`adopt_into` is pure apart from the files it edits: it takes a `LiveState` already read.

The names are imported on first use (reconciler/lazy.py): a kind's adoption part imports
`adopt.addresses` at validate, which needs neither the editing of files nor ruamel.yaml.
"""

from typing import TYPE_CHECKING as _TYPE_CHECKING

from reconciler.lazy import exports as _exports
from reconciler.lazy import listing as _listing

if _TYPE_CHECKING:
    from reconciler.adopt.addresses import Address, parse_address
    from reconciler.adopt.into import Adopted, adopt_into, edit_manifests

_HOMES = {
    "Address": "addresses",
    "parse_address": "addresses",
    "Adopted": "into",
    "adopt_into": "into",
    "edit_manifests": "into",
}
__getattr__ = _exports(__name__, _HOMES)
__dir__ = _listing(globals(), _HOMES)

__all__ = ["Address", "Adopted", "adopt_into", "edit_manifests", "parse_address"]
