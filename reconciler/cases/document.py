"""`kind: Test` (apiVersion `orgctl/v1`): one scenario for `orgctl test`.

A Test document is no manifest: it lives in a folder of its own beside the portal
folders (`tests/` next to `portals/`), which validate and plan never read, and names
the portal folder it exercises (`spec.manifests`, relative to the document). Its
problems are found before anything runs and name the file and line, as validate's do.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError

from reconciler.manifest import loader, models, yamltree
from reconciler.manifest.problems import Problem, field_path
from reconciler.manifest.raw import Raw
from reconciler.manifest.suggestions import did_you_mean

KIND = "Test"


class PolicyExpectation(models.Strict):
    violated: list[str] = Field(
        default_factory=list, description="policies violated after the plan"
    )
    notViolated: list[str] = Field(
        default_factory=list, description="policies no subject violates after the plan"
    )


class Expectation(models.Strict):
    changes: int | list[str] | None = Field(
        None, description="how many changes the plan holds, or exactly their addresses"
    )
    errors: list[str] | None = Field(
        None, description="a substring of each plan error expected; [] for none"
    )
    policies: PolicyExpectation | None = None
    converges: Literal[True] | None = Field(
        None, description="apply succeeds and the next plan is empty"
    )


class TestSpec(models.Strict):
    description: str | None = None
    state: str | dict[str, Any] = Field(
        description="an `orgctl serve` state file, relative to this document, or inline"
    )
    manifests: str = Field(description="the portal folder, relative to this document")
    patches: list[dict[str, Any]] = Field(
        default_factory=list, description="overlay documents applied to the manifests"
    )
    portal: str | None = Field(None, description="the state's portal (urlKey) planned against")
    as_: str | None = Field(None, alias="as", description="the member who plans")
    expect: Expectation


class TestDocument(models.Document):
    kind: Literal["Test"]
    metadata: models.Metadata
    spec: TestSpec


@dataclass(frozen=True, slots=True)
class Case:
    """One Test document, checked."""

    name: str
    file: str
    line: int
    spec: TestSpec
    patches: list[Raw]  # the inline overlays, each where the document wrote it

    @property
    def folder(self) -> Path:
        return Path(self.file).parent

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    def state_file(self) -> Path | None:
        return self.folder / self.spec.state if isinstance(self.spec.state, str) else None

    def manifests(self) -> Path:
        return self.folder / self.spec.manifests


@dataclass(slots=True)
class Found:
    cases: list[Case]
    problems: list[Problem]


def read_cases(path: Path) -> Found:
    """Every Test document below `path` (or in the one file). A manifest beside them is
    not theirs and is passed over; any other kind is a problem, with a did-you-mean."""
    reading = loader.read(path)
    found = Found([], list(reading.problems))
    names: dict[str, Case] = {}
    for raw in reading.documents:
        kind = raw.kind
        if kind != KIND:
            if kind not in loader.kind_names():
                found.problems.append(_unknown_kind(raw))
            continue
        case = _case(raw, found.problems)
        if case is None:
            continue
        if case.name in names:
            where = names[case.name].where
            found.problems.append(
                _problem(raw, ("metadata", "name"), f"a second test {case.name!r} ({where})")
            )
            continue
        names[case.name] = case
        found.cases.append(case)
    return found


def _case(raw: Raw, problems: list[Problem]) -> Case | None:
    try:
        document = TestDocument.model_validate(raw.value)
    except ValidationError as exc:
        problems.extend(loader.validation_problems(raw, raw.label, exc))
        return None
    case = Case(document.metadata.name, raw.file, raw.line, document.spec, _patches(raw))
    before = len(problems)
    state = case.state_file()
    if state is not None and not state.is_file():
        problems.append(_problem(raw, ("spec", "state"), f"no state file {state}"))
    if not case.manifests().is_dir():
        problems.append(_problem(raw, ("spec", "manifests"), f"no folder {case.manifests()}"))
    for index, patch in enumerate(case.patches):
        if patch.kind == "Portal":
            path = ("spec", "patches", index, "kind")
            problems.append(_problem(raw, path, "a patch may not change the Portal"))
    return case if len(problems) == before else None


def _patches(raw: Raw) -> list[Raw]:
    spec = raw.positions.children.get("spec")
    listed = spec.children.get("patches") if spec is not None else None
    patches = raw.value["spec"].get("patches") or []
    return [
        Raw(raw.file, yamltree.Tree(patch, listed.children[index] if listed else raw.positions))
        for index, patch in enumerate(patches)
    ]


def _unknown_kind(raw: Raw) -> Problem:
    kind = raw.kind
    hint = did_you_mean(str(kind), [KIND]) if kind is not None else ""
    return _problem(raw, ("kind",), f"unknown kind {kind!r}{hint}; orgctl test runs kind: {KIND}")


def _problem(raw: Raw, path: tuple[str | int, ...], message: str) -> Problem:
    file, line, column = raw.locate(path)
    return Problem(file, line, column, raw.label, field_path(path), message)
