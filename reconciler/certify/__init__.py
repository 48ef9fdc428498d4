"""`orgctl certify`: certification campaigns (kind: Campaign) run in Git.

`start` reads the live access and writes one review file per reviewer with a snapshot of
the scope; reviewers decide by pull request; `close` turns revocations into Members edits
(the edits `orgctl adopt` makes) and writes an evidence bundle; `attach` adds the apply
journal of the remediation; `verify` checks a bundle offline.
"""
