"""orgctl as Python calls: what the commands do, for a program (docs/python-api.md).

    found = validate("portals/prod")                   # every problem, as orgctl validate
    manifests = load("portals/prod", connection)       # ManifestError lists every problem
    plan = plan_sync(manifests, connection)            # the Plan `orgctl plan` prints
    applied = apply_sync(manifests, plan, connection)  # sent under the apply lock, verified

Each call takes and returns the objects the CLI renders (the `Plan`, the `ApplyResult`,
the access report's document, the export's files, the doctor's `Report`). None prints,
exits or keeps state between calls; a failure is raised as a `UserError` (reconciler/
errors.py), saying what is wrong in one message. Each call that talks to a portal is a
coroutine, beside a `_sync` twin that runs it in an event loop of its own.

Nothing here reads the process's environment: a `Connection` holds every value by name
(`Connection.of` builds one from `Credentials` and a URL), so two portals, or two
accounts, are driven side by side in one process. The CLI builds its `Connection` from
the `Settings` it read once (reconciler/settings.py, in reconciler/cli/session.py) and
renders what these calls return.
"""

from typing import TYPE_CHECKING as _TYPE_CHECKING

from reconciler.lazy import exports as _exports
from reconciler.lazy import listing as _listing

if _TYPE_CHECKING:
    from reconciler.access.document import AccessQuery
    from reconciler.api.applying import Applied, Applying, apply, apply_sync
    from reconciler.api.drifting import DriftReport, drift, drift_sync
    from reconciler.api.examining import doctor, doctor_sync, doctor_url, doctor_url_sync
    from reconciler.api.exporting import export, export_sync
    from reconciler.api.planning import plan, plan_sync
    from reconciler.api.reviewing import AccessReport, access, access_sync
    from reconciler.api.session import (
        Connection,
        Credentials,
        Manifests,
        Validation,
        load,
        validate,
    )
    from reconciler.apply.result import ApplyResult
    from reconciler.doctor import Examined, Report
    from reconciler.errors import ManifestError, UserError
    from reconciler.export import Exported
    from reconciler.plan.fingerprint import StalePlan
    from reconciler.plan.model import Plan

# Each name and the module that defines it, imported on first use (PEP 562): `orgctl
# plan` imports the planning calls, not the doctor, the export writer or the access
# report.
_HOMES = {
    "Connection": "session",
    "Credentials": "session",
    "Manifests": "session",
    "load": "session",
    "Validation": "session",
    "validate": "session",
    "Applied": "applying",
    "apply": "applying",
    "apply_sync": "applying",
    "plan": "planning",
    "plan_sync": "planning",
    "Applying": "applying",
    "DriftReport": "drifting",
    "drift": "drifting",
    "drift_sync": "drifting",
    "AccessReport": "reviewing",
    "access": "reviewing",
    "access_sync": "reviewing",
    "export": "exporting",
    "export_sync": "exporting",
    "doctor": "examining",
    "doctor_sync": "examining",
    "doctor_url": "examining",
    "doctor_url_sync": "examining",
    "AccessQuery": "reconciler.access.document",
    "ApplyResult": "reconciler.apply.result",
    "Examined": "reconciler.doctor",
    "Report": "reconciler.doctor",
    "ManifestError": "reconciler.errors",
    "UserError": "reconciler.errors",
    "Exported": "reconciler.export",
    "StalePlan": "reconciler.plan.fingerprint",
    "Plan": "reconciler.plan.model",
}
__getattr__ = _exports(__name__, _HOMES)
__dir__ = _listing(globals(), _HOMES)

__all__ = [
    "AccessQuery",
    "AccessReport",
    "Applied",
    "ApplyResult",
    "Applying",
    "Connection",
    "Credentials",
    "DriftReport",
    "Examined",
    "Exported",
    "ManifestError",
    "Manifests",
    "Plan",
    "Report",
    "StalePlan",
    "UserError",
    "Validation",
    "access",
    "access_sync",
    "apply",
    "apply_sync",
    "doctor",
    "doctor_sync",
    "doctor_url",
    "doctor_url_sync",
    "drift",
    "drift_sync",
    "export",
    "export_sync",
    "load",
    "plan",
    "plan_sync",
    "validate",
]
