"""References to values known only after an earlier call (a created role's id), and
their substitution at apply time."""

from __future__ import annotations

from collections.abc import Mapping

from reconciler.operations import UnusableSegment, json_kind, segment_problem, shown_value
from reconciler.plan.model import Call, Ref, Value


class UnresolvedPlaceholder(Exception):
    """A call that cannot be sent as planned: a reference no earlier call gave a value, or
    a value no portal issues where an id belongs (`UnusableValue`)."""


class UnusableValue(UnresolvedPlaceholder):
    """A produced value, or a path argument, that is not an id a portal could issue."""


class Produced:
    """Attributes earlier calls yielded, by address, as the portal answered them."""

    def __init__(self) -> None:
        self._values: dict[Ref, object] = {}

    def add(self, address: str, attribute: str, value: object) -> None:
        self._values[Ref(address, attribute)] = value

    def resolve(self, value: Value) -> str:
        if not isinstance(value, Ref):
            return value  # plain text is sent exactly as written, whatever it looks like
        if value not in self._values:
            raise UnresolvedPlaceholder(f"{value.text} has no value: no earlier call produced it")
        produced = self._values[value]
        # A produced id goes into paths and fields: `["r1"]` or `..` would steer the
        # call elsewhere (README: limits of a portal's answers).
        problem = segment_problem(produced)
        if problem is not None:
            raise UnusableValue(
                f"{value.text} is {shown_value(produced)}, which the portal answered: not"
                f" an id ({problem}); not sent"
            )
        assert isinstance(produced, str), json_kind(produced)
        return produced

    def resolve_all(self, values: Mapping[str, Value]) -> dict[str, str]:
        return {name: self.resolve(value) for name, value in values.items()}

    def resolve_call(self, call: Call) -> tuple[str, dict[str, str]]:
        """The call's URL (each path argument quoted as one segment) and fields, with
        every reference replaced by the value its call produced."""
        try:
            url = call.spec.url(call.root, self.resolve_all(call.arguments))
        except UnusableSegment as exc:
            raise UnusableValue(f"{exc}; not sent") from None
        return url, self.resolve_all(call.params)
