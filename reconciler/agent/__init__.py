"""`orgctl agent`: a long-running process that pulls manifests from Git (or a folder) and
reconciles each portal on an interval, reporting drift and, where both the manifests and
the operator allow it, applying through `orgctl apply`'s own guards.

Only `portal_ops` touches the rest of orgctl; everything else here is the agent's own
scheduling, state, metrics and endpoints.
"""
