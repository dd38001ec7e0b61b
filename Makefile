# cardarena: two commands on a fresh machine.
#   make demo   set up .venv (first use) and run a demo season
#   make test   set up .venv (first use) and run the test suite
#   make check  the edit loop's tests: the rules, the referee's games, the league's pure logic, the docs (no
#               servers, no long simulations; `make test` runs everything)
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed

.PHONY: demo test check proto bench clean

# the editable install's notice from setuptools ("Editable installation... folders with the same name as your
# package"), a page of stars on every first `make demo`, is not printed; a real warning still is
QUIET_BUILD := PYTHONWARNINGS="ignore:Editable installation"
PIP_ARGS ?=

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(QUIET_BUILD) $(VENV)/bin/pip install --quiet $(PIP_ARGS) -e '.[dev]'
	touch $(STAMP)

# the project's compiled modules, written before the demo and the tests (a fraction of a second once they are up to
# date): where PYTHONDONTWRITEBYTECODE is set no process writes them, and each of the hundreds of Python processes the
# suite starts (commands, pool processes, workers, bots) compiled every module of ours it imported again, about 0.35 s
# of CPU each
COMPILE := $(VENV)/bin/python -m compileall -q -x '/\.venv/' .

demo: $(STAMP)
	@$(COMPILE)
	$(VENV)/bin/cardarena demo $(ARGS)

# the suite in TEST_JOBS processes (pytest-xdist): on two cores 3 take about 0.8 of 2's time (the tests wait on
# servers, leases and timeouts a third of it) and 4 no less than 3; every process starts its own redis-server and
# PostgreSQL database. Each file's tests run
# in one process, in order, as in a single run (a module's fixtures, such as the cluster, are built once and some
# tests build on the ones before); the longest files are handed out first (tests/conftest.py's FIRST; pytest-xdist's
# own order, by how many tests a file holds, is turned off). TEST_JOBS=0: one process. The 15 slowest tests are
# listed at the end
TEST_JOBS ?= 3

test: $(STAMP)
	@$(COMPILE)
	$(VENV)/bin/python -m pytest -n $(TEST_JOBS) --dist loadfile --no-loadscope-reorder --durations=15 $(PYTEST_ARGS)

# pure tests only: what needs no bot process, database, broker or browser, and none marked slow
CHECK_TESTS := referee/games tests/test_audit.py tests/test_luck.py tests/test_cards.py tests/test_chance.py \
	tests/test_matchmaking.py tests/test_docs_shape.py tests/test_layers.py tests/test_identity_policy.py \
	tests/test_config.py tests/test_pair_verdict.py tests/test_bt_incremental.py tests/test_ratings_ml.py \
	tests/test_schedule.py tests/test_rules_docs.py tests/test_record_json.py tests/test_games_follow_registry.py \
	tests/test_game_tables.py tests/test_settling.py tests/test_league_names_no_game.py tests/test_eprocess.py \
	tests/test_collusion.py tests/test_draws.py

check: $(STAMP)
	@$(COMPILE)
	$(VENV)/bin/python -m pytest -q -m "not slow" $(CHECK_TESTS) $(PYTEST_ARGS)

proto: $(STAMP)
	$(VENV)/bin/python proto/generate.py
	$(VENV)/bin/python proto/wire_lock.py

bench: $(STAMP)
	$(VENV)/bin/python -m bench.run

clean:
	rm -rf $(VENV) *.egg-info var
