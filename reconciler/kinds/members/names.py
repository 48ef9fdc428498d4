"""The Members kind's name and its members' address form: shared by the kind and the
parts of it loaded only when they run (its writing of manifests, its policy causes)."""

from __future__ import annotations

from reconciler import address_forms as forms

NAME = "Members"
ADDRESS = forms.MEMBER
