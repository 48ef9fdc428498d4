"""Which portals a document is for: `metadata.portals` and `metadata.releases`.

A base shared by a fleet may hold a document only some portals want: a role for prod
only (`portals: [prod]`), or one holding a privilege that exists from 11.0 on
(`releases: ">=11.0"`). A document whose limits the portal does not meet is left out of
that portal's manifest set, as if it were not written.

`releases` is comparisons separated by commas, each an operator (`>=`, `>`, `<=`, `<`,
`==`, `!=`) and a release: a self-hosted one (`11.0`) or a hosted-cloud month
(`2025-06`). A portal meets the limit when its declared release satisfies every
comparison of its own deployment kind; comparisons of the other kind do not concern it
(the two numberings never compare), so `">=11.0"` keeps a hosted-cloud portal.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from reconciler.versions import Deployment, Platform, Release

_COMPARISON = re.compile(r"^\s*(>=|<=|==|!=|>|<)\s*(\S+)\s*$")
_CLOUD_MONTH = re.compile(r"^\d{4}-\d{2}$")
_OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    ">=": operator.ge,
    "<=": operator.le,
    "==": operator.eq,
    "!=": operator.ne,
    ">": operator.gt,
    "<": operator.lt,
}


@dataclass(frozen=True, slots=True)
class Comparison:
    op: str
    release: Release

    def holds(self, platform: Platform) -> bool:
        if platform.deployment is not self.release.deployment:
            return True
        return _OPERATORS[self.op](platform.release, self.release)


def parse_releases(text: str) -> tuple[Comparison, ...]:
    """The comparisons of a `releases` limit; ValueError says what is wrong."""
    found = []
    for part in text.split(","):
        match = _COMPARISON.match(part)
        if not match:
            raise ValueError(
                f"releases {text!r}: each comparison is an operator (>=, >, <=, <, ==, !=)"
                " and a release, such as '>=11.0' or '<2025-06'"
            )
        op, written = match.groups()
        kind = Deployment.HOSTED_CLOUD if _CLOUD_MONTH.match(written) else Deployment.SELF_HOSTED
        found.append(Comparison(op, Release.parse(kind, written)))
    return tuple(found)


def applies(metadata: Any, portal: str | None, platform: Platform | None) -> bool:
    """Whether a document with these (raw) metadata is for this portal. What cannot be
    judged (no portal name, an unknown release, a limit written wrong, which validation
    reports) keeps the document."""
    if not isinstance(metadata, dict):
        return True
    portals = metadata.get("portals")
    if portal is not None and isinstance(portals, list) and portal not in portals:
        return False
    releases = metadata.get("releases")
    if platform is None or not isinstance(releases, str):
        return True
    try:
        comparisons: Sequence[Comparison] = parse_releases(releases)
    except ValueError:
        return True
    return all(c.holds(platform) for c in comparisons)
