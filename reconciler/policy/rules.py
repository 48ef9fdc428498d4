"""Compiling a policy's CEL and checking it offline.

The CEL binding parses but does not type-check, so a rule is checked twice: its names
(variables and `subject.field` references) against the subject's fields, each with the
column inside the expression and a did-you-mean, then by evaluating it on a sample of its
subject, which surfaces operand type errors (`size(member.level)`) before any plan runs.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import re
import sys
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

from reconciler.manifest.suggestions import did_you_mean
from reconciler.policy.variables import FIELDS, NOW

_POSITION = re.compile(r"<input>:(\d+):(\d+): (.*?)(?:\n|$)")
# Names outside string literals: strings are blanked before the scan, keeping columns.
_STRING = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'")
_MACRO_VARIABLE = re.compile(r"\.\s*(?:all|exists|exists_one|map|filter)\s*\(\s*([A-Za-z_]\w*)\s*,")
_NAME = re.compile(r"(?<![.\w])([A-Za-z_]\w*)(?:\s*\.\s*([A-Za-z_]\w*))?")

_SAMPLE_TIME = datetime(2026, 1, 1, tzinfo=UTC)
_SAMPLES: dict[str, dict[str, Any]] = {
    "member": {
        "username": "u",
        "role": "r",
        "level": 2,
        "disabled": False,
        "lastLogin": _SAMPLE_TIME,
        "privileges": ["p"],
        "rolePrivileges": ["p"],
        "privilegesBefore": ["p"],
        "gained": ["p"],
        "lost": ["p"],
        "administrative": False,
        "grants": [{"role": "r", "level": 2, "until": _SAMPLE_TIME, "reason": "r"}],
    },
    "role": {
        "name": "r",
        "privileges": ["p"],
        "privilegesBefore": ["p"],
        "holders": ["u"],
        "holdersBefore": ["u"],
        "administrative": False,
    },
    "portal": {
        "name": "p",
        "deployment": "online",
        "version": "1",
        "members": 1,
        "administrators": 1,
        "administratorsBefore": 1,
        "administratorNames": ["u"],
        "administratorNamesBefore": ["u"],
    },
    "change": {"address": "Role/r", "action": "update", "before": {}, "after": {}},
}


@dataclass(frozen=True, slots=True)
class RuleProblem:
    column: int  # 1-based, inside the expression
    message: str


@cache
def cel_module() -> Any:
    """The CEL binding's compiled core (`cel.cel`: compile, Context, evaluate), loaded on
    first use. Its package's `__init__` also imports the binding's command line (typer,
    prompt_toolkit: 0.13 s of the hq example's first plan), which orgctl never calls, so
    the core is loaded from the package's folder without it; the whole package where the
    core is not found there."""
    with _LOADING:  # the core may be initialised once per process: one thread loads it
        if "cel.cel" in sys.modules:
            return sys.modules["cel.cel"]
        path = _core_path()
        spec = importlib.util.spec_from_file_location("cel.cel", path) if path else None
        if spec is None or spec.loader is None:
            import cel

            return cel
        core = importlib.util.module_from_spec(spec)
        # Registered, so an `import cel` later reuses it rather than initialise it again.
        sys.modules["cel.cel"] = core
        spec.loader.exec_module(core)
        return core


_LOADING = threading.Lock()


def _core_path() -> Path | None:
    """Where the CEL package keeps its compiled core, found without importing it."""
    package = importlib.util.find_spec("cel")
    for folder in (package.submodule_search_locations or []) if package else []:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            if Path(folder, "cel" + suffix).is_file():
                return Path(folder, "cel" + suffix)
    return None


def compile_rule(expression: str) -> Any:
    """The compiled program; a ValueError for a rule CEL cannot parse."""
    return cel_module().compile(expression)


def check(expression: str, subject: str) -> RuleProblem | None:
    """The first problem of `expression` over `subject`'s variable, or None."""
    try:
        program = compile_rule(expression)
    except ValueError as error:
        return _parse_problem(str(error))
    problem = _name_problem(expression, subject, set(program.variables()))
    if problem is not None:
        return problem
    return _type_problem(program, subject)


def referenced_fields(expression: str, subject: str) -> frozenset[str] | None:
    """The fields of `subject` the expression reads, or None when it uses the variable
    whole (`member == x`): a verdict depends on these alone, so subjects alike in them
    share one evaluation."""
    blanked = _STRING.sub(lambda m: " " * len(m.group()), expression)
    fields = set()
    for found in _NAME.finditer(blanked):
        if found.group(1) == subject:
            if found.group(2) is None:
                return None
            fields.add(found.group(2))
    return frozenset(fields)


def _parse_problem(text: str) -> RuleProblem:
    found = _POSITION.search(text)
    if found is None:
        return RuleProblem(1, text.splitlines()[0])
    return RuleProblem(int(found.group(2)), found.group(3).strip())


def _name_problem(expression: str, subject: str, variables: set[str]) -> RuleProblem | None:
    allowed = {subject, NOW}
    bound = set(_MACRO_VARIABLE.findall(expression))
    blanked = _STRING.sub(lambda m: " " * len(m.group()), expression)
    for found in _NAME.finditer(blanked):
        name, field = found.group(1), found.group(2)
        if name in variables and name not in allowed | bound:
            hint = did_you_mean(name, sorted(allowed))
            column = found.start(1) + 1
            return RuleProblem(
                column, f"unknown variable {name!r}{hint}; a {subject} rule sees {subject} and now"
            )
        if name == subject and field is not None and field not in FIELDS[subject]:
            hint = did_you_mean(field, FIELDS[subject])
            known = ", ".join(FIELDS[subject])
            return RuleProblem(
                found.start(2) + 1, f"{subject} has no field {field!r}{hint}; its fields: {known}"
            )
    return None


def _type_problem(program: Any, subject: str) -> RuleProblem | None:
    context = cel_module().Context({subject: _SAMPLES[subject], NOW: _SAMPLE_TIME})
    try:
        program.execute(context)
    except (TypeError, ValueError, RuntimeError) as error:
        # Names are checked above, so an undefined function here is one applied to the
        # wrong type (`size(member.level)`): CEL resolves functions by operand type.
        return RuleProblem(1, f"does not type-check: {str(error).split('. ')[0]}")
    except KeyError:
        # A key of a map value (`change.after.privileges`) depends on the change.
        return None
    return None
