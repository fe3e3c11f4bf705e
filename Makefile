# The team's loops. `make test` is the whole suite (the gate, as the README's command);
# `make test-fast` is the inner loop: the tests that need no server (tests/tiers.py marks
# the others `server`, from the fixtures and helpers they use, never by hand).

PYTHON ?= python
PYTEST = $(PYTHON) -m pytest -p no:cacheprovider
CODE = dynotui tests benchmarks scripts

.PHONY: test test-fast lint docs screenshots

test:
	$(PYTEST) -q

test-fast:
	$(PYTEST) -q -m "not server"

lint:
	ruff check $(CODE)
	ruff format --check $(CODE)
	mypy dynotui
	lint-imports

docs:
	mkdocs build --strict

screenshots:
	$(PYTHON) scripts/screenshots.py
