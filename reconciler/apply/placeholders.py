"""`${<address>.<attr>}`: values known only after an earlier call (design §3)."""

from __future__ import annotations

import re

from reconciler.plan.model import PLACEHOLDER, Call


class UnresolvedPlaceholder(Exception):
    def __init__(self, placeholder: str) -> None:
        self.placeholder = placeholder
        super().__init__(f"{placeholder} has no value: no earlier call produced it")


class Produced:
    """Attributes earlier calls yielded, by address."""

    def __init__(self) -> None:
        self._values: dict[tuple[str, str], str] = {}

    def add(self, address: str, attribute: str, value: str) -> None:
        self._values[(address, attribute)] = value

    def resolve(self, text: str) -> str:
        def value(match: re.Match[str]) -> str:
            key = (match.group("address"), match.group("attribute"))
            if key not in self._values:
                raise UnresolvedPlaceholder(match.group(0))
            return self._values[key]

        return PLACEHOLDER.sub(value, text)

    def resolve_call(self, call: Call) -> tuple[str, dict[str, str]]:
        """The call's URL and params with every placeholder filled in."""
        return self.resolve(call.url), {k: self.resolve(v) for k, v in call.params.items()}
