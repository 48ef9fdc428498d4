"""A Role's name, address form and document as export writes it: shared by the kind and
its adoption, which is loaded only when it runs."""

from __future__ import annotations

from reconciler import address_forms as forms
from reconciler import state
from reconciler.export.documents import Document, document

NAME = "Role"
ADDRESS = forms.ROLE


def role_document(role: state.Role) -> Document:
    spec = {"description": role.description or "", "privileges": sorted(role.privileges or ())}
    return document(NAME, {"name": role.name}, spec)
