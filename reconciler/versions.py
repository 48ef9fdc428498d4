"""Deployment kinds and their release numbers, compared as versions (10.10 > 10.9).

Self-hosted releases are dotted numbers ("10.6.1"); hosted-cloud releases are months
("2021-03"). The two never compare with each other: a gate states a bound per kind.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from functools import total_ordering


class Deployment(StrEnum):
    SELF_HOSTED = "self-hosted"
    HOSTED_CLOUD = "hosted-cloud"


_SELF_HOSTED = re.compile(r"^\d+(\.\d+){0,3}$")
_CLOUD = re.compile(r"^(\d{4})-(0[1-9]|1[0-2])$")


class VersionError(ValueError):
    """A release string that is not valid for its deployment kind."""


@total_ordering
@dataclass(frozen=True, slots=True)
class Release:
    """One release of one deployment kind; trailing zeros do not matter (10.6 == 10.6.0)."""

    deployment: Deployment
    parts: tuple[int, ...]

    @classmethod
    def parse(cls, deployment: Deployment | str, text: str) -> Release:
        kind = Deployment(deployment)
        text = str(text).strip()
        if kind is Deployment.SELF_HOSTED:
            if not _SELF_HOSTED.match(text):
                raise VersionError(
                    f"self-hosted version {text!r} must be a dotted release such as '10.6.1'"
                )
            parts = tuple(int(p) for p in text.split("."))
        else:
            match = _CLOUD.match(text)
            if not match:
                raise VersionError(
                    f"hosted-cloud version {text!r} must be a release month 'YYYY-MM'"
                )
            parts = (int(match.group(1)), int(match.group(2)))
        return cls(kind, _strip_zeros(parts))

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Release):
            return NotImplemented
        if other.deployment is not self.deployment:
            raise TypeError("releases of different deployment kinds do not compare")
        return self.parts < other.parts

    def __str__(self) -> str:
        if self.deployment is Deployment.HOSTED_CLOUD:
            return f"{self.parts[0]:04d}-{self.parts[1]:02d}"
        shown = self.parts + (0,) * (2 - len(self.parts))
        return ".".join(str(p) for p in shown)


def _strip_zeros(parts: tuple[int, ...]) -> tuple[int, ...]:
    trimmed = list(parts)
    while len(trimmed) > 1 and trimmed[-1] == 0:
        trimmed.pop()
    return tuple(trimmed)


@dataclass(frozen=True, slots=True)
class Platform:
    """What a portal runs: the deployment kind and its release."""

    release: Release

    @classmethod
    def parse(cls, deployment: Deployment | str, version: str) -> Platform:
        return cls(Release.parse(deployment, version))

    @property
    def deployment(self) -> Deployment:
        return self.release.deployment

    @property
    def self_hosted(self) -> bool:
        return self.release.deployment is Deployment.SELF_HOSTED

    def __str__(self) -> str:
        return f"{self.deployment} {self.release}"


# The portal's REST API version (`currentVersion`) of each self-hosted release: the two
# numberings differ, and clients gate features on the REST one (10.7 brought user types
# at REST 6.4, so a 10.6.1 portal must answer below 6.4). From 11.2 on it is a year and a
# number (2023.2). docs/rules.md (REST API versions) says where each row comes from.
REST_VERSIONS: dict[str, str] = {
    "10.5": "5.1",
    "10.5.1": "5.2",
    "10.6": "6.1",
    "10.6.1": "6.2",
    "10.7": "6.4",
    "10.7.1": "7.1",
    "10.8": "7.3",
    "10.8.1": "8.2",
    "10.9": "8.4",
    "10.9.1": "9.2",
    "11.0": "10.1",
    "11.1": "10.3",
    "11.2": "2023.2",
    "11.3": "2024.1",
    "11.4": "2024.2",
    "11.5": "2025.1",
    "12.0": "2025.2",
    "12.1": "2026.1",
    "12.2": "2026.2",
}
_RELEASE_OF_REST = {rest: release for release, rest in REST_VERSIONS.items()}


def rest_version(platform: Platform) -> str:
    """What the portal answers as `currentVersion` for its release. A hosted-cloud
    release month answers `YYYY.M`; a self-hosted release missing from the table answers
    its own number."""
    release = platform.release
    if platform.deployment is Deployment.HOSTED_CLOUD:
        return f"{release.parts[0]}.{release.parts[1]}"
    return REST_VERSIONS.get(str(release), str(release))


def release_text(deployment: Deployment, fields: dict[str, object]) -> str:
    """The product release a portal's answer states, from whichever field it gives:
    `fullVersion` (the release), `enterpriseVersion` (11.3+), or the REST
    `currentVersion` translated back to its release."""
    for name in ("fullVersion", "enterpriseVersion"):
        given = str(fields.get(name) or "").strip()
        if given:
            return given
    current = str(fields.get("currentVersion") or "").strip()
    if deployment is Deployment.HOSTED_CLOUD:
        return _hosted_release(current)
    return _RELEASE_OF_REST.get(current, current)


# Hosted-cloud answered REST numbers `N.M` before it answered `YYYY.M`: 5.4 late in 2017
# (REST JS's captured organization) up to 10.x in 2022, about four releases a year. Read
# as year 2012 + N, month 3 * M, a local convention anchored on 9.1 being the March 2021
# release that brought bidirectional sync.
_FIRST_NUMBERED_YEAR = 2012


def _hosted_release(current: str) -> str:
    major, _, minor = current.partition(".")
    if not (major.isdigit() and minor.isdigit()):
        return current
    if int(major) < 100:
        month = min(12, max(1, 3 * int(minor)))
        return f"{_FIRST_NUMBERED_YEAR + int(major)}-{month:02d}"
    if 1 <= int(minor) <= 12:
        return f"{major}-{int(minor):02d}"
    return current
