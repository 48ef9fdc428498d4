"""Random faults between orgctl and the service: a seeded proxy and the apply-until-converged
loop that the chaos tests and benchmarks/faults.py share."""
