"""Run the CI examples' shell steps as GitHub Actions and GitLab CI would, in a sandbox.

Each job gets a fresh copy of the repository (the checkout), the variables the runner
sets, and a PATH holding `orgctl` and `python` of this checkout and a `pip` that records
what it was asked to install (orgctl is installed already; the sandbox has no index).
`actions/upload-artifact` stores into the fake hosting as the real action would; the other
actions (checkout, setup-python) have nothing to do here.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from tests.gitops.fake_hosting import GITHUB_TOKEN, GITLAB_TOKEN, PROJECT, REPO, Hosting

ROOT = Path(__file__).resolve().parents[2]
CI = ROOT / "examples" / "ci"
STEP_TIMEOUT = 300


def load(path: Path) -> Any:
    return YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))


@dataclass
class Sandbox:
    """A repository holding the manifests, as a user of the examples lays it out."""

    root: Path
    repo: Path
    bin: Path
    pip_log: Path
    service_url: str = ""  # where the portals' URLs point
    base: str = ""  # the commit holding the layout as created: a pull request's base

    @classmethod
    def create(cls, root: Path, portals: dict[str, Path], service_url: str) -> Sandbox:
        repo = root / "repo"
        for name, folder in portals.items():
            shutil.copytree(folder, repo / "portals" / name)
            portal = repo / "portals" / name / "portal.yaml"
            portal.write_text(portal.read_text().replace("http://127.0.0.1:8080", service_url))
        (repo / "ci").mkdir()
        shutil.copy(CI / "orgctl_ci.py", repo / "ci" / "orgctl_ci.py")
        sandbox = cls(root, repo, root / "bin", root / "pip.log", service_url)
        sandbox._shims()
        sandbox.base = sandbox._commit()
        return sandbox

    def _commit(self) -> str:
        """The repository as created, committed: the checkout holds its history, as a
        full-depth checkout does, and later edits are the pull request's."""
        for args in (("init", "-q", "-b", "main"), ("add", "."), ("commit", "-qm", "base")):
            subprocess.run(
                ["git", "-c", "user.name=ci", "-c", "user.email=ci@example.com", *args],
                cwd=self.repo,
                check=True,
                capture_output=True,
            )
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=self.repo, check=True, capture_output=True, text=True
        )
        return done.stdout.strip()

    def _shims(self) -> None:
        self.bin.mkdir()
        python = sys.executable
        shims = {
            "orgctl": f'exec "{python}" -m reconciler "$@"',
            "python": f'exec "{python}" "$@"',
            "pip": f'echo "$*" >> "{self.pip_log}"',
        }
        for name, body in shims.items():
            path = self.bin / name
            path.write_text(f"#!/bin/sh\n{body}\n")
            path.chmod(path.stat().st_mode | stat.S_IEXEC)

    def checkout(self, where: Path) -> Path:
        shutil.copytree(self.repo, where)
        return where

    def base_env(self) -> dict[str, str]:
        keep = ("HOME", "LANG", "TMPDIR", "SYSTEMROOT")
        env = {k: v for k, v in os.environ.items() if k in keep}
        pythonpath = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).strip(":")
        return {**env, "PATH": f"{self.bin}:/usr/bin:/bin", "PYTHONPATH": pythonpath, "CI": "true"}


@dataclass
class StepRun:
    job: str
    name: str
    code: int
    output: str


@dataclass
class Pipeline:
    """What one workflow run or pipeline did."""

    steps: list[StepRun] = field(default_factory=list)
    failed_jobs: list[str] = field(default_factory=list)

    def log(self) -> str:
        return "\n".join(f"--- {s.job} / {s.name}: exit {s.code}\n{s.output}" for s in self.steps)


def run_shell(script: str, cwd: Path, env: dict[str, str], shell: list[str]) -> tuple[int, str]:
    done = subprocess.run(
        [*shell, script],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=STEP_TIMEOUT,
    )
    return done.returncode, done.stdout + done.stderr


# --- GitHub Actions --------------------------------------------------------------------------

_TOKEN = re.compile(r"\s*(==|!=|&&|\|\||[!()\[\],.]|'(?:[^']|'')*'|[A-Za-z_][\w-]*|\d+)")


class Expression:
    """The part of the GitHub expression language the examples use."""

    def __init__(self, text: str, context: dict[str, Any]) -> None:
        self.tokens = self._tokens(text)
        self.context = context
        self.at = 0

    @staticmethod
    def _tokens(text: str) -> list[str]:
        tokens, at = [], 0
        while at < len(text.rstrip()):
            found = _TOKEN.match(text, at)
            if not found:
                raise ValueError(f"cannot read expression {text!r} at {at}")
            tokens.append(found.group(1))
            at = found.end()
        return tokens

    def value(self) -> Any:
        result = self._or()
        assert self.at == len(self.tokens), self.tokens
        return result

    def _peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def _take(self) -> str:
        self.at += 1
        return self.tokens[self.at - 1]

    def _or(self) -> Any:
        left = self._and()
        while self._peek() == "||":
            self._take()
            right = self._and()
            left = left or right
        return left

    def _and(self) -> Any:
        left = self._compare()
        while self._peek() == "&&":
            self._take()
            right = self._compare()
            left = left and right
        return left

    def _compare(self) -> Any:
        left = self._unary()
        if self._peek() in ("==", "!="):
            operator = self._take()
            right = self._unary()
            same = str(left if left is not None else "") == str(right if right is not None else "")
            return same if operator == "==" else not same
        return left

    def _unary(self) -> Any:
        if self._peek() == "!":
            self._take()
            return not self._unary()
        return self._postfix()

    def _postfix(self) -> Any:
        value = self._primary()
        while self._peek() in (".", "["):
            if self._take() == ".":
                value = _member(value, self._take())
            else:
                key = self._or()
                assert self._take() == "]"
                value = _member(value, key)
        return value

    def _primary(self) -> Any:
        token = self._take()
        if token == "(":
            value = self._or()
            assert self._take() == ")"
            return value
        if token.startswith("'"):
            return token[1:-1].replace("''", "'")
        if token.isdigit():
            return int(token)
        if self._peek() == "(":
            self._take()
            args = [] if self._peek() == ")" else [self._or()]
            while self._peek() == ",":
                self._take()
                args.append(self._or())
            assert self._take() == ")"
            return self._call(token, args)
        return self.context.get(token)

    def _call(self, name: str, args: list[Any]) -> Any:
        if name == "fromJSON":
            return json.loads(args[0])
        if name == "format":
            return str(args[0]).format(*(_text(a) for a in args[1:]))
        status = self.context.get("job_status", "success")
        calls = {"always": True, "success": status == "success", "failure": status == "failure"}
        return calls[name]


def _condition(text: Any) -> str:
    """A step's `if:`; without a status function it holds only while the job succeeds."""
    if text is None:
        return "success()"
    if re.search(r"\b(always|success|failure|cancelled)\(", str(text)):
        return str(text)
    return f"success() && ({text})"


def _member(value: Any, key: Any) -> Any:
    return value.get(key) if isinstance(value, dict) else None


_INTERPOLATION = re.compile(r"\$\{\{(.*?)\}\}", re.S)


def evaluate(text: Any, context: dict[str, Any]) -> Any:
    """A value with its `${{ }}` expressions replaced; a whole-value expression keeps its
    type (a matrix list)."""
    if not isinstance(text, str):
        return text
    whole = _INTERPOLATION.fullmatch(text.strip())
    if whole:
        return Expression(whole.group(1), context).value()
    return _INTERPOLATION.sub(lambda m: _text(Expression(m.group(1), context).value()), text)


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, dict | list):
        return json.dumps(value)
    return str(value)


@dataclass
class GitHubRun:
    """One workflow run: the event, the commit, the repository's secrets and variables."""

    workflow: Path
    sandbox: Sandbox
    hosting: Hosting
    event: dict[str, Any]
    sha: str
    secrets: dict[str, str]
    variables: dict[str, str]
    run_id: int = 1
    needs: dict[str, Any] = field(default_factory=dict)

    def run(self) -> Pipeline:
        """Jobs in file order; each job sees the outputs of the jobs before it."""
        document = load(self.workflow)
        pipeline = Pipeline()
        workdir = self.sandbox.root / f"gh-{self.workflow.stem}-{self.run_id}"
        workdir.mkdir()
        event_path = workdir / "event.json"
        event_path.write_text(json.dumps(self.event))
        for job_id, job in document["jobs"].items():
            needed = job.get("needs") or []
            if any(str(n).startswith(tuple(needed)) for n in pipeline.failed_jobs):
                continue  # a job whose needs failed is skipped, as GitHub does
            matrix = job.get("strategy", {}).get("matrix", {})
            combos = self._combinations(matrix, self._context()) if matrix else [{}]
            outputs: dict[str, Any] = {}
            for index, combo in enumerate(combos):
                job_dir = self.sandbox.checkout(workdir / f"{job_id}-{index}")
                outputs = self._job(document, job_id, job, combo, job_dir, event_path, pipeline)
            self.needs[job_id] = {"outputs": outputs}
        return pipeline

    def _context(self) -> dict[str, Any]:
        github = {"token": GITHUB_TOKEN, "event": self.event, "sha": self.sha, "repository": REPO}
        return {
            "github": github,
            "secrets": self.secrets,
            "vars": self.variables,
            "needs": dict(self.needs),
        }

    @staticmethod
    def _combinations(matrix: dict[str, Any], context: dict[str, Any]) -> list[dict[str, Any]]:
        [(key, values)] = matrix.items()
        return [{key: value} for value in evaluate(values, context)]

    def _runner_env(self, event_path: Path) -> dict[str, str]:
        return {
            **self.sandbox.base_env(),
            "GITHUB_ACTIONS": "true",
            "GITHUB_API_URL": f"{self.hosting.url}/gh",
            "GITHUB_SERVER_URL": "https://github.example",
            "GITHUB_REPOSITORY": REPO,
            "GITHUB_RUN_ID": str(self.run_id),
            "GITHUB_SHA": self.sha,
            "GITHUB_EVENT_PATH": str(event_path),
            "GITHUB_EVENT_NAME": "pull_request" if "pull_request" in self.event else "push",
        }

    def _job(
        self,
        document: dict[str, Any],
        job_id: str,
        job: dict[str, Any],
        combo: dict[str, Any],
        job_dir: Path,
        event_path: Path,
        pipeline: Pipeline,
    ) -> dict[str, Any]:
        context = {**self._context(), "matrix": combo, "steps": {}}
        env = {k: _text(evaluate(v, context)) for k, v in (document.get("env") or {}).items()}
        env.update({k: _text(evaluate(v, context)) for k, v in (job.get("env") or {}).items()})
        context["env"] = env
        context["job_status"] = "success"
        for index, step in enumerate(job["steps"]):
            if not evaluate("${{ " + _condition(step.get("if")) + " }}", context):
                continue
            name = step.get("name") or step.get("uses") or step.get("id") or str(index)
            code, outputs, text = self._step(step, context, job_dir, event_path)
            pipeline.steps.append(StepRun(f"{job_id}{combo}", name, code, text))
            if "id" in step:
                context["steps"][step["id"]] = {
                    "outputs": outputs,
                    "outcome": "success" if code == 0 else "failure",
                }
            if code != 0:
                context["job_status"] = "failure"
        if context["job_status"] == "failure":
            pipeline.failed_jobs.append(f"{job_id}{combo}")
        return {k: _text(evaluate(v, context)) for k, v in (job.get("outputs") or {}).items()}

    def _step(
        self, step: dict[str, Any], context: dict[str, Any], job_dir: Path, event_path: Path
    ) -> tuple[int, dict[str, str], str]:
        uses = str(step.get("uses", ""))
        if uses.startswith("actions/upload-artifact"):
            return self._upload(step, context, job_dir)
        if uses:
            return 0, {}, f"(action {uses}: nothing to do in the sandbox)"
        output_file = job_dir / ".github_output"
        output_file.write_text("")
        step_env = {k: _text(evaluate(v, context)) for k, v in (step.get("env") or {}).items()}
        env = {
            **self._runner_env(event_path),
            **context["env"],
            **step_env,
            "GITHUB_OUTPUT": str(output_file),
        }
        script = _text(evaluate(step["run"], context))
        code, text = run_shell(
            script, job_dir, env, ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c"]
        )
        outputs = dict(
            line.split("=", 1) for line in output_file.read_text().splitlines() if "=" in line
        )
        return code, outputs, text

    def _upload(
        self, step: dict[str, Any], context: dict[str, Any], job_dir: Path
    ) -> tuple[int, dict[str, str], str]:
        options = {k: _text(evaluate(v, context)) for k, v in step["with"].items()}
        # `path` names one file or several, a line each, as the action takes them.
        paths = [job_dir / line.strip() for line in options["path"].splitlines() if line.strip()]
        files = {path.name: path.read_bytes() for path in paths if path.exists()}
        if not files:
            return 0, {}, f"no file {options['path']!r}: nothing uploaded"
        self.hosting.upload_artifact(options["name"], files)
        return 0, {}, f"uploaded {options['name']}: {', '.join(files)}"


# --- GitLab CI -------------------------------------------------------------------------------


@dataclass
class GitLabPipeline:
    """One pipeline: its source and branch, the project's CI/CD variables."""

    sandbox: Sandbox
    hosting: Hosting
    portals: list[str]
    source: str  # merge_request_event | push | schedule
    sha: str
    variables: dict[str, str]
    branch: str | None = None
    merge_request: int | None = None
    run_id: int = 1

    def jobs(self) -> Iterator[tuple[str, dict[str, Any]]]:
        document = load(CI / "gitlab" / ".gitlab-ci.yml")
        hidden = {k: v for k, v in document.items() if k.startswith(".")}
        jobs = {
            k: v
            for k, v in document.items()
            if not k.startswith(".") and k not in ("stages", "default", "variables")
        }
        for stage in document["stages"]:
            for name, job in jobs.items():
                if job["stage"] == stage:
                    merged = {**hidden.get(job.get("extends", ""), {}), **job}
                    yield name, {**merged, "before_script": document["default"]["before_script"]}

    def predefined(self) -> dict[str, str]:
        env = {
            "GITLAB_CI": "true",
            "CI_API_V4_URL": f"{self.hosting.url}/gl/api/v4",
            "CI_PROJECT_ID": PROJECT,
            "CI_PIPELINE_SOURCE": self.source,
            "CI_COMMIT_SHA": self.sha,
            "CI_DEFAULT_BRANCH": "main",
            "CI_JOB_URL": f"https://gitlab.example/acme/manifests/-/jobs/{self.run_id}",
            "GITLAB_API_TOKEN": GITLAB_TOKEN,
        }
        if self.branch:
            env["CI_COMMIT_BRANCH"] = self.branch
        if self.merge_request is not None:
            env["CI_MERGE_REQUEST_IID"] = str(self.merge_request)
            env["CI_MERGE_REQUEST_SOURCE_BRANCH_SHA"] = self.sha
            env["CI_MERGE_REQUEST_DIFF_BASE_SHA"] = self.sandbox.base
        return env

    def run(self) -> Pipeline:
        pipeline = Pipeline()
        workdir = self.sandbox.root / f"gl-{self.source}-{self.run_id}"
        workdir.mkdir()
        variables = {**self.predefined(), **self.variables}
        for name, job in self.jobs():
            if not any(rule_matches(r["if"], variables) for r in job.get("rules", [])):
                continue
            # The PORTAL list the user keeps in .portals; a job of no portal runs once.
            portals = self.portals if job.get("extends") == ".portals" else [""]
            for portal in portals:
                job_name = f"{name}: [{portal}]" if portal else name
                job_dir = self.sandbox.checkout(workdir / f"{name}-{portal}")
                env = {**self.sandbox.base_env(), **variables, "PORTAL": portal}
                script = "\n".join([*job["before_script"], *job["script"]])
                code, text = run_shell(script, job_dir, env, ["bash", "-eo", "pipefail", "-c"])
                pipeline.steps.append(StepRun(job_name, "script", code, text))
                if code != 0:
                    pipeline.failed_jobs.append(job_name)
        return pipeline


def rule_matches(condition: str, variables: dict[str, str]) -> bool:
    """`$A == "x"`, `$A == $B`, joined by `&&`: what the example's rules use."""

    def side(text: str) -> str:
        text = text.strip()
        if text.startswith("$"):
            return variables.get(text[1:], "")
        return text.strip('"')

    for clause in condition.split("&&"):
        left, right = clause.split("==")
        if side(left) != side(right):
            return False
    return True


def github_run_steps(workflow: Path) -> list[str]:
    """The names of every `run:` step of a workflow, by job."""
    document = load(workflow)
    return [
        f"{job_id}/{step.get('name') or step.get('id')}"
        for job_id, job in document["jobs"].items()
        for step in job["steps"]
        if "run" in step
    ]
