# The two commands of README.md: `make run` and `make test`. Both set up .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test install ingest lint bench clean

run: install
	$(BIN)/catalog ingest seeds
	$(BIN)/catalog serve --host $(HOST) --port $(PORT)

test: install
	$(BIN)/ruff check .
	$(BIN)/pytest

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# Scale benchmarks (not part of make test): S then L from ../shared/corpus; prints numbers and
# writes bench/results/. Installs wrk when apt-get can.
bench: install
	command -v wrk >/dev/null || (apt-get update -qq && apt-get install -y -qq wrk) || true
	$(BIN)/python -m bench.run --size S --size L

clean:
	rm -rf $(VENV) data .pytest_cache
