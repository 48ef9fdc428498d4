"""References to values known only after an earlier call (a created role's id), and
their substitution at apply time."""

from __future__ import annotations

from collections.abc import Mapping

from reconciler.plan.model import Call, Ref, Value


class UnresolvedPlaceholder(Exception):
    def __init__(self, reference: Ref) -> None:
        self.reference = reference
        super().__init__(f"{reference.text} has no value: no earlier call produced it")


class Produced:
    """Attributes earlier calls yielded, by address."""

    def __init__(self) -> None:
        self._values: dict[Ref, str] = {}

    def add(self, address: str, attribute: str, value: str) -> None:
        self._values[Ref(address, attribute)] = value

    def resolve(self, value: Value) -> str:
        if not isinstance(value, Ref):
            return value  # plain text is sent exactly as written, whatever it looks like
        if value not in self._values:
            raise UnresolvedPlaceholder(value)
        return self._values[value]

    def resolve_all(self, values: Mapping[str, Value]) -> dict[str, str]:
        return {name: self.resolve(value) for name, value in values.items()}

    def resolve_call(self, call: Call) -> tuple[str, dict[str, str]]:
        """The call's URL (each path argument quoted as one segment) and fields, with
        every reference replaced by the value its call produced."""
        url = call.spec.url(call.root, self.resolve_all(call.arguments))
        return url, self.resolve_all(call.params)
