"""Manifest kinds, one module each (docs/adding-a-kind.md): a kind states every part of
itself once, and validation, desired state, planning, the fingerprint, export and adopt
loop over the kinds the kernel's registry (`reconciler/kind.py`) holds.

Importing this package loads the built-in kinds, as octoDNS's `record/__init__.py` does
its record types; `builtin` states their order, which is the order they are validated,
planned and exported in (a plan's problems are listed in it).
"""

from reconciler.kind import builtin
from reconciler.kinds import (
    campaign,
    collaboration,
    members,
    organization_webhooks,
    policy,
    role,
    task_run_retention,
    webhook_settings,
)

builtin(
    role.KIND,
    members.KIND,
    collaboration.KIND,
    webhook_settings.KIND,
    organization_webhooks.KIND,
    task_run_retention.KIND,
    policy.KIND,
    campaign.KIND,
)
