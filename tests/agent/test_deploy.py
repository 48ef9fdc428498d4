"""deploy/kubernetes and the Containerfile agree with the CLI: the container's args are a
valid `orgctl agent` command line, it listens on the port the container, the probes and
the Service name, the probes hit the agent's paths, its shard count is the replica count,
and every credential file it is told of lies in a mounted Secret."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
import kubernetes_validate
import yaml

from reconciler.cli.agent import command

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy" / "kubernetes"


def document(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((DEPLOY / name).read_text())
    return loaded


def container() -> dict[str, Any]:
    (agent,) = document("statefulset.yaml")["spec"]["template"]["spec"]["containers"]
    found: dict[str, Any] = agent
    return found


def parsed_args() -> dict[str, Any]:
    """The container's args as the real command line parses them (a wrong flag fails)."""
    args = container()["args"]
    assert args[0] == "agent"
    with command.make_context("agent", list(args[1:])) as ctx:
        return dict(ctx.params)


def test_the_args_are_an_agent_command_line_sharded_by_ordinal() -> None:
    params = parsed_args()
    statefulset = document("statefulset.yaml")
    assert params["shard_from_hostname"] and params["shards"] == statefulset["spec"]["replicas"]
    assert params["source"] and not params["once"] and not params["allow_apply"]
    assert statefulset["spec"]["serviceName"] == document("service.yaml")["metadata"]["name"]


def test_listener_container_port_probes_and_service_agree() -> None:
    host, port = parsed_args()["listen"].rsplit(":", 1)
    assert host == "0.0.0.0"  # reachable by the kubelet's probes and the Service
    agent = container()
    ports = {entry["name"]: entry["containerPort"] for entry in agent["ports"]}
    assert ports == {"http": int(port)}
    assert agent["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
    assert agent["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "http"}
    (service_port,) = document("service.yaml")["spec"]["ports"]
    assert service_port["targetPort"] == "http" and service_port["port"] == int(port)
    monitor = document("servicemonitor.yaml")["spec"]["endpoints"][0]
    assert monitor == {"port": "http", "path": "/metrics", "interval": "30s"}
    assert f"EXPOSE {port}" in (ROOT / "Containerfile").read_text()


def test_credential_files_lie_in_the_mounted_secret_and_the_cache_is_writable() -> None:
    agent = container()
    spec = document("statefulset.yaml")["spec"]["template"]["spec"]
    volumes = {volume["name"]: volume for volume in spec["volumes"]}
    mounts = {mount["mountPath"]: mount for mount in agent["volumeMounts"]}
    files = [e["value"] for e in agent["env"] if e["name"].endswith("_FILE")]
    assert files
    secret = example_secret_keys()
    for path in files:
        folder, key = path.rsplit("/", 1)
        mount = mounts[folder]
        assert mount["readOnly"] and "secret" in volumes[mount["name"]]
        assert volumes[mount["name"]]["secret"]["secretName"] == secret[0] and key in secret[1]
    names = {e["name"] for e in agent["env"]}
    assert "ORGCTL_TRUSTED_ORIGINS" in names  # the agent refuses to start without it
    cache = parsed_args()["cache_dir"]
    assert "emptyDir" in volumes[mounts[str(cache)]["name"]]


def example_secret_keys() -> tuple[str, set[str]]:
    secret = document("secret.example.yaml")
    return secret["metadata"]["name"], set(secret["stringData"])


def test_every_flag_of_the_args_is_a_flag_of_the_command() -> None:
    known = {opt for param in command.params for opt in getattr(param, "opts", [])}
    flags = [arg for arg in container()["args"] if arg.startswith("--")]
    assert set(flags) <= known, set(flags) - known
    assert isinstance(command, click.Group) and "shards" in command.commands


def test_the_built_in_kinds_validate_against_the_kubernetes_api_schema() -> None:
    # The ServiceMonitor is the Prometheus Operator's custom resource: no schema here.
    version = kubernetes_validate.latest_version()
    for name in ("statefulset.yaml", "service.yaml", "secret.example.yaml"):
        kubernetes_validate.validate(document(name), version, strict=True)
