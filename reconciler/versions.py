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
