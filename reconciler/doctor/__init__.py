"""`orgctl doctor`: check a live portal against orgctl's model of it, reading only.

`examine_portal` checks the portal of a manifest set, `examine_url` a portal named by
its URL alone; each gives a `Report` (its exit code: 0 orgctl can manage the portal as
is, 2 with differences named, 1 it cannot) and what the readers took from the answers.
"""

from reconciler.doctor.findings import Report
from reconciler.doctor.portal import Examined, examine_portal, examine_url

__all__ = ["Examined", "Report", "examine_portal", "examine_url"]
