"""Manifest documents as YAML bytes: deterministic, and never misread by a YAML reader.

A string that a YAML 1.1 or 1.2 reader would take for a number, a boolean, a date or a
null ("10.6.1", "2026-06", "12345", "yes", "1e5") is double-quoted; ruamel.yaml alone
only quotes what its own YAML 1.2 resolver would misread, which leaves `version: 2026-06`
and `on` bare.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Mapping
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.scalarstring import DoubleQuotedScalarString

_AMBIGUOUS = re.compile(
    r"""^(?:
        [-+]?[0-9][0-9_.:eE+-]*                      # numbers, versions, months, sexagesimal
      | [-+]?\.[0-9].*                               # .5
      | [-+]?\.(?:inf|Inf|INF|nan|NaN|NAN)
      | 0[xXoObB][0-9a-fA-F_]+                       # hex, octal, binary
      | [0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt\ ].*)?  # dates and timestamps
      | y|Y|yes|Yes|YES|n|N|no|No|NO
      | true|True|TRUE|false|False|FALSE
      | on|On|ON|off|Off|OFF
      | null|Null|NULL|~
      | =|<<
    )$""",
    re.VERBOSE,
)


class FlowMap(dict[str, Any]):
    """A mapping written on one line (`alice: {level: 2, role: org_user}`), so that a
    portal of thousands of members stays a readable file."""


def needs_quotes(text: str) -> bool:
    return bool(_AMBIGUOUS.match(text))


def manifest_yaml() -> YAML:
    """A round-trip YAML reader and writer in the manifests' style (that of the examples):
    a file in this style loads and dumps back byte for byte, comments included."""
    yaml = YAML()
    yaml.preserve_quotes = True
    yaml.width = 4096  # never fold a long description across lines
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


def render(documents: Iterable[Mapping[str, Any]], header: Iterable[str]) -> bytes:
    """`documents` as one YAML stream (`---` between documents), `header` lines first."""
    yaml = manifest_yaml()
    stream = io.StringIO()
    for line in header:
        stream.write(f"# {line}\n" if line else "#\n")
    yaml.dump_all([to_node(d) for d in documents], stream)
    return stream.getvalue().encode("utf-8")


def to_node(value: Any) -> Any:
    """Plain values as ruamel.yaml nodes in the manifests' style (flow maps, quoting)."""
    if isinstance(value, Mapping):
        node = CommentedMap((to_node(str(k)), to_node(v)) for k, v in value.items())
        if isinstance(value, FlowMap):
            node.fa.set_flow_style()
        return node
    if isinstance(value, list | tuple):
        return CommentedSeq(to_node(v) for v in value)
    if isinstance(value, str) and needs_quotes(value):
        return DoubleQuotedScalarString(value)
    return value
