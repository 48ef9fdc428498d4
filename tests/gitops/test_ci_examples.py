"""The CI examples parse, and every orgctl command they run exists with those flags."""

from __future__ import annotations

import ast
import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
from ruamel.yaml import YAML

from reconciler.cli import cli

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((ROOT / "examples" / "ci").rglob("*.yml"))
SCRIPT = ROOT / "examples" / "ci" / "orgctl_ci.py"
# GitHub expressions and shell variables stand for values, never for flags.
PLACEHOLDER = re.compile(r"\$\{\{[^}]*\}\}|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?")


def _load(path: Path) -> Any:
    return YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))


def _scripts(node: Any) -> Iterator[str]:
    """Every shell script in a workflow: GitHub `run:` and GitLab `script:` entries."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "run" and isinstance(value, str):
                yield value
            elif key in ("script", "before_script") and isinstance(value, list):
                yield from (line for line in value if isinstance(line, str))
            else:
                yield from _scripts(value)
    elif isinstance(node, list):
        for item in node:
            yield from _scripts(item)


SUBSHELL = re.compile(r"\$\(([^()]*)\)")


def _invocations(script: str) -> Iterator[list[str]]:
    """The arguments of each `orgctl ...` in a script, command substitutions included."""
    for line in script.replace("\\\n", " ").splitlines():
        segments = [*SUBSHELL.findall(line), SUBSHELL.sub("VALUE", line)]
        for segment in segments:
            yield from _orgctl_words(PLACEHOLDER.sub("VALUE", segment))


def _orgctl_words(segment: str) -> Iterator[list[str]]:
    lexer = shlex.shlex(segment, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    tokens = list(lexer)
    for start, token in enumerate(tokens):
        if token != "orgctl":
            continue
        words: list[str] = []
        for word in tokens[start + 1 :]:
            if word and all(ch in "();<>|&" for ch in word):
                break  # the command ends at a redirection or a shell operator
            words.append(word)
        yield words


def _all_invocations() -> list[tuple[str, list[str]]]:
    found = []
    for path in WORKFLOWS:
        for script in _scripts(_load(path)):
            found.extend((path.name, words) for words in _invocations(script))
    found.extend((SCRIPT.name, words) for words in _script_invocations())
    return found


def _script_invocations() -> Iterator[list[str]]:
    """The `orgctl(...)` calls of the CI script, a variable argument standing for a value."""
    tree = ast.parse(SCRIPT.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "orgctl":
            yield [arg.value if isinstance(arg, ast.Constant) else "VALUE" for arg in node.args]


def _typed(command: click.Command, args: list[str]) -> list[str]:
    """A variable given to a numeric option stands for its smallest valid value (the
    option's type is still checked on every literal)."""
    numeric = {
        flag: param.type
        for param in command.params
        if isinstance(param.type, click.types.IntParamType)
        for flag in param.opts
    }
    typed = list(args)
    for index, arg in enumerate(args[1:], start=1):
        number_type = numeric.get(args[index - 1])
        if arg == "VALUE" and number_type is not None:
            typed[index] = str(getattr(number_type, "min", None) or 1)
    return typed


def _check(words: list[str]) -> list[str]:
    """Problems with one invocation: unknown command, unknown or misused option."""
    name, args = words[0], words[1:]
    command = cli.get_command(click.Context(cli), name)
    if command is None:
        return [f"unknown command {name!r}"]
    try:
        command.make_context(name, _typed(command, args))
    except click.UsageError as exc:
        return [f"orgctl {name}: {exc.format_message()}"]
    return []


def test_there_are_github_and_gitlab_examples() -> None:
    names = {p.name for p in WORKFLOWS}
    assert {"orgctl-pull-request.yml", "orgctl-apply.yml", "orgctl-drift.yml"} <= names
    assert ".gitlab-ci.yml" in names


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_workflow_parses_and_runs_orgctl(path: Path) -> None:
    document = _load(path)
    assert isinstance(document, dict)
    assert any(_invocations(s) for s in _scripts(document)), f"{path.name} never runs orgctl"


def test_every_orgctl_invocation_is_a_real_command_with_real_flags() -> None:
    invocations = _all_invocations()
    used = {words[0] for _, words in invocations}
    assert {"validate", "plan", "apply", "drift", "targets"} <= used
    problems = [f"{file}: {p}" for file, words in invocations for p in _check(words)]
    assert problems == []


def test_pull_requests_annotate_and_the_script_plans_in_markdown() -> None:
    text = (ROOT / "examples/ci/github/orgctl-pull-request.yml").read_text()
    assert "--format github" in text and "ci/orgctl_ci.py plan" in text
    plan = next(w for _, w in _all_invocations() if w[0] == "plan" and "-o" in w)
    assert plan[plan.index("--format") + 1] == "markdown" and "--detailed-exitcode" in plan


def test_every_workflow_installs_the_one_pinned_requirement() -> None:
    for path in WORKFLOWS:
        text = path.read_text()
        assert 'pip install "${ORGCTL_REQUIREMENT:?' in text, path.name
        assert "orgctl==" not in text, f"{path.name} pins a version of its own"


def test_credentials_come_from_each_portals_own_secrets() -> None:
    """Apply uses the portal's own secrets; a pull request and drift, which only read,
    only its read-only ones, under `_READ` names the script alone reads for them; every
    workflow sets the trusted origins from the repository's variable."""
    for kind in ("pull-request", "apply", "drift"):
        workflow = _load(ROOT / "examples/ci/github" / f"orgctl-{kind}.yml")
        assert workflow["env"]["ORGCTL_TRUSTED_ORIGINS"] == "${{ vars.ORGCTL_TRUSTED_ORIGINS }}"
        env = next(j["env"] for j in workflow["jobs"].values() if "strategy" in j)
        credentials = {k: v for k, v in env.items() if re.match(r"ORGCTL_[A-Z]+(_READ)?$", k)}
        expected = {}
        for field in ("token", "username", "password"):
            name = f"matrix.portal.secrets.{field}"
            if kind == "apply":
                expected[f"ORGCTL_{field.upper()}"] = f"${{{{ secrets[{name}] }}}}"
            else:
                secret = f"${{{{ secrets[format('{{0}}_READ', {name})] }}}}"
                expected[f"ORGCTL_{field.upper()}_READ"] = secret
        assert credentials == expected, kind
    assert "eval" not in (ROOT / "examples/ci/gitlab/.gitlab-ci.yml").read_text()


def test_applies_to_one_portal_never_overlap() -> None:
    workflow = _load(ROOT / "examples/ci/github/orgctl-apply.yml")
    concurrency = workflow["jobs"]["apply"]["concurrency"]
    assert "matrix.portal.name" in concurrency["group"]
    assert concurrency["cancel-in-progress"] is False
    assert workflow["on"]["push"]["branches"] == ["main"]
    gitlab = _load(ROOT / "examples/ci/gitlab/.gitlab-ci.yml")
    assert gitlab["apply"]["resource_group"] == "orgctl-$PORTAL"


def test_drift_runs_on_a_schedule() -> None:
    workflow = _load(ROOT / "examples/ci/github/orgctl-drift.yml")
    assert workflow["on"]["schedule"][0]["cron"]
    runs = [s["run"] for s in workflow["jobs"]["drift"]["steps"] if "run" in s]
    assert "ci/orgctl_ci.py drift" in runs[-1]


def test_drift_keeps_the_drift_and_access_pages_as_an_artifact() -> None:
    """Whatever the drift step's outcome, both pages it writes are uploaded (GitHub) or
    kept (GitLab), and the script writes them with `--format html -o`."""
    workflow = _load(ROOT / "examples/ci/github/orgctl-drift.yml")
    steps = workflow["jobs"]["drift"]["steps"]
    [upload] = [s for s in steps if str(s.get("uses", "")).startswith("actions/upload-artifact")]
    assert upload["if"] == "always()"
    assert upload["with"]["path"].split() == ["drift.html", "access.html"]
    assert "matrix.portal.name" in upload["with"]["name"]
    gitlab = _load(ROOT / "examples/ci/gitlab/.gitlab-ci.yml")
    assert gitlab["drift"]["artifacts"]["paths"] == ["drift.html", "access.html"]
    assert gitlab["drift"]["artifacts"]["when"] == "always"
    pages = sorted(
        words[0]
        for words in _script_invocations()
        if "-o" in words and words[words.index("--format") + 1] == "html"
    )
    assert pages == ["access", "drift"]
    script = SCRIPT.read_text(encoding="utf-8")
    assert 'DRIFT_PAGE = "drift.html"' in script and 'ACCESS_PAGE = "access.html"' in script


def test_pre_commit_hook_runs_validate() -> None:
    hooks = _load(ROOT / ".pre-commit-hooks.yaml")
    assert hooks[0]["id"] == "orgctl-validate"
    assert hooks[0]["entry"].split()[:2] == ["orgctl", "validate"]
    assert hooks[0]["pass_filenames"] is False
