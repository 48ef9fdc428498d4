"""The reference service as a test bench: run it in a subprocess and drive it over HTTP
(`service`), and put a misbehaving network or portal in front of it: a proxy that loses or
refuses chosen calls (`proxy`), one that injects seeded random faults (`chaos`) with the
apply-until-converged loop (`converge`), and one that answers as a hostile portal would
(`hostile`), each a loopback server (`forwarding`) that forwards to the service unless it
decides to answer, hold or drop a request itself. orgctl's tests and benchmarks share
these; a project that tests its own client of the Organization Administration Service can
use them too.

Unlike the service itself, which uses only the shared kernel, this bench also runs the
orgctl command line (`reconciler.testing`). It needs the `serve` extra.
"""
