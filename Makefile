# cardarena: two commands on a fresh machine.
#   make demo   set up .venv (first use) and run a demo season
#   make test   set up .venv (first use) and run the test suite
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed

.PHONY: demo test proto bench clean

# the editable install's notice from setuptools ("Editable installation... folders with the same name as your
# package"), a page of stars on every first `make demo`, is not printed; a real warning still is
QUIET_BUILD := PYTHONWARNINGS="ignore:Editable installation"
PIP_ARGS ?=

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(QUIET_BUILD) $(VENV)/bin/pip install --quiet $(PIP_ARGS) -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/cardarena demo $(ARGS)

test: $(STAMP)
	$(VENV)/bin/python -m pytest $(PYTEST_ARGS)

proto: $(STAMP)
	$(VENV)/bin/python proto/generate.py
	$(VENV)/bin/python proto/wire_lock.py

bench: $(STAMP)
	$(VENV)/bin/python -m bench.run

clean:
	rm -rf $(VENV) *.egg-info var
