"""Manifest kinds, one module each (docs/adding-a-kind.md): a kind states every part of
itself once, and validation, desired state, planning, the fingerprint, export and adopt
loop over the kinds `registry` holds."""
