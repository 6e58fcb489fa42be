# Two commands: `make test` and `make lab`. Both build .venv from the pinned
# set in requirements.lock the first time, and reuse it while nothing changed.

# bash with pipefail, so `... | tee file` fails when the command before it does.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.agentlab-installed

# The test suite never talks to a real model: AGENTLAB_OFFLINE makes
# from_env() refuse, and the usual key variables are dropped as well.
OFFLINE := env -u DASHSCOPE_API_KEY -u LLM_API_KEY -u OPENAI_API_KEY -u DEEPSEEK_API_KEY \
           AGENTLAB_OFFLINE=1 PYTHONHASHSEED=0

.PHONY: test lab lint notebooks lock clean bench bench-peers browser-test soak paused-notebooks \
	doctor wheel wheel-test pyodide-test mutants

test: $(STAMP)
	$(OFFLINE) $(PY) -m pytest -q --nbval --nbval-current-env \
		--nbval-sanitize-with tests/nbval_sanitize.cfg tests notebooks
	$(OFFLINE) AGENTLAB_RUNS_DIR=$$(mktemp -d) $(PY) -m agentlab exercises verify

# Root (as in many containers) must say --allow-root; others need not.
lab: $(STAMP)
	$(VENV)/bin/jupyter lab notebooks/ $(if $(filter 0,$(shell id -u)),--allow-root)

# Check the set-up (Python, packages against the lock, the CJK font, .env,
# the configured model) and say what to fix; `agentlab doctor --ping` also
# sends one tiny request to that model.
doctor: $(STAMP)
	$(VENV)/bin/agentlab doctor

# The course as a wheel in dist/ (the teaching data inside), for a hosted
# notebook or any machine without this repository. Built in a temporary copy,
# so no build/ or *.egg-info is left here.
wheel: $(STAMP)
	rm -rf dist && tmp=$$(mktemp -d) && cp -r pyproject.toml README.md agentlab "$$tmp"/ && \
		$(PY) -m pip wheel --quiet --no-deps --no-build-isolation -w dist "$$tmp" && rm -rf "$$tmp"
	@ls dist/*.whl

# The wheel outside the repository: built, installed with the lock's versions
# into a new venv, every notebook run from a copy in a temporary folder
# (tests/test_wheel.py; about two minutes). CI runs it after `make test`.
wheel-test: $(STAMP)
	$(OFFLINE) AGENTLAB_WHEEL_TEST=1 $(PY) -m pytest -q -s tests/test_wheel.py

# ruff, and the package's layers (import-linter: the contracts in pyproject.toml).
lint: $(STAMP)
	$(VENV)/bin/ruff check agentlab tests benchmarks conftest.py
	$(VENV)/bin/ruff format --check agentlab tests benchmarks conftest.py
	$(VENV)/bin/lint-imports --no-cache

# Mutation testing of the exercises' checks: every reference answer mutated
# (tests/mutants.py); prints the survivors no check rejects and no entry of
# tests/mutants_equivalent.toml explains. About a minute; CI runs it.
mutants: $(STAMP)
	$(OFFLINE) AGENTLAB_RUNS_DIR=$$(mktemp -d) $(PY) tests/mutants.py

# The loop's promises on 10 000 generated runs (tests/test_invariants.py
# checks a few hundred in `make test`, the same ones every time); prints the count
# and any violation. Here hypothesis searches afresh on every run.
soak: $(STAMP)
	$(OFFLINE) AGENTLAB_SOAK_EXAMPLES=10000 HYPOTHESIS_PROFILE=explore $(PY) -m pytest -q -s tests/test_invariants.py

# Live pace: every notebook run cell by cell with a 5 s pause before each code
# cell (a student reading, an instructor explaining), outputs compared with
# the stored ones as nbval compares them. Run by CI, not by `make test`.
paused-notebooks: $(STAMP)
	$(OFFLINE) $(PY) tests/paused_run.py --pause 5 notebooks/*.ipynb

# The student's view: every chapter notebook run in JupyterLab in headless
# Chromium (see tests/browser/check_notebooks.py), then the run display and
# the trace viewer (tests/browser/check_display.py), then the page `agentlab
# grade` writes and a check cell as JupyterLab draws it
# (tests/browser/check_grade.py). Installs Debian's chromium
# if it is missing (needs root or sudo) and Playwright into .venv-browser;
# screenshots land in browser-screenshots/.
BROWSER_VENV := .venv-browser
BROWSER_STAMP := $(BROWSER_VENV)/.installed
CHROMIUM ?= /usr/bin/chromium

browser-test: $(STAMP) $(BROWSER_STAMP) $(CHROMIUM)
	$(OFFLINE) $(BROWSER_VENV)/bin/python tests/browser/check_notebooks.py \
		--lab-python $(PY) --chromium $(CHROMIUM) --self-check
	$(OFFLINE) $(BROWSER_VENV)/bin/python tests/browser/check_explorer.py \
		--lab-python $(PY) --chromium $(CHROMIUM)
	$(OFFLINE) $(BROWSER_VENV)/bin/python tests/browser/check_display.py \
		--lab-python $(PY) --chromium $(CHROMIUM)
	$(OFFLINE) $(BROWSER_VENV)/bin/python tests/browser/check_grade.py \
		--lab-python $(PY) --chromium $(CHROMIUM)

$(BROWSER_STAMP): tests/browser/requirements.txt
	test -x $(BROWSER_VENV)/bin/python || $(PYTHON) -m venv $(BROWSER_VENV)
	$(BROWSER_VENV)/bin/python -m pip install --quiet --disable-pip-version-check \
		-r tests/browser/requirements.txt
	touch $(BROWSER_STAMP)

/usr/bin/chromium:
	@echo "chromium is missing: installing Debian's package"
	$(if $(filter 0,$(shell id -u)),,sudo) env DEBIAN_FRONTEND=noninteractive apt-get update -qq
	$(if $(filter 0,$(shell id -u)),,sudo) env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq --no-install-recommends chromium >/dev/null

# The agent loop under Pyodide on Node: no threads, no child processes, as in
# JupyterLite (see tests/pyodide/README.md). Needs node >= 18, npm and pip;
# sets up into .pyodide-cache/ the first time (~20 s then, ~8-18 s after).
pyodide-test:
	PYTHON=$(PYTHON) bash tests/pyodide/run.sh

# Re-run every notebook, keyless, so the stored outputs are what nbval will
# compare against; only outputs that changed beyond what the sanitizer masks
# are written back (tests/refresh_notebooks.py). Run it after changing a
# notebook or the package; NB=notebooks/02_step_budget.ipynb runs one, and
# ALL=1 stores every fresh output (pictures are never compared: redraw them so).
NB ?= notebooks/*.ipynb tests/notebooks/*.ipynb
notebooks: $(STAMP)
	$(OFFLINE) AGENTLAB_RUNS_DIR=$$(mktemp -d) $(PY) tests/refresh_notebooks.py $(if $(ALL),--all) $(NB)

# Refresh the pinned set (needs the registry); commit requirements.lock after.
lock: $(VENV)/bin/python
	$(PY) -m pip install --quiet --upgrade -e '.[lab,otel,test]'
	$(PY) -m pip freeze --all --exclude-editable | grep -v '^pip==' > requirements.lock

# Performance figures (printed, never asserted). `bench` writes what it
# prints to benchmarks/results/latest.txt as well, with the machine's load
# before and after and each script's wall time; see benchmarks/README.md.
BENCHMARKS := loop_overhead run_path import_time deadline sweep suite_time

bench: $(STAMP)
	@mkdir -p benchmarks/results
	( echo "load: $$(uptime)"; echo; for script in $(BENCHMARKS); do \
		echo "== benchmarks/$$script.py"; started=$$(date +%s); \
		$(OFFLINE) $(PY) benchmarks/$$script.py || exit 1; \
		echo "(benchmarks/$$script.py took $$(( $$(date +%s) - started )) s)"; echo; \
	done; echo "load: $$(uptime)" ) | tee benchmarks/results/latest.txt

# The loop_overhead table with the peer frameworks' rows, from a separate
# environment (.venv-peers) so the course's .venv stays exactly the lock.
bench-peers: $(STAMP)
	test -x .venv-peers/bin/python || $(PYTHON) -m venv .venv-peers
	.venv-peers/bin/python -m pip install --quiet --disable-pip-version-check \
		-r requirements.lock -r benchmarks/requirements-peers.txt
	.venv-peers/bin/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@mkdir -p benchmarks/results
	$(OFFLINE) .venv-peers/bin/python benchmarks/loop_overhead.py | tee benchmarks/results/peers.txt

clean:
	rm -rf $(VENV) .venv-peers $(BROWSER_VENV) browser-screenshots

$(VENV)/bin/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "agentlab needs Python 3.11 or newer; found " + sys.version.split()[0] + " (try: make PYTHON=python3.11 ...)")'
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(VENV)/bin/python requirements.lock pyproject.toml
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@# Build matplotlib's font cache now, so no notebook prints "building the font cache".
	$(PY) -c "import matplotlib.font_manager"
	touch $(STAMP)
