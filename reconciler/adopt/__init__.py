"""`orgctl adopt`: accept live values into the manifests (the other way round from apply).

`adopt_into` is pure apart from the files it edits: it takes a `LiveState` already read.
"""

from reconciler.adopt.addresses import Address, parse_address
from reconciler.adopt.into import Adopted, adopt_into, edit_manifests

__all__ = ["Address", "Adopted", "adopt_into", "edit_manifests", "parse_address"]
