"""A fake of the GitHub and GitLab REST APIs the CI examples call, on loopback: it keeps
comments, issues, saved plans and statuses in memory and records every call."""

from __future__ import annotations

import base64
import io
import json
import re
import threading
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

GITHUB_TOKEN = "ghs-fake-hosting-token"
GITLAB_TOKEN = "glpat-fake-hosting-token"
REPO = "acme/manifests"
PROJECT = "42"


@dataclass
class Call:
    method: str
    path: str
    body: Any
    authorized: bool


@dataclass
class Hosting:
    """What the hosting holds; tests seed and read it."""

    url: str = ""
    calls: list[Call] = field(default_factory=list)
    comments: dict[int, list[dict[str, Any]]] = field(default_factory=dict)  # PR/MR -> notes
    issues: list[dict[str, Any]] = field(default_factory=list)
    artifacts: dict[str, list[bytes]] = field(default_factory=dict)  # name -> zips, newest last
    packages: dict[str, bytes] = field(default_factory=dict)
    statuses: list[dict[str, Any]] = field(default_factory=list)
    reviews: dict[str, tuple[int, str]] = field(default_factory=dict)  # commit -> (PR, head)
    blob_saw_token: list[bool] = field(default_factory=list)
    # branch -> (base commit, {path: text}); pull and merge requests, as opened
    branches: dict[str, tuple[str, dict[str, str]]] = field(default_factory=dict)
    proposals: list[dict[str, Any]] = field(default_factory=list)
    next_id: int = 100

    def new_id(self) -> int:
        self.next_id += 1
        return self.next_id

    def upload_artifact(self, name: str, files: dict[str, bytes]) -> None:
        """What actions/upload-artifact does, as a zip of the files."""
        stream = io.BytesIO()
        with zipfile.ZipFile(stream, "w") as archive:
            for file_name, content in files.items():
                archive.writestr(file_name, content)
        self.artifacts.setdefault(name, []).append(stream.getvalue())

    def bodies(self, number: int) -> list[str]:
        return [c["body"] for c in self.comments.get(number, [])]

    def writes(self) -> list[Call]:
        return [c for c in self.calls if c.method != "GET"]


Route = tuple[str, re.Pattern[str], Callable[..., Any]]


@dataclass(frozen=True)
class Refusal:
    """An answer other than 200, from a route."""

    status: int
    message: str


def _routes(h: Hosting) -> list[Route]:
    gh = rf"/gh/repos/{REPO}"
    gl = rf"/gl/api/v4/projects/{PROJECT}"

    def add_comment(number: str, body: dict[str, Any]) -> Any:
        note = {"id": h.new_id(), "body": body["body"]}
        h.comments.setdefault(int(number), []).append(note)
        return note

    def find_comment(comment_id: str) -> dict[str, Any]:
        return next(c for notes in h.comments.values() for c in notes if c["id"] == int(comment_id))

    def edit_comment(comment_id: str, body: dict[str, Any]) -> Any:
        find_comment(comment_id)["body"] = body["body"]
        return find_comment(comment_id)

    def delete_comment(comment_id: str) -> None:
        for notes in h.comments.values():
            notes[:] = [c for c in notes if c["id"] != int(comment_id)]

    def open_issues(label: str) -> list[dict[str, Any]]:
        return [i for i in h.issues if i["state"] in ("open", "opened") and label in i["labels"]]

    def create_issue(body: dict[str, Any], state: str) -> Any:
        labels = body["labels"] if isinstance(body["labels"], list) else [body["labels"]]
        text = body.get("body", body.get("description"))
        issue = {"number": h.new_id(), "title": body["title"], "body": text}
        issue.update({"labels": labels, "state": state})
        issue["iid"] = issue["number"]
        h.issues.append(issue)
        return issue

    def update_issue(number: str, body: dict[str, Any]) -> Any:
        issue = next(i for i in h.issues if i["number"] == int(number))
        if "body" in body or "description" in body:
            issue["body"] = body.get("body", body.get("description"))
        if body.get("state") == "closed" or body.get("state_event") == "close":
            issue["state"] = "closed"
        return issue

    def artifacts(query: dict[str, list[str]]) -> Any:
        name = query["name"][0]
        zips = h.artifacts.get(name, [])
        found = [{"name": name, "expired": False, "archive_download_url": f"{h.url}/gh/zip/{name}"}]
        return {"total_count": len(zips), "artifacts": found if zips else []}

    def pulls(sha: str) -> Any:
        review = h.reviews.get(sha)
        return [{"number": review[0], "head": {"sha": review[1]}}] if review else []

    def merge_requests(sha: str) -> Any:
        review = h.reviews.get(sha)
        return [{"iid": review[0], "sha": review[1]}] if review else []

    def status(sha: str, body: dict[str, Any]) -> Any:
        h.statuses.append({"sha": sha, **body})
        return body

    def create_ref(body: dict[str, Any]) -> Any:
        branch = body["ref"].removeprefix("refs/heads/")
        if branch in h.branches:
            return Refusal(422, "Reference already exists")
        h.branches[branch] = (body["sha"], {})
        return body

    def reset_ref(branch: str, body: dict[str, Any]) -> Any:
        h.branches[branch] = (body["sha"], {})
        return body

    def read_file(path: str, query: dict[str, list[str]]) -> Any:
        files = h.branches.get(query["ref"][0], ("", {}))[1]
        if path not in files:
            return Refusal(404, "Not Found")
        return {"path": path, "sha": f"sha-of-{len(files[path])}"}

    def write_file(path: str, body: dict[str, Any]) -> Any:
        files = h.branches[body["branch"]][1]
        if path in files and body.get("sha") != f"sha-of-{len(files[path])}":
            return Refusal(409, "sha does not match")
        files[path] = base64.b64decode(body["content"]).decode()
        return {"content": {"path": path}}

    def commit(body: dict[str, Any]) -> Any:
        files = {a["file_path"]: a["content"] for a in body["actions"]}
        h.branches[body["branch"]] = (body["start_sha"], files)
        return {"id": "commit"}

    def open_proposals(branch: str) -> list[dict[str, Any]]:
        return [p for p in h.proposals if p["branch"] == branch and p["open"]]

    def propose(body: dict[str, Any], branch: str, number_key: str) -> Any:
        proposal = {number_key: h.new_id(), "branch": branch, "open": True, **body}
        h.proposals.append(proposal)
        return proposal

    def revise(number: str, body: dict[str, Any], number_key: str) -> Any:
        proposal = next(p for p in h.proposals if p[number_key] == int(number))
        proposal.update(body)
        return proposal

    return [
        (
            "GET",
            re.compile(rf"{gh}/issues/(\d+)/comments"),
            lambda n, **_: h.comments.get(int(n), []),
        ),
        (
            "POST",
            re.compile(rf"{gh}/issues/(\d+)/comments"),
            lambda n, body, **_: add_comment(n, body),
        ),
        (
            "PATCH",
            re.compile(rf"{gh}/issues/comments/(\d+)"),
            lambda i, body, **_: edit_comment(i, body),
        ),
        ("DELETE", re.compile(rf"{gh}/issues/comments/(\d+)"), lambda i, **_: delete_comment(i)),
        ("GET", re.compile(rf"{gh}/issues"), lambda query, **_: open_issues(query["labels"][0])),
        ("POST", re.compile(rf"{gh}/issues"), lambda body, **_: create_issue(body, "open")),
        ("PATCH", re.compile(rf"{gh}/issues/(\d+)"), lambda n, body, **_: update_issue(n, body)),
        ("GET", re.compile(rf"{gh}/commits/(\w+)/pulls"), lambda sha, **_: pulls(sha)),
        ("POST", re.compile(rf"{gh}/statuses/(\w+)"), lambda sha, body, **_: status(sha, body)),
        ("GET", re.compile(rf"{gh}/actions/artifacts"), lambda query, **_: artifacts(query)),
        (
            "GET",
            re.compile(rf"{gl}/merge_requests/(\d+)/notes"),
            lambda n, **_: h.comments.get(int(n), []),
        ),
        (
            "POST",
            re.compile(rf"{gl}/merge_requests/(\d+)/notes"),
            lambda n, body, **_: add_comment(n, body),
        ),
        (
            "PUT",
            re.compile(rf"{gl}/merge_requests/\d+/notes/(\d+)"),
            lambda i, body, **_: edit_comment(i, body),
        ),
        (
            "DELETE",
            re.compile(rf"{gl}/merge_requests/\d+/notes/(\d+)"),
            lambda i, **_: delete_comment(i),
        ),
        ("GET", re.compile(rf"{gl}/issues"), lambda query, **_: open_issues(query["labels"][0])),
        ("POST", re.compile(rf"{gl}/issues"), lambda body, **_: create_issue(body, "opened")),
        (
            "POST",
            re.compile(rf"{gl}/issues/(\d+)/notes"),
            lambda n, body, **_: add_comment(n, body),
        ),
        ("PUT", re.compile(rf"{gl}/issues/(\d+)"), lambda n, body, **_: update_issue(n, body)),
        (
            "GET",
            re.compile(rf"{gl}/repository/commits/(\w+)/merge_requests"),
            lambda sha, **_: merge_requests(sha),
        ),
        ("POST", re.compile(rf"{gl}/statuses/(\w+)"), lambda sha, body, **_: status(sha, body)),
        ("POST", re.compile(rf"{gh}/git/refs"), lambda body, **_: create_ref(body)),
        (
            "PATCH",
            re.compile(rf"{gh}/git/refs/heads/(.+)"),
            lambda branch, body, **_: reset_ref(branch, body),
        ),
        (
            "GET",
            re.compile(rf"{gh}/contents/(.+)"),
            lambda path, query, **_: read_file(path, query),
        ),
        ("PUT", re.compile(rf"{gh}/contents/(.+)"), lambda path, body, **_: write_file(path, body)),
        (
            "GET",
            re.compile(rf"{gh}/pulls"),
            lambda query, **_: open_proposals(query["head"][0].split(":", 1)[1]),
        ),
        (
            "POST",
            re.compile(rf"{gh}/pulls"),
            lambda body, **_: propose(body, body["head"], "number"),
        ),
        (
            "PATCH",
            re.compile(rf"{gh}/pulls/(\d+)"),
            lambda n, body, **_: revise(n, body, "number"),
        ),
        ("POST", re.compile(rf"{gl}/repository/commits"), lambda body, **_: commit(body)),
        (
            "GET",
            re.compile(rf"{gl}/merge_requests"),
            lambda query, **_: open_proposals(query["source_branch"][0]),
        ),
        (
            "POST",
            re.compile(rf"{gl}/merge_requests"),
            lambda body, **_: propose(body, body["source_branch"], "iid"),
        ),
        (
            "PUT",
            re.compile(rf"{gl}/merge_requests/(\d+)"),
            lambda n, body, **_: revise(n, body, "iid"),
        ),
    ]


class _Handler(BaseHTTPRequestHandler):
    hosting: Hosting
    routes: list[Route]

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return

    def _reply(self, code: int, payload: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(code)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _authorized(self) -> bool:
        return self.headers.get("Authorization") == f"Bearer {GITHUB_TOKEN}" or (
            self.headers.get("PRIVATE-TOKEN") == GITLAB_TOKEN
        )

    def _handle(self) -> None:
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        json_body = "json" in (self.headers.get("Content-Type") or "")
        body = json.loads(raw) if raw and json_body else raw
        h = self.hosting
        h.calls.append(Call(self.command, parts.path, body, self._authorized()))
        if self._blob(parts.path, h):
            return
        if not self._authorized():
            self._reply(401, b'{"message": "Bad credentials"}')
            return
        if self._package(parts.path, body, h):
            return
        for method, pattern, action in self.routes:
            found = pattern.fullmatch(parts.path)
            if method == self.command and found:
                result = action(*found.groups(), body=body, query=parse_qs(parts.query))
                if isinstance(result, Refusal):
                    message = json.dumps({"message": result.message}).encode()
                    self._reply(result.status, message, {"Content-Type": "application/json"})
                    return
                self._reply(200, json.dumps(result).encode(), {"Content-Type": "application/json"})
                return
        self._reply(404, b'{"message": "Not Found"}')

    def _blob(self, path: str, h: Hosting) -> bool:
        """An artifact's zip: the API answers with a redirect to storage."""
        if path.startswith("/gh/zip/") and self._authorized():
            self._reply(302, b"", {"Location": f"{h.url}/blob/{path.removeprefix('/gh/zip/')}"})
            return True
        if path.startswith("/blob/"):
            h.blob_saw_token.append(
                "Authorization" in self.headers or "PRIVATE-TOKEN" in self.headers
            )
            self._reply(200, h.artifacts[path.removeprefix("/blob/")][-1])
            return True
        return False

    def _package(self, path: str, body: Any, h: Hosting) -> bool:
        prefix = f"/gl/api/v4/projects/{PROJECT}/packages/generic/"
        if not path.startswith(prefix):
            return False
        key = path.removeprefix(prefix)
        if self.command == "PUT":
            h.packages[key] = body if isinstance(body, bytes) else json.dumps(body).encode()
            self._reply(201, b'{"message": "201 Created"}')
        elif key in h.packages:
            self._reply(200, h.packages[key])
        else:
            self._reply(404, b'{"message": "404 Not Found"}')
        return True

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _handle


@contextmanager
def fake_hosting() -> Iterator[Hosting]:
    hosting = Hosting()
    handler = type("Handler", (_Handler,), {"hosting": hosting, "routes": _routes(hosting)})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    hosting.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield hosting
    finally:
        server.shutdown()
        server.server_close()
