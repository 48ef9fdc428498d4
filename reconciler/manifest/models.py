"""Pydantic models of the manifest documents (README: manifest reference).

The models check shape only: types, required fields, unknown fields, and the limits
that are plain bounds (so the exported JSON Schema carries them too). Rules that need
the portal's platform or several documents live in `rules.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from enum import Enum
from typing import Annotated, Any, Literal, Union

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema

from reconciler import values, windows
from reconciler.manifest.scope import parse_releases

API_VERSION = "orgctl/v1"


class Strict(BaseModel):
    # strict: YAML's `version: 10.10` is the float 10.1, so a number must never pass as a
    # string (nor "true" as a boolean); forbid: a misspelt field must not be silently unmanaged.
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Meaning(Enum):
    """What a field's values are, beyond their Python type: the planner compares the
    service's spellings of a field by it (`reconciler.plan.meanings` reads it off each
    kind's model). A field's type says most; these mark what a type cannot say."""

    BOOLEAN = "boolean"
    NUMBER = "number"
    TIME = "time"  # Unix milliseconds, however the manifest or the service spells it
    TEXT = "text"  # a text the service may answer as null when it is empty
    SET = "set"  # a list whose order and duplicates do not matter


class SetSchema(WithJsonSchema):
    """The JSON Schema of a set-like list (`string_set`); being of this type is what marks
    the field as a set, as pydantic keeps it among the field's metadata."""

    __slots__ = ()


def _to_epoch_ms(value: Any) -> Any:
    """ISO 8601 (a YAML timestamp or a string) or Unix milliseconds, as Unix milliseconds;
    without an offset, UTC (`reconciler.values`). A plain integer is left to the field's
    own checks (the rules name one before 1970), a boolean to the strict type check."""
    if isinstance(value, bool | int):
        return value
    try:
        return values.epoch_ms(value)
    except ValueError as exc:
        raise ValueError(f"startTime {value!r}: {exc}") from None


StartTime = Annotated[
    int,
    Meaning.TIME,
    BeforeValidator(_to_epoch_ms),
    WithJsonSchema(
        {
            "description": "ISO 8601 date-time or Unix time in milliseconds",
            "anyOf": [{"type": "integer"}, {"type": "string", "format": "date-time"}],
        }
    ),
]
Presence = Literal["present", "absent"]

# Stands for one privilege in the generated schema, where schema.py puts a reference to
# the catalog's enum (pydantic resolves every `$ref` itself and knows no such definition).
PRIVILEGE_MARK: dict[str, Any] = {"type": "string", "x-orgctl": "privilege"}

# The form an overlay may give a set-like list instead of the whole list.
SET_PATCH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "overlay only: elements to add to and remove from the included list",
    "properties": {
        "add": {"type": "array", "items": {"type": "string"}},
        "remove": {"type": "array", "items": {"type": "string"}},
    },
    "additionalProperties": False,
    "minProperties": 1,
}


def string_set(
    *, min_items: int = 0, nullable: bool = False, item: dict[str, Any] | None = None
) -> Any:
    """A set of strings written as a list; in the JSON Schema also as an overlay's
    `{add: [...], remove: [...]}`, which the overlay merge resolves before the models
    see the document (`overlay.py`). `item`: the schema of one element (a string)."""
    element = item or {"type": "string"}
    whole: dict[str, Any] = {"type": "array", "items": element}
    if min_items:
        whole["minItems"] = min_items
    patch = {
        **SET_PATCH_SCHEMA,
        "properties": {key: {"type": "array", "items": element} for key in ("add", "remove")},
    }
    forms = [whole, patch, *([{"type": "null"}] if nullable else [])]
    return SetSchema({"anyOf": forms})


StringSet = Annotated[list[str], string_set()]


def empty(factory: Callable[[], list[Any] | dict[str, Any]] = list, **field: Any) -> Any:
    """A field that is empty unless given: made anew by `factory` for each document, and
    written as that empty value in the JSON Schema. A `[]` default would do the same, but
    pydantic deep-copies it for every document it validates (five a Role: 20 ms of
    validating 1,000 roles)."""
    return Field(default_factory=factory, json_schema_extra={"default": factory()}, **field)


# A member's username as a manifest names one outside Members (a role's owners, a
# campaign's reviewers): the portal's usernames hold no white space, and a reviewer's
# name is the name of its review file, so no slash either.
Username = Annotated[
    str, Field(min_length=1, pattern=r"^[^\s/\\]+$", description="a member's username")
]

IGNORE_PRIVILEGES = (
    "shell-style patterns (fnmatch, e.g. features:user:*): a live privilege matching one is"
    " kept and never reported as drift, unless declared"
)


# --- metadata ------------------------------------------------------------------------------


class Metadata(Strict):
    name: str = Field(min_length=1)


def _releases(text: str) -> str:
    parse_releases(text)  # raises ValueError with the reason
    return text


class DocumentMetadata(Metadata):
    """Metadata of every kind but Portal: its name, and whom it is for (fleets)."""

    portals: list[str] | None = Field(
        None, description="only for these portals (their Portal's metadata.name)"
    )
    releases: Annotated[str, AfterValidator(_releases)] | None = Field(
        None, description="only for portals on these releases, e.g. '>=11.0' or '>=11.0, <12.0'"
    )
    overlay: bool = Field(
        False, description="patches the document of this kind and name of an included folder"
    )
    ignoreChanges: list[Annotated[str, Field(min_length=1)]] = empty(
        description="field paths under spec that are neither planned nor reported as drift"
        " ('*' for any key or element), e.g. description, members.*.level",
    )


# --- Portal --------------------------------------------------------------------------------


class AuthSpec(Strict):
    """Names of environment variables holding the credentials, never the secrets."""

    tokenEnv: str | None = None
    usernameEnv: str | None = None
    passwordEnv: str | None = None


class Safety(Strict):
    maxDeletes: int = Field(10, ge=0)


class AgentSpec(Strict):
    selfHeal: bool = Field(
        False,
        description="let `orgctl agent --allow-apply` apply these manifests when the portal"
        " drifts, with every guard of `orgctl apply`; otherwise the agent only reports",
    )


def _checked(parse: Callable[[str], Any]) -> Callable[[str], str]:
    def check(value: str) -> str:
        parse(value)  # raises WindowError (a ValueError) with the reason
        return value

    return check


class ApplyWindow(Strict):
    """When applies are allowed: from each time `schedule` matches, for `duration`."""

    schedule: Annotated[str, AfterValidator(_checked(windows.parse_cron))] = Field(
        description="cron: minute hour day-of-month month day-of-week, e.g. '0 22 * * 1-5'"
    )
    duration: Annotated[str, AfterValidator(_checked(windows.parse_duration))] = Field(
        description="how long the window stays open, e.g. 30m, 4h, 1h30m, 2d"
    )
    timeZone: Annotated[str, AfterValidator(_checked(windows.parse_zone))] = Field(
        "UTC", description="IANA time zone of the schedule, e.g. Europe/Berlin"
    )


class PortalSpec(Strict):
    url: str
    adminUrl: str | None = None
    deployment: Literal["self-hosted", "hosted-cloud"]
    version: str
    auth: AuthSpec
    extraPrivileges: list[str] = empty()
    ignorePrivileges: list[str] = empty(description=IGNORE_PRIVILEGES)
    applier: str | None = Field(
        None,
        min_length=1,
        description="username of the member that applies: a plan predicts what this member"
        " may do, whoever signs in to make it (a reviewer's read-only account)",
    )
    safety: Safety = Safety()
    agent: AgentSpec = AgentSpec()
    pruneRoles: bool = Field(
        False,
        description="delete the custom roles no Role document declares (by name or"
        " previousNames), except keepRoles and the pre-built roles",
    )
    keepRoles: list[Annotated[str, Field(min_length=1)]] = empty(
        description="custom roles pruneRoles never deletes and drift does not list as"
        " undeclared: names (any case) or role ids",
    )
    # Empty: applies are always allowed; else only while one of the windows is open.
    applyWindows: list[ApplyWindow] = empty()
    include: list[str] = empty(
        description="folders (relative to this file, inside the repository) whose documents"
        " this portal's manifest set includes; see Bases and overlays",
    )


# --- documents ---------------------------------------------------------------------------------


class Document(Strict):
    apiVersion: Literal["orgctl/v1"]
    metadata: Metadata
    kind: str  # each kind's model narrows it to its own name


class Portal(Document):
    kind: Literal["Portal"]
    spec: PortalSpec


def document_union(kinds: Iterable[type[Document]]) -> Any:
    """The Portal and the given kinds' documents (the registered kinds', `reconciler.kinds`)
    as one union told apart by `kind`, for validation and the JSON Schema."""
    members = (Portal, *kinds)
    return Annotated[Union[members], Field(discriminator="kind")]  # noqa: UP007
