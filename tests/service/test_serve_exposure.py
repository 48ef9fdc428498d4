"""What `orgctl serve` lets a client reach: control only on loopback and with its secret,
a non-loopback host only over https and with a word about the demo's passwords, proxy
headers only from the proxies named, and the TLS files checked before the port."""

from __future__ import annotations

import re
import socket
import time
from pathlib import Path

import httpx

from tests.cli import env_with, orgctl
from tests.service.harness import Service, error_of

DEMO_STATE = Path(__file__).resolve().parents[2] / "examples" / "demo" / "state.yaml"
# TEST-NET-1 (RFC 5737): not loopback, and no interface of this machine holds it, so a
# run that gets past the checks fails to bind instead of serving the network.
FOREIGN_HOST = "192.0.2.1"


def test_control_is_refused_on_a_host_other_machines_reach() -> None:
    result = orgctl(
        "serve", "--host", FOREIGN_HOST, "--tls", "--control", "--port", "0", env=env_with()
    )
    assert result.returncode == 1
    assert "--control needs a loopback --host" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_a_host_other_machines_reach_needs_tls() -> None:
    result = orgctl("serve", "--host", FOREIGN_HOST, "--port", "0", env=env_with())
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "serve it with --tls" in lines[0], result.stderr


def test_a_host_other_machines_reach_is_warned_of_the_demo_passwords_once() -> None:
    result = orgctl("serve", "--host", FOREIGN_HOST, "--tls", "--port", "0", env=env_with())
    warnings = [line for line in result.stderr.splitlines() if "warning:" in line]
    assert len(warnings) == 1, result.stderr
    assert FOREIGN_HOST in warnings[0] and "admin-pass" in warnings[0]
    assert "cannot listen" in result.stderr  # it got as far as binding, after the warning


def control_clock(service: Service, headers: dict[str, str]) -> httpx.Response:
    form = {"advanceHours": 1, "f": "json"}
    return httpx.post(f"{service.url}/_control/clock", data=form, headers=headers)


def test_a_control_call_needs_the_secret(tmp_path: Path) -> None:
    service = Service(tmp_path / "db.sqlite", DEMO_STATE).start()
    try:
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"X-Esri-Authorization": "x"}):
            refused = control_clock(service, headers)
            assert refused.status_code == 401
            error_of(refused.json(), 401)
        allowed = control_clock(service, {"Authorization": f"Bearer {service.control_secret}"})
        assert allowed.json()["success"] is True
    finally:
        service.stop()
    assert service.control_secret not in service.output  # given, so not printed


def test_without_a_secret_in_the_environment_one_is_made_and_printed(tmp_path: Path) -> None:
    service = Service(tmp_path / "db.sqlite", DEMO_STATE, control=False, options=("--control",))
    service.start()
    try:
        deadline = time.monotonic() + 10
        while "control secret" not in service.output and time.monotonic() < deadline:
            time.sleep(0.05)
        found = re.search(r"control secret \(Authorization: Bearer\): (\S+)", service.output)
        assert found, service.output
        allowed = control_clock(service, {"Authorization": f"Bearer {found.group(1)}"})
        assert allowed.json()["success"] is True
        assert control_clock(service, {}).status_code == 401
    finally:
        service.stop()


def sign_in(service: Service, forwarded_for: str, username: str, password: str) -> dict[str, str]:
    reply = httpx.post(
        f"{service.url}/hq/sharing/rest/generateToken",
        data={"username": username, "password": password, "client": "requestip", "f": "json"},
        headers={"X-Forwarded-For": forwarded_for},
    )
    return dict(reply.json())


def test_x_forwarded_for_is_not_believed_without_forwarded_allow_ips(tmp_path: Path) -> None:
    # Believed from loopback (uvicorn's default), it let one address try passwords past
    # the per-address lock by claiming a new address each time.
    service = Service(tmp_path / "db.sqlite", DEMO_STATE).start()
    try:
        for attempt in range(20):
            sign_in(service, f"10.0.0.{attempt}", f"nobody{attempt}", "wrong")
        refused = sign_in(service, "10.0.1.1", "admin", "admin-pass")
        assert "Too many invalid sign-in attempts" in str(error_of(refused, 400)["details"])
    finally:
        service.stop()


def test_forwarded_allow_ips_names_the_proxies_whose_header_counts(tmp_path: Path) -> None:
    options = ("--forwarded-allow-ips", "127.0.0.1")
    service = Service(tmp_path / "db.sqlite", DEMO_STATE, options=options).start()
    try:
        token = sign_in(service, "10.9.8.7", "admin", "admin-pass")["token"]
        read = f"{service.url}/hq/sharing/rest/portals/self"

        def as_client(forwarded_for: str) -> dict[str, object]:
            headers = {"X-Esri-Authorization": f"Bearer {token}"}
            if forwarded_for:
                headers["X-Forwarded-For"] = forwarded_for
            return dict(httpx.get(read, params={"f": "json"}, headers=headers).json())

        assert as_client("10.9.8.7")["urlKey"] == "hq"  # the address the proxy names
        error_of(as_client(""), 498)  # the proxy's own address is another client
    finally:
        service.stop()


def test_the_tls_files_are_checked_before_the_port(tmp_path: Path) -> None:
    missing = tmp_path / "missing.pem"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = str(taken.getsockname()[1])
        result = orgctl(
            "serve", "--port", port, "--cert", missing, "--key", missing, env=env_with()
        )
    assert result.returncode == 1
    assert "cannot read the TLS certificate" in result.stderr, result.stderr


def authorize_status(service: Service, redirect_uri: str, host: str) -> int:
    params = {"client_id": "pythonapi", "response_type": "token", "redirect_uri": redirect_uri}
    url = f"{service.url}/hq/sharing/rest/oauth2/authorize"
    return httpx.get(url, params=params, headers={"Host": host}).status_code


def test_oauth_redirects_count_as_the_portals_own_by_the_listening_address(
    tmp_path: Path,
) -> None:
    service = Service(tmp_path / "db.sqlite", DEMO_STATE).start()
    try:
        port = service.url.rsplit(":", 1)[1]
        for own in (f"https://127.0.0.1:{port}/app", f"https://localhost:{port}/app"):
            assert authorize_status(service, own, "evil.example") == 200
        assert authorize_status(service, "https://evil.example/app", "evil.example") == 400
    finally:
        service.stop()


def test_origin_names_where_clients_reach_the_service(tmp_path: Path) -> None:
    options = ("--origin", "https://gis.example.com")
    service = Service(tmp_path / "db.sqlite", DEMO_STATE, options=options).start()
    try:
        port = service.url.rsplit(":", 1)[1]
        assert authorize_status(service, "https://gis.example.com/app", "x") == 200
        assert authorize_status(service, f"https://127.0.0.1:{port}/app", "x") == 400
    finally:
        service.stop()


def test_an_origin_that_is_no_origin_is_refused_before_listening() -> None:
    result = orgctl("serve", "--port", "0", "--origin", "gis.example.com/x", env=env_with())
    assert result.returncode == 1
    assert "--origin gis.example.com/x: give scheme://host[:port]" in result.stderr
