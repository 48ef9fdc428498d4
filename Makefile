# Every target installs what it needs first, so each works on a fresh machine.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# The demo needs orgctl and its reference service only, not the test tools nor the
# vendor's client of the compat suite (arcgis and its numerical stack).
DEMO_STAMP := $(VENV)/.installed-serve
# The REST JS compat suite's packages (tests/compat_js): installed from the lock file by
# npm, skipped with a line when the machine has no npm (the suite then skips itself too).
JS_DIR   := tests/compat_js
JS_STAMP := $(JS_DIR)/node_modules/.package-lock.json

.PHONY: install lint typecheck test demo bench schema clean

install: $(STAMP) $(JS_STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[serve,agent,dev,compat]'
	touch $(STAMP) $(DEMO_STAMP)

$(DEMO_STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[serve]'
	touch $(DEMO_STAMP)

$(JS_STAMP): $(JS_DIR)/package.json $(JS_DIR)/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		npm ci --prefix $(JS_DIR) --no-audit --no-fund --loglevel=error; \
	else \
		echo "npm not found: the REST JS compat suite (tests/compat_js) will be skipped"; \
	fi

lint: install
	$(BIN)/ruff check reconciler orgctl_service tests scripts benchmarks examples/ci
	$(BIN)/ruff format --check reconciler orgctl_service tests scripts benchmarks examples/ci

typecheck: install
	$(BIN)/mypy

test: lint typecheck
	$(BIN)/pytest -n auto

schema: install
	$(BIN)/orgctl schema > schemas/orgctl-v1.schema.json

# The tour: start the reference service with the demo state on a free port, then
# validate, plan, apply and re-plan each example, and show drift catching a hand change.
demo: $(DEMO_STAMP)
	$(BIN)/python scripts/demo.py

# Speed and memory targets (benchmarks/README.md), measured rather than asserted in timed tests.
# The modules are compiled first, as an installed orgctl's are: where PYTHONDONTWRITEBYTECODE
# is set, every process would compile them again, and a short command's figure would
# measure the compiler.
bench: install
	$(BIN)/python -m compileall -q reconciler orgctl_service
	$(BIN)/python benchmarks/load_manifests.py
	$(BIN)/python benchmarks/examples.py
	$(BIN)/python benchmarks/plan_cpu.py
	$(BIN)/python benchmarks/plan_roles.py
	$(BIN)/python benchmarks/policy.py
	$(BIN)/python benchmarks/plan_requests.py
	$(BIN)/python benchmarks/render.py
	$(BIN)/python benchmarks/html_access.py
	$(BIN)/python benchmarks/access.py
	$(BIN)/python benchmarks/certify.py
	$(BIN)/python benchmarks/service_load.py
	$(BIN)/python benchmarks/service_pages.py
	$(BIN)/python benchmarks/plan_scale.py
	$(BIN)/python benchmarks/latency.py
	$(BIN)/python benchmarks/apply_throughput.py
	$(BIN)/python benchmarks/faults.py
	$(BIN)/python benchmarks/faults.py --new-roles 20 --seeds 5
	$(BIN)/python benchmarks/fleet.py
	$(BIN)/python benchmarks/hostile_portal.py
	$(BIN)/python benchmarks/agent.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
