# Every target installs what it needs first, so each works on a fresh machine.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install lint typecheck test demo bench schema clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

lint: install
	$(BIN)/ruff check reconciler tests
	$(BIN)/ruff format --check reconciler tests

typecheck: install
	$(BIN)/mypy

test: lint typecheck
	$(BIN)/pytest -n auto

schema: install
	$(BIN)/orgctl schema > schemas/orgctl-v1.schema.json

demo: install
	@for d in examples/hq examples/field examples/cloud; do \
	  echo "== orgctl validate $$d"; $(BIN)/orgctl validate "$$d" || exit 1; \
	done

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
