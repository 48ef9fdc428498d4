"""orgctl as Python calls: what the commands do, for a program (docs/python-api.md).

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
the environment and renders what these calls return.
"""

from reconciler.access.document import AccessQuery
from reconciler.api.applying import Applying
from reconciler.api.planning import Applied, apply, apply_sync, plan, plan_sync
from reconciler.api.reports import (
    AccessReport,
    DriftReport,
    access,
    access_sync,
    doctor,
    doctor_sync,
    doctor_url,
    doctor_url_sync,
    drift,
    drift_sync,
    export,
    export_sync,
)
from reconciler.api.session import Connection, Credentials, Manifests, load
from reconciler.apply.result import ApplyResult
from reconciler.doctor import Examined, Report
from reconciler.errors import ManifestError, UserError
from reconciler.export import Exported
from reconciler.plan.fingerprint import StalePlan
from reconciler.plan.model import Plan

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
]
