# Two commands do all the set-up on a fresh machine:
#   make run    create .venv, install reeval (only what the workflow needs), run the workflow
#               on the built-in synthetic campaign
#   make test   create .venv, install reeval with its test, bench, slurm and docs extras, run
#               the test suite on $(TEST_WORKERS) pytest-xdist workers, each test file on one
#               worker (pyproject.toml: --dist loadfile); first Debian's chromium and
#               chromium-driver, for the report's browser test
#   make docs   install the docs extra, build the documentation site (docs/, mkdocs.yml) into
#               site/ and serve it with its search on http://127.0.0.1:$(DOCS_PORT)/ (Ctrl-C stops)
#   make test-slow    the slow checks deselected from make test (pytest -m slow: the long
#                     end-to-end workflow runs, the oracles' parity on every real track but one)
#   make test-slurm   the SLURM profile on a single-node cluster it brings up (root, Debian;
#                     tests/workflow/slurm_cluster.sh), deselected from make test
VENV ?= .venv
PY := $(VENV)/bin/python
CORES ?= 2
TEST_WORKERS ?= auto
DOCS_PORT ?= 8000

# the main job's packages only (pyproject.toml's dependencies)
$(VENV)/.installed: pyproject.toml src/reeval/io/_kernels.c src/reeval/stats/_kernels.c
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e .
	touch $@

# the rest: pytest and the oracles (test), the peers of the benchmarks (bench), the SLURM
# executor plugin (slurm) and the documentation site (docs)
$(VENV)/.installed-test: $(VENV)/.installed
	$(PY) -m pip install -q -e '.[test,bench,slurm,docs]'
	touch $@

# the documentation site's builder (docs extra)
$(VENV)/.installed-docs: $(VENV)/.installed
	$(PY) -m pip install -q -e '.[docs]'
	touch $@

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

# (where PYTHONDONTWRITEBYTECODE is set, the jobs keep their bytecode in .snakemake/pycache:
# reeval.workflow.bytecode)
run: $(VENV)/.installed
	$(VENV)/bin/snakemake --cores $(CORES)

# The report's browser test (tests/browser.py) drives Debian's headless chromium: installed
# here as root with apt-get; elsewhere the test skips, saying why (under CI it fails)
browser:
	@if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "installing chromium and chromium-driver (apt-get) for the report's browser test"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; \
	else echo "chromium is not installed and cannot be (not root with apt-get): the browser test will skip"; fi

test: $(VENV)/.installed-test browser
	$(VENV)/bin/pytest -n $(TEST_WORKERS)

# The site's search runs in the browser and needs the pages served over HTTP (a page opened
# from disk cannot start its search); the server listens on this machine only
docs: $(VENV)/.installed-docs
	$(VENV)/bin/mkdocs build --strict --quiet -d site
	@echo "the documentation, with its search: http://127.0.0.1:$(DOCS_PORT)/ (Ctrl-C stops the server)"
	$(PY) -m http.server --bind 127.0.0.1 --directory site $(DOCS_PORT)

test-slow: $(VENV)/.installed-test
	$(VENV)/bin/pytest -n $(TEST_WORKERS) -m slow

test-slurm: $(VENV)/.installed-test
	$(VENV)/bin/pytest -m slurm

.PHONY: install install-test run test test-slow test-slurm browser docs
