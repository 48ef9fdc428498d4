"""Talking to a live portal: the HTTP client (auth, envelopes, retries, paging) and the
reader that turns its answers into the normalized records of `reconciler.state`."""
