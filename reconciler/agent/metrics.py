"""The agent's Prometheus metrics, in a registry of its own (none of the process's
default collectors' names can clash with a test's expectations or another library's)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from reconciler.agent.status import PortalStatus, State

# A small portal's read takes a fraction of a second; a large one's or an apply's, minutes
# (the client's default buckets stop at 10 s).
RECONCILE_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.in_sync = Gauge(
            "orgctl_portal_in_sync", "1 when the portal matches the manifests", ["portal"],
            registry=r,
        )  # fmt: skip
        self.drifted = Gauge(
            "orgctl_portal_drifted_resources", "Drifted resources by kind", ["portal", "kind"],
            registry=r,
        )  # fmt: skip
        self.reconciles = Counter(
            "orgctl_reconcile", "Reconciles by result (in_sync|drifted|applied|failed)",
            ["portal", "result"], registry=r,
        )  # fmt: skip
        self.duration = Histogram(
            "orgctl_reconcile_duration_seconds", "Time of one reconcile", ["portal"],
            buckets=RECONCILE_BUCKETS, registry=r,
        )  # fmt: skip
        self.last_reconcile = Gauge(
            "orgctl_last_reconcile_timestamp_seconds", "When the last reconcile ended",
            ["portal"], registry=r,
        )  # fmt: skip
        self.apply_calls = Counter(
            "orgctl_apply_calls", "Applies started by the agent, by outcome",
            ["portal", "outcome"], registry=r,
        )  # fmt: skip
        self.revision = Gauge(
            "orgctl_source_revision_info", "The source revision last read", ["revision"],
            registry=r,
        )  # fmt: skip
        self.shard = Gauge(
            "orgctl_portal_shard", "The shard that owns the portal", ["portal", "shard"],
            registry=r,
        )  # fmt: skip
        self._kinds: dict[str, set[str]] = {}
        self._revision: str | None = None

    def reconciled(self, status: PortalStatus, result: str, seconds: float) -> None:
        name = status.name
        self.in_sync.labels(name).set(1 if status.state is State.SYNCED else 0)
        # A kind that no longer drifts is shown as 0 rather than left at its last count.
        for kind in self._kinds.get(name, set()) | set(status.drifted):
            self.drifted.labels(name, kind).set(status.drifted.get(kind, 0))
        self._kinds[name] = self._kinds.get(name, set()) | set(status.drifted)
        self.reconciles.labels(name, result).inc()
        self.duration.labels(name).observe(seconds)
        if status.last_reconcile is not None:
            self.last_reconcile.labels(name).set(status.last_reconcile.timestamp())

    def applied(self, portal: str, outcome: str) -> None:
        self.apply_calls.labels(portal, outcome).inc()

    def source_read(self, revision: str) -> None:
        if self._revision is not None and self._revision != revision:
            self.revision.remove(self._revision)
        self.revision.labels(revision).set(1)
        self._revision = revision

    def placed(self, portal: str, shard: int) -> None:
        self.shard.labels(portal, str(shard)).set(1)

    def text(self) -> bytes:
        return generate_latest(self.registry)
