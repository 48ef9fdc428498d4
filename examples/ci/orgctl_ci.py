#!/usr/bin/env python3
"""What the CI jobs do beyond calling orgctl, for GitHub Actions and GitLab CI alike.

Copy this file to `ci/orgctl_ci.py` in the repository that holds your manifests; the
workflows in `examples/ci/` call it. Standard library only: it runs wherever orgctl runs.

    python ci/orgctl_ci.py plan  NAME DIR   pull request: plan, keep one comment per portal
                                            (split when long), save the plan for the merge
    python ci/orgctl_ci.py apply NAME DIR   main: apply exactly the plan reviewed on the pull
                                            request; when stale, post a fresh plan instead
    python ci/orgctl_ci.py drift NAME DIR   schedule: open, update or close one issue per
                                            portal; save drift.html and access.html
    python ci/orgctl_ci.py what-if NAME DIR pull request: who gains or loses an effective
                                            privilege against the base branch (the job's
                                            summary); exit 2, failing the step, when
                                            anyone gains one

NAME is the Portal's metadata.name (as `orgctl targets --json` prints it), DIR its folder.
orgctl runs with NAME's credentials only, under its own ORGCTL_<NAME>_* names, and never
a hosting token or another portal's credentials. plan and drift only read: they take the
read-only ORGCTL_<NAME>_{TOKEN,USERNAME,PASSWORD}_READ (or the ORGCTL_*_READ a GitHub job
maps in) and nothing else, and stop before orgctl runs when there are none. apply takes
ORGCTL_<NAME>_* (or the plain ORGCTL_TOKEN / _USERNAME / _PASSWORD the job maps in). A
pull request's plan runs only with ORGCTL_TRUSTED_ORIGINS set and every origin in it
bound to its portal (NAME=origin): README, "CI".
The hosting API is read from the variables each CI sets: GITHUB_API_URL,
GITHUB_REPOSITORY, GITHUB_TOKEN, GITHUB_EVENT_PATH, GITHUB_SHA; or CI_API_V4_URL,
CI_PROJECT_ID, GITLAB_API_TOKEN (api scope), CI_MERGE_REQUEST_IID, CI_COMMIT_SHA. Tokens
go in headers only and never into output. what-if compares with the pull request's base
commit (the event's `pull_request.base.sha`; CI_MERGE_REQUEST_DIFF_BASE_SHA), which the
checkout must hold: fetch the whole history.
"""

from __future__ import annotations

import base64
import io
import ipaddress
import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PLAN_FILE = "plan.json"
JOURNAL_FILE = "journal.jsonl"
DRIFT_LABEL = "orgctl-drift"
# The drift job's pages, kept as its artifact.
DRIFT_PAGE = "drift.html"
ACCESS_PAGE = "access.html"
# GitHub refuses a comment over 65,536 characters; GitLab allows far more.
COMMENT_LIMIT = {"github": 60_000, "gitlab": 900_000}
TRUSTED_ORIGINS = "ORGCTL_TRUSTED_ORIGINS"
CREDENTIAL_KINDS = ("TOKEN", "USERNAME", "PASSWORD")
# Any portal's credentials, read-only or not, and the plain ones.
_CREDENTIAL = re.compile(r"^ORGCTL_(?:[A-Z0-9_]+_)?(?:TOKEN|USERNAME|PASSWORD)(?:_READ)?$")
# Tokens of the CI itself, which orgctl never needs.
CI_TOKENS = (
    "GITHUB_TOKEN",
    "GITLAB_API_TOKEN",
    "CI_JOB_TOKEN",
    "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
)


class CIError(Exception):
    """A problem this script reports in one line, then exits 1."""


class Refused(CIError):
    """A job that stops before orgctl runs; its comment or issue says why."""


class HttpStatusError(CIError):
    """The hosting API answered an HTTP error status."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


# --- the hosting API ---------------------------------------------------------------------------


def _check_api_url(url: str) -> None:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "https":
        return
    host = parts.hostname or ""
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if parts.scheme != "http" or not loopback:
        raise CIError(f"the hosting API must be https (or loopback http), not {url}")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # followed by hand, without the token


@dataclass
class Http:
    base: str
    headers: dict[str, str]

    def call(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        headers = {**self.headers, "Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        url = path if path.startswith(("http://", "https://")) else self.base + path
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=60) as reply:
                text = reply.read().decode()
        except urllib.error.HTTPError as exc:
            raise HttpStatusError(
                f"{method} {path}: HTTP {exc.code} {exc.reason}", exc.code
            ) from None
        except urllib.error.URLError as exc:
            raise CIError(f"{method} {path}: {exc.reason}") from None
        return json.loads(text) if text else None

    def call_if_found(self, method: str, path: str) -> Any:
        """The answer, or None when the API answers 404."""
        try:
            return self.call(method, path)
        except HttpStatusError as exc:
            if exc.status == 404:
                return None
            raise

    def download(self, url: str) -> bytes | None:
        """The bytes at `url`; a redirect is followed without the token (it points at
        storage that must not see it). None when there is nothing there."""
        opener = urllib.request.build_opener(_NoRedirect)
        request = urllib.request.Request(url, headers=self.headers)
        try:
            with opener.open(request, timeout=120) as reply:
                return bytes(reply.read())
        except urllib.error.HTTPError as exc:
            if exc.code in (301, 302, 303, 307, 308) and exc.headers.get("Location"):
                with urllib.request.urlopen(exc.headers["Location"], timeout=120) as reply:
                    return bytes(reply.read())
            if exc.code == 404:
                return None
            raise CIError(f"GET {url}: HTTP {exc.code} {exc.reason}") from None

    def upload(self, path: str, content: bytes) -> None:
        request = urllib.request.Request(
            self.base + path, data=content, method="PUT", headers=self.headers
        )
        try:
            urllib.request.urlopen(request, timeout=120).close()
        except urllib.error.URLError as exc:
            raise CIError(f"PUT {path}: {exc}") from None


def _need(env: Mapping[str, str], name: str) -> str:
    value = env.get(name)
    if not value:
        raise CIError(f"{name} is not set")
    return value


class GitHub:
    kind = "github"

    def __init__(self, env: Mapping[str, str]) -> None:
        base = env.get("GITHUB_API_URL", "https://api.github.com").rstrip("/")
        _check_api_url(base)
        token = _need(env, "GITHUB_TOKEN")
        self.http = Http(base, {"Authorization": f"Bearer {token}"})
        self.repo = _need(env, "GITHUB_REPOSITORY")
        self.env = env

    def run_url(self) -> str | None:
        server, run = self.env.get("GITHUB_SERVER_URL"), self.env.get("GITHUB_RUN_ID")
        return f"{server}/{self.repo}/actions/runs/{run}" if server and run else None

    def review(self) -> tuple[int, str]:
        """The pull request of this run and its head commit, from the event."""
        with open(_need(self.env, "GITHUB_EVENT_PATH"), encoding="utf-8") as file:
            pull = json.load(file)["pull_request"]
        return int(pull["number"]), str(pull["head"]["sha"])

    def base(self) -> str | None:
        """The commit the pull request is compared with, from the event."""
        with open(_need(self.env, "GITHUB_EVENT_PATH"), encoding="utf-8") as file:
            base = json.load(file)["pull_request"].get("base") or {}
        return str(base["sha"]) if base.get("sha") else None

    def commit(self) -> str:
        return _need(self.env, "GITHUB_SHA")

    def review_of(self, sha: str) -> tuple[int, str] | None:
        pulls = self.http.call("GET", f"/repos/{self.repo}/commits/{sha}/pulls")
        return (int(pulls[0]["number"]), str(pulls[0]["head"]["sha"])) if pulls else None

    def comments(self, number: int) -> list[tuple[int, str]]:
        path = f"/repos/{self.repo}/issues/{number}/comments?per_page=100"
        return [(c["id"], c.get("body") or "") for c in self.http.call("GET", path)]

    def comment(self, number: int, body: str) -> None:
        self.http.call("POST", f"/repos/{self.repo}/issues/{number}/comments", {"body": body})

    def edit_comment(self, number: int, comment_id: int, body: str) -> None:
        path = f"/repos/{self.repo}/issues/comments/{comment_id}"
        self.http.call("PATCH", path, {"body": body})

    def delete_comment(self, number: int, comment_id: int) -> None:
        self.http.call("DELETE", f"/repos/{self.repo}/issues/comments/{comment_id}")

    def open_issue(self, title: str) -> int | None:
        path = f"/repos/{self.repo}/issues?state=open&labels={DRIFT_LABEL}&per_page=100"
        found = [i["number"] for i in self.http.call("GET", path) if i["title"] == title]
        return found[0] if found else None

    def create_issue(self, title: str, body: str) -> None:
        issue = {"title": title, "body": body, "labels": [DRIFT_LABEL]}
        self.http.call("POST", f"/repos/{self.repo}/issues", issue)

    def update_issue(self, number: int, body: str) -> None:
        self.http.call("PATCH", f"/repos/{self.repo}/issues/{number}", {"body": body})

    def close_issue(self, number: int, note: str) -> None:
        self.comment(number, note)
        self.http.call("PATCH", f"/repos/{self.repo}/issues/{number}", {"state": "closed"})

    def status(self, sha: str, ok: bool, name: str, description: str) -> None:
        body = {
            "state": "success" if ok else "failure",
            "context": f"orgctl apply / {name}",
            "description": description[:140],
        }
        url = self.run_url()
        if url:
            body["target_url"] = url
        self.http.call("POST", f"/repos/{self.repo}/statuses/{sha}", body)

    def fetch_plan(self, artifact: str) -> bytes | None:
        """plan.json of the newest artifact of that name (the PR job uploads it)."""
        query = urllib.parse.urlencode({"name": artifact, "per_page": 1})
        found = self.http.call("GET", f"/repos/{self.repo}/actions/artifacts?{query}")
        artifacts = [a for a in found.get("artifacts", []) if not a.get("expired")]
        if not artifacts:
            return None
        archive = self.http.download(artifacts[0]["archive_download_url"])
        if archive is None:
            return None
        with zipfile.ZipFile(io.BytesIO(archive)) as zipped:
            return zipped.read(PLAN_FILE)

    def store_plan(self, artifact: str, content: bytes) -> None:
        """The workflow's upload-artifact step stores it; the name goes to the step output."""
        step_output("artifact", artifact, self.env)

    def propose(self, change: Proposal) -> str:
        """Branch `change.branch` from this commit (reset if it exists), the files on it, and
        one open pull request for it; its address."""
        repo, base = self.repo, self.commit()
        try:
            ref = {"ref": f"refs/heads/{change.branch}", "sha": base}
            self.http.call("POST", f"/repos/{repo}/git/refs", ref)
        except HttpStatusError as exc:
            if exc.status != 422:  # 422: the branch exists; start it again from here
                raise
            reset = {"sha": base, "force": True}
            self.http.call("PATCH", f"/repos/{repo}/git/refs/heads/{change.branch}", reset)
        for path, text in change.files.items():
            where = f"/repos/{repo}/contents/{urllib.parse.quote(path)}"
            found = self.http.call_if_found("GET", f"{where}?ref={change.branch}")
            content = base64.b64encode(text.encode()).decode()
            put = {"message": change.title, "content": content, "branch": change.branch}
            if found:
                put["sha"] = found["sha"]
            self.http.call("PUT", where, put)
        owner = repo.split("/")[0]
        query = urllib.parse.urlencode({"state": "open", "head": f"{owner}:{change.branch}"})
        open_pulls = self.http.call("GET", f"/repos/{repo}/pulls?{query}")
        if open_pulls:
            number = open_pulls[0]["number"]
            self.http.call("PATCH", f"/repos/{repo}/pulls/{number}", {"body": change.body})
        else:
            pull = {
                "title": change.title,
                "head": change.branch,
                "base": self.env.get("GITHUB_REF_NAME") or "main",
                "body": change.body,
            }
            number = self.http.call("POST", f"/repos/{repo}/pulls", pull)["number"]
        server = self.env.get("GITHUB_SERVER_URL", "https://github.com")
        return f"{server}/{repo}/pull/{number}"


class GitLab:
    kind = "gitlab"

    def __init__(self, env: Mapping[str, str]) -> None:
        base = _need(env, "CI_API_V4_URL").rstrip("/")
        _check_api_url(base)
        token = _need(env, "GITLAB_API_TOKEN")
        self.http = Http(base, {"PRIVATE-TOKEN": token})
        self.project = f"/projects/{_need(env, 'CI_PROJECT_ID')}"
        self.env = env

    def run_url(self) -> str | None:
        return self.env.get("CI_JOB_URL")

    def review(self) -> tuple[int, str]:
        iid = int(_need(self.env, "CI_MERGE_REQUEST_IID"))
        head = self.env.get("CI_MERGE_REQUEST_SOURCE_BRANCH_SHA") or self.commit()
        return iid, head

    def base(self) -> str | None:
        """The merge request's base: where its branch left the target branch."""
        return self.env.get("CI_MERGE_REQUEST_DIFF_BASE_SHA") or None

    def commit(self) -> str:
        return _need(self.env, "CI_COMMIT_SHA")

    def review_of(self, sha: str) -> tuple[int, str] | None:
        found = self.http.call("GET", f"{self.project}/repository/commits/{sha}/merge_requests")
        return (int(found[0]["iid"]), str(found[0]["sha"])) if found else None

    def comments(self, number: int) -> list[tuple[int, str]]:
        path = f"{self.project}/merge_requests/{number}/notes?per_page=100"
        return [(n["id"], n.get("body") or "") for n in self.http.call("GET", path)]

    def comment(self, number: int, body: str) -> None:
        self.http.call("POST", f"{self.project}/merge_requests/{number}/notes", {"body": body})

    def edit_comment(self, number: int, comment_id: int, body: str) -> None:
        path = f"{self.project}/merge_requests/{number}/notes/{comment_id}"
        self.http.call("PUT", path, {"body": body})

    def delete_comment(self, number: int, comment_id: int) -> None:
        self.http.call("DELETE", f"{self.project}/merge_requests/{number}/notes/{comment_id}")

    def open_issue(self, title: str) -> int | None:
        query = urllib.parse.urlencode({"state": "opened", "labels": DRIFT_LABEL, "per_page": 100})
        issues = self.http.call("GET", f"{self.project}/issues?{query}")
        mine = [i["iid"] for i in issues if i["title"] == title]
        return mine[0] if mine else None

    def create_issue(self, title: str, body: str) -> None:
        issue = {"title": title, "description": body, "labels": DRIFT_LABEL}
        self.http.call("POST", f"{self.project}/issues", issue)

    def update_issue(self, number: int, body: str) -> None:
        self.http.call("PUT", f"{self.project}/issues/{number}", {"description": body})

    def close_issue(self, number: int, note: str) -> None:
        self.http.call("POST", f"{self.project}/issues/{number}/notes", {"body": note})
        self.http.call("PUT", f"{self.project}/issues/{number}", {"state_event": "close"})

    def status(self, sha: str, ok: bool, name: str, description: str) -> None:
        body = {
            "state": "success" if ok else "failed",
            "name": f"orgctl apply / {name}",
            "description": description[:140],
        }
        url = self.run_url()
        if url:
            body["target_url"] = url
        self.http.call("POST", f"{self.project}/statuses/{sha}", body)

    def fetch_plan(self, artifact: str) -> bytes | None:
        return self.http.download(self.http.base + self._package(artifact))

    def store_plan(self, artifact: str, content: bytes) -> None:
        # The generic package registry keeps it by name, past the pipeline's own artifacts.
        self.http.upload(self._package(artifact), content)

    def propose(self, change: Proposal) -> str:
        """One commit of the files on `change.branch`, from this commit (the branch is
        replaced if it exists), and one open merge request for it; its address."""
        project, base = self.project, self.commit()
        actions = [
            {
                "action": "update" if path in change.existing else "create",
                "file_path": path,
                "content": text,
            }
            for path, text in change.files.items()
        ]
        commit = {
            "branch": change.branch,
            "start_sha": base,
            "force": True,
            "commit_message": change.title,
            "actions": actions,
        }
        self.http.call("POST", f"{project}/repository/commits", commit)
        query = urllib.parse.urlencode({"state": "opened", "source_branch": change.branch})
        opened = self.http.call("GET", f"{project}/merge_requests?{query}")
        if opened:
            iid = opened[0]["iid"]
            update = {"description": change.body}
            self.http.call("PUT", f"{project}/merge_requests/{iid}", update)
        else:
            request = {
                "source_branch": change.branch,
                "target_branch": self.env.get("CI_DEFAULT_BRANCH") or "main",
                "title": change.title,
                "description": change.body,
            }
            iid = self.http.call("POST", f"{project}/merge_requests", request)["iid"]
        web = self.env.get("CI_PROJECT_URL", "")
        return f"{web}/-/merge_requests/{iid}"

    def _package(self, artifact: str) -> str:
        name, _, sha = artifact.rpartition("-")
        return f"{self.project}/packages/generic/orgctl-plan/{sha}/{name}.json"


Hosting = GitHub | GitLab


@dataclass(frozen=True)
class Proposal:
    """A change to propose for review: files (path from the repository root -> text)."""

    branch: str
    title: str
    body: str
    files: dict[str, str]
    existing: frozenset[str]  # which of the files exist on the base commit


def hosting(env: Mapping[str, str]) -> Hosting:
    if env.get("GITHUB_ACTIONS") == "true":
        return GitHub(env)
    if env.get("GITLAB_CI") == "true":
        return GitLab(env)
    raise CIError("neither GitHub Actions (GITHUB_ACTIONS) nor GitLab CI (GITLAB_CI)")


# --- pieces the jobs share --------------------------------------------------------------------


def step_output(name: str, value: str, env: Mapping[str, str]) -> None:
    """A GitHub Actions step output (ignored elsewhere)."""
    path = env.get("GITHUB_OUTPUT")
    if path:
        with open(path, "a", encoding="utf-8") as file:
            file.write(f"{name}={value}\n")


def artifact_name(portal: str, sha: str) -> str:
    """`orgctl-plan-<portal>-<commit>`: valid as a GitHub artifact and a GitLab package
    file name whatever the portal's name holds."""
    slug = re.sub(r"[^A-Za-z0-9._]+", "_", portal)
    return f"orgctl-plan-{slug}-{sha}"


@dataclass(frozen=True)
class Run:
    code: int
    stdout: str
    stderr: str


def variable_stem(name: str) -> str:
    """`ORGCTL_<NAME>`, as orgctl names a portal's own variables."""
    return "ORGCTL_" + re.sub(r"[^A-Z0-9]", "_", name.upper())


def portal_env(name: str, env: Mapping[str, str], read_only: bool) -> dict[str, str]:
    """orgctl's environment for portal NAME. Its credentials go under its own
    ORGCTL_<NAME>_* names, which orgctl reads first, so a branch's Portal `auth` cannot
    pick another variable; every other credential and the CI's tokens are left out, so no
    manifest can name them. Read-only, only `_READ` names are taken: a job that holds
    apply's credentials too (GitLab's protected variables on main) never reads with them."""
    stem = variable_stem(name)
    kept = {k: v for k, v in env.items() if not _CREDENTIAL.match(k) and k not in CI_TOKENS}
    suffix = "_READ" if read_only else ""
    for kind in CREDENTIAL_KINDS:
        value = env.get(f"{stem}_{kind}{suffix}") or env.get(f"ORGCTL_{kind}{suffix}")
        if value:
            kept[f"{stem}_{kind}"] = value
    return kept


def read_only_env(name: str, env: Mapping[str, str]) -> dict[str, str]:
    """orgctl's environment for a job that only reads (plan, drift): the portal's
    read-only account. Without one the job is refused rather than read with another
    account, naming the `_READ` variables to set (orgctl itself would name apply's)."""
    kept = portal_env(name, env, read_only=True)
    stem = variable_stem(name)
    has = {kind: f"{stem}_{kind}" in kept for kind in CREDENTIAL_KINDS}
    if has["TOKEN"] or (has["USERNAME"] and has["PASSWORD"]):
        return kept
    raise Refused(
        f"no read-only credentials for {name}: set the secret (CI/CD variable)"
        f" {stem}_TOKEN_READ, or {stem}_USERNAME_READ and {stem}_PASSWORD_READ, to an"
        ' account that can read the portal and change nothing (README, "CI"); the'
        " portal's other credentials are never used to read"
    )


def unbound_origins(env: Mapping[str, str]) -> str | None:
    """Why a pull request may not be planned here, or None. A branch names each portal
    and its URLs; only ORGCTL_TRUSTED_ORIGINS, set outside the repository, may say which
    host a portal's credentials go to, and only NAME=origin entries tie them to one
    portal (two portals' plain origins would let a branch swap their names)."""
    raw = (env.get(TRUSTED_ORIGINS) or "").strip()
    if not raw:
        return (
            f"{TRUSTED_ORIGINS} is not set: a pull request could send the portal's"
            " credentials to any host its manifests name. Set the repository (CI/CD)"
            f" variable {TRUSTED_ORIGINS} to NAME=origin entries, e.g."
            " prod=https://gis.example.com"
        )
    plain = [e.strip() for e in raw.split(",") if e.strip() and "=" not in e.split("://")[0]]
    if plain:
        return (
            f"{TRUSTED_ORIGINS} lists {', '.join(plain)} without a portal name: write each"
            " entry NAME=origin (prod=https://gis.example.com), so a branch that gives one"
            " portal's folder another portal's name cannot send it that portal's credentials"
        )
    return None


def orgctl(*args: str, env: Mapping[str, str] | None = None, echo: bool = True) -> Run:
    """Run orgctl; its output also goes to the job's log (not a page it saves: `echo`)."""
    done = subprocess.run(["orgctl", *args], capture_output=True, text=True, check=False, env=env)
    if echo:
        sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    return Run(done.returncode, done.stdout, done.stderr)


def refusal(refused: Refused) -> Run:
    """A job stopped before orgctl ran: said in the log, and reported as orgctl's
    failure would be."""
    print(f"orgctl_ci: {refused}", file=sys.stderr)
    return Run(1, "", str(refused))


def report(run: Run, title: str) -> str:
    """orgctl's Markdown report; when it printed none, a report made of its error."""
    if run.stdout.strip():
        return run.stdout
    error = run.stderr.strip() or f"orgctl exited {run.code} without a message"
    return f"## {title}\n\n**Failed (exit {run.code}).**\n\n```text\n{error}\n```\n"


def split_markdown(text: str, limit: int) -> list[str]:
    """`text` in parts of at most `limit` characters, cut between lines; a code block cut
    in two is closed at the end of one part and reopened at the start of the next."""
    parts: list[str] = []
    current: list[str] = []
    size = 0
    fence: str | None = None
    for line in text.splitlines(keepends=True):
        closing = f"{fence[:3]}\n" if fence else ""
        if current and size + len(line) + len(closing) > limit:
            parts.append("".join(current) + closing)
            current, size = ([fence + "\n"], len(fence) + 1) if fence else ([], 0)
        current.append(line[: limit - 8])
        size += len(current[-1])
        if line.startswith("```"):
            fence = None if fence else line.rstrip("\n")
    if current:
        parts.append("".join(current))
    return parts or [""]


# orgctl plan --split opens each part with this marker.
PART_MARK = re.compile(r"^<!-- orgctl part \d+/\d+ -->\n", re.MULTILINE)


def comment_parts(text: str, limit: int) -> list[str]:
    """orgctl's own parts (`plan --split`) when it made them, else `text` cut to fit."""
    if PART_MARK.match(text):
        return [part for part in PART_MARK.split(text) if part]
    return split_markdown(text, limit)


def keep_comments(host: Hosting, number: int, key: str, text: str) -> None:
    """One comment per portal (several when long), updated in place on every run; parts a
    shorter text no longer needs are deleted."""
    parts = comment_parts(text, COMMENT_LIMIT[host.kind])
    pattern = re.compile(rf"^<!-- {re.escape(key)}:(\d+)/\d+ -->")
    existing: dict[int, int] = {}
    for comment_id, body in host.comments(number):
        found = pattern.match(body)
        if found:
            existing.setdefault(int(found.group(1)), comment_id)
    for index, part in enumerate(parts, start=1):
        body = f"<!-- {key}:{index}/{len(parts)} -->\n{part}"
        if index in existing:
            host.edit_comment(number, existing.pop(index), body)
        else:
            host.comment(number, body)
    for comment_id in existing.values():
        host.delete_comment(number, comment_id)


def link(host: Hosting) -> str:
    url = host.run_url()
    return f"\n[CI run]({url})\n" if url else ""


# --- the jobs ---------------------------------------------------------------------------------


def plan_job(host: Hosting, name: str, folder: str) -> int:
    number, head = host.review()
    title = f"orgctl plan: {name}"
    try:
        refused = unbound_origins(host.env)
        if refused is not None:
            raise Refused(refused)
        env = read_only_env(name, host.env)
    except Refused as exc:
        keep_comments(host, number, f"orgctl-plan:{name}", report(refusal(exc), title))
        return 1
    # Parts small enough for the comment and the key this script puts above each.
    split = str(COMMENT_LIMIT[host.kind] - 200)
    run = orgctl(
        "plan",
        folder,
        "--format",
        "markdown",
        "--split",
        split,
        "--detailed-exitcode",
        "-o",
        PLAN_FILE,
        env=env,
    )
    keep_comments(host, number, f"orgctl-plan:{name}", report(run, title))
    if run.code == 1:
        return 1
    with open(PLAN_FILE, "rb") as file:
        host.store_plan(artifact_name(name, head), file.read())
    return 0


def apply_job(host: Hosting, name: str, folder: str) -> int:
    """Apply the plan reviewed on the pull request; never one nobody saw."""
    commit = host.commit()
    review = host.review_of(commit)
    plan, keyed = _reviewed_plan(host, name, commit, review)
    if plan is None:
        message = f"no reviewed plan for {name} at {commit[:12]}: nothing was applied"
        print(message, file=sys.stderr)
        host.status(commit, False, name, message)
        return 1
    with open(PLAN_FILE, "wb") as file:
        file.write(plan)
    env = portal_env(name, host.env, read_only=False)
    run = orgctl(
        "apply",
        "--plan",
        PLAN_FILE,
        folder,
        "--auto-approve",
        "--journal",
        JOURNAL_FILE,
        env=env,
    )
    if run.code != 0 and "stale plan" in run.stderr:
        return _replan(host, name, folder, commit, review, run)
    summary = _last_line(run.stdout, "Apply:") or _last_line(run.stderr, "Error") or "no calls"
    host.status(commit, run.code == 0, name, summary)
    if review is not None:
        outcome = "applied" if run.code == 0 else f"failed (exit {run.code})"
        body = (
            f"### orgctl apply: {name} {outcome}\n\nPlan reviewed at `{keyed[:12]}`.\n\n"
            f"```text\n{(run.stdout + run.stderr).strip()}\n```\n{link(host)}"
        )
        keep_comments(host, review[0], f"orgctl-apply:{name}", body)
    return run.code


def _reviewed_plan(
    host: Hosting, name: str, commit: str, review: tuple[int, str] | None
) -> tuple[bytes | None, str]:
    """A fresh plan posted by an earlier run of this job for this commit (reviewed since,
    as the job is run again) comes first, then the plan of the pull request's head."""
    for sha in [commit] + ([review[1]] if review else []):
        found = host.fetch_plan(artifact_name(name, sha))
        if found is not None:
            return found, sha
    return None, ""


def _replan(
    host: Hosting, name: str, folder: str, commit: str, review: tuple[int, str] | None, stale: Run
) -> int:
    reason = _last_line(stale.stderr, "Error") or "stale plan"
    env = portal_env(name, host.env, read_only=False)
    fresh = orgctl("plan", folder, "--format", "markdown", "-o", PLAN_FILE, env=env)
    if fresh.code == 0:
        with open(PLAN_FILE, "rb") as file:
            host.store_plan(artifact_name(name, commit), file.read())
    host.status(commit, False, name, "stale plan: nothing applied; fresh plan posted")
    if review is not None:
        body = (
            f"### orgctl apply: {name}: nothing applied\n\nThe portal changed since the plan"
            f" was reviewed:\n\n```text\n{reason}\n```\n\nReview the fresh plan below, then"
            f" run the apply job again to apply it.{link(host)}\n\n"
            + report(fresh, f"orgctl plan: {name}")
        )
        keep_comments(host, review[0], f"orgctl-plan:{name}", body)
    return 1


def _last_line(text: str, prefix: str) -> str | None:
    lines = [line for line in text.splitlines() if line.startswith(prefix)]
    return lines[-1] if lines else None


def drift_job(host: Hosting, name: str, folder: str, env: Mapping[str, str]) -> int:
    """Drift, its pages and the adoption only read the portal: they run as its read-only
    account, as a pull request's plan does, and never with apply's."""
    reader: dict[str, str] | None = None
    try:
        reader = read_only_env(name, env)
        run = orgctl("drift", folder, "--format", "markdown", env=reader)
    except Refused as exc:
        run = refusal(exc)
    if run.code in (0, 2) and reader is not None:  # the portal could be read
        save_pages(folder, reader)
    title = f"orgctl drift: {name}"
    number = host.open_issue(title)
    if run.code == 0:
        if number is not None:
            host.close_issue(number, f"{name} matches the manifests again.{link(host)}")
        return 0
    body = report(run, title) + link(host)
    if (
        run.code == 2
        and reader is not None
        and env.get("ORGCTL_DRIFT_PULL_REQUEST", "true").lower() != "false"
    ):
        body += propose_adoption(host, name, folder, reader)
    if number is None:
        host.create_issue(title, body)
    else:
        host.update_issue(number, body)
    return 1 if run.code == 1 else 0


def save_pages(folder: str, env: Mapping[str, str]) -> None:
    """The drift report and the access review as pages a browser opens offline, which
    the workflow keeps as the job's artifact. A page that cannot be made is named in the
    log; the issue is kept all the same."""
    drift = orgctl("drift", folder, "--format", "html", "-o", DRIFT_PAGE, env=env, echo=False)
    access = orgctl("access", folder, "--format", "html", "-o", ACCESS_PAGE, env=env, echo=False)
    for page, made in ((DRIFT_PAGE, drift), (ACCESS_PAGE, access)):
        if not Path(page).is_file():
            print(f"orgctl_ci: {page} not written (orgctl exited {made.code})", file=sys.stderr)


def propose_adoption(host: Hosting, name: str, folder: str, env: Mapping[str, str]) -> str:
    """Write the live values into the manifests (`orgctl adopt --drifted`) and propose the
    result for review; the line that says where, for the drift issue."""
    before = _manifest_texts(folder)
    run = orgctl("adopt", "--drifted", folder, env=env)
    if run.code != 0:
        why = (run.stderr or run.stdout).strip()
        return f"\n\nThe live values could not be written into the manifests: {why}"
    after = _manifest_texts(folder)
    changed = {path: text for path, text in after.items() if before.get(path) != text}
    if not changed:
        return ""
    proposal = Proposal(
        branch=f"orgctl/drift/{name}",
        title=f"orgctl: accept the drift of {name} into the manifests",
        body=(
            f"`orgctl adopt --drifted {folder}` wrote the live values of {name} into the"
            " manifests. Merge to keep the portal as it is now; close to restore the"
            f" manifests' values with the next apply.{link(host)}"
        ),
        files=changed,
        existing=frozenset(before),
    )
    address = host.propose(proposal)
    return f"\n\nA pull request accepts the live values into Git: {address}"


def _manifest_texts(folder: str) -> dict[str, str]:
    root = Path(folder)
    files = sorted(p for p in root.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())
    return {p.as_posix(): p.read_text(encoding="utf-8") for p in files}


def drift_here(host: Hosting, name: str, folder: str) -> int:
    return drift_job(host, name, folder, os.environ)


def what_if_job(host: Hosting, name: str, folder: str) -> int:
    """Pull request: `orgctl what-if --against` the base commit, read with the portal's
    read-only account, as the job's summary; its exit code, 2 when anyone gains a
    privilege (Access Analyzer's "no new access" check), so the step shows it."""
    try:
        refused = unbound_origins(host.env)
        if refused is not None:
            raise Refused(refused)
        base = host.base()
        if base is None:
            raise Refused("no base commit in the event: what-if runs on pull requests only")
        env = read_only_env(name, host.env)
    except Refused as exc:
        return refusal(exc).code
    run = orgctl(
        "what-if",
        folder,
        "--against",
        base,
        "--format",
        "markdown",
        "--fail-on-new-access",
        env=env,
    )
    job_summary(report(run, f"orgctl what-if: {name}"), host.env)
    return run.code


def job_summary(text: str, env: Mapping[str, str]) -> None:
    """Markdown on the run's page (GitHub's GITHUB_STEP_SUMMARY); elsewhere the log holds it."""
    path = env.get("GITHUB_STEP_SUMMARY")
    if path:
        with open(path, "a", encoding="utf-8") as file:
            file.write(text + "\n")


JOBS = {"plan": plan_job, "apply": apply_job, "drift": drift_here, "what-if": what_if_job}


def main(argv: Sequence[str]) -> int:
    if len(argv) != 3 or argv[0] not in JOBS:
        print(__doc__, file=sys.stderr)
        return 1
    job, name, folder = argv
    try:
        return JOBS[job](hosting(os.environ), name, folder)
    except CIError as exc:
        print(f"orgctl_ci: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
