# Two commands do all the set-up on a fresh machine:
#   make run    create .venv, install reeval, run the workflow on the built-in synthetic campaign
#   make test   create .venv, install reeval with test and docs extras, run the test suite
#   make test-slurm   the SLURM profile on a single-node cluster it brings up (root, Debian;
#                     tests/workflow/slurm_cluster.sh), deselected from make test
VENV ?= .venv
PY := $(VENV)/bin/python
CORES ?= 2

$(VENV)/.installed: pyproject.toml src/reeval/io/_kernels.c
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test,bench,slurm,docs]'
	touch $@

install: $(VENV)/.installed

run: $(VENV)/.installed
	$(VENV)/bin/snakemake --cores $(CORES)

test: $(VENV)/.installed
	$(VENV)/bin/pytest

test-slurm: $(VENV)/.installed
	$(VENV)/bin/pytest -m slurm

.PHONY: install run test test-slurm
