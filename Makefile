# The two commands of README.md: `make run` and `make test`. Both set up .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test install browser bench clean

run: install
	$(BIN)/catalog ingest seeds
	$(BIN)/catalog serve --host $(HOST) --port $(PORT)

test: install browser
	$(BIN)/ruff check .
	$(BIN)/pytest

# Real-browser tests need Debian's Chromium (Playwright's own browser downloads are not
# available here) and axe-core from npm. Without them those tests skip and say why.
browser: $(VENV)/.browser

$(VENV)/.browser: $(STAMP)
	command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium) \
		|| echo "chromium could not be installed: the browser tests will be skipped"
	test -f $(VENV)/axe/node_modules/axe-core/axe.min.js \
		|| npm install --silent --prefix $(VENV)/axe axe-core@4 \
		|| echo "axe-core could not be installed: the accessibility tests will be skipped"
	touch $@

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
