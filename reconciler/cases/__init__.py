"""`orgctl test`: `kind: Test` documents, each a scenario planned (and applied) against
its own reference service.

`document` reads and checks the documents (problems name file:line, as validate's do);
`run` starts `orgctl serve` on the scenario's state, plans the manifests with the real
command line, and compares what it got with what the document expects; `report` prints
the outcome as pytest does and writes JUnit XML.
"""
