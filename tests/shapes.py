"""Whether an answer has the shape of a documented or captured one: every key, with the
same JSON type.

Types compare as JSON sees them: any number is a number; null on either side matches any
type, since real organizations answer null for text they do not hold
(tests/fixtures/real_portals), but the key must be there. A list's first entry is
compared with the example's first entry (examples show one entry; later ones may differ
as documented, e.g. another participant's group link holds no group id).
"""

from __future__ import annotations

from typing import Any


def json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return {dict: "object", list: "array", str: "string", type(None): "null"}[type(value)]


def shape_problems(example: Any, answer: Any, where: str = "") -> list[str]:
    """Where `answer` lacks a key of `example`, or holds it with another JSON type."""
    kinds = json_type(example), json_type(answer)
    if "null" in kinds:
        return []  # present; its type unknown
    if kinds[0] != kinds[1]:
        return [f"{where or 'answer'}: {kinds[0]} in the example, {kinds[1]} in the answer"]
    if isinstance(example, dict):
        problems = []
        for key, value in example.items():
            if key not in answer:
                problems.append(f"{where}.{key}: missing")
            else:
                problems += shape_problems(value, answer[key], f"{where}.{key}")
        return problems
    if isinstance(example, list) and example and answer:
        return shape_problems(example[0], answer[0], f"{where}[]")
    return []
