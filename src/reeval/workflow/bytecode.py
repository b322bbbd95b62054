"""Where the workflow's jobs keep Python's bytecode when the user's environment sets
``PYTHONDONTWRITEBYTECODE`` (no ``__pycache__`` folder written beside the sources).

With the variable set, no job writes bytecode, so every job compiles again each reeval
module it imports (0.02-0.2 s of CPU a job; docs/cluster.md, "The whole study, simulated").
Python reads bytecode from a ``PYTHONPYCACHEPREFIX`` folder even with the variable set,
but then *only* from there, for every module (the standard library, numpy, pandas ...,
whose ``__pycache__`` files it no longer sees): a prefix the jobs may not write would cost
each job about 3 s of compiling. So the Snakefile gives its jobs (not its own process) a
prefix in the working directory's ``.snakemake/`` and lets them write there: the first job
that imports a module writes its bytecode there (atomically, as Python always writes it),
the others read it; a changed source has another modification time or size, and is compiled
again. The sources' folders get no ``__pycache__``, as the user asked.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

#: the jobs' bytecode folder, in the workflow's working directory
PYCACHE_DIR = os.path.join(".snakemake", "pycache")


def job_pycache_prefix(environ: Mapping[str, str], workdir: str) -> str | None:
    """The absolute ``PYTHONPYCACHEPREFIX`` for the jobs of a workflow run in ``workdir``
    (``workdir/.snakemake/pycache``), or None where nothing is to change: Python writes
    ``__pycache__`` beside the sources (``PYTHONDONTWRITEBYTECODE`` unset or empty, as
    Python reads it), or the user chose a prefix (``PYTHONPYCACHEPREFIX`` set and not empty).
    The caller sets the prefix and removes ``PYTHONDONTWRITEBYTECODE`` for the jobs."""
    if not environ.get("PYTHONDONTWRITEBYTECODE") or environ.get("PYTHONPYCACHEPREFIX"):
        return None
    return os.path.join(os.path.abspath(workdir), PYCACHE_DIR)


def give_jobs_a_pycache_prefix(environ, workdir: str) -> str | None:
    """Set :func:`job_pycache_prefix` in ``environ`` (the environment the jobs inherit):
    ``PYTHONPYCACHEPREFIX`` to it and ``PYTHONDONTWRITEBYTECODE`` removed; returns the prefix,
    or None with ``environ`` unchanged. The Snakefile calls it with ``os.environ``, whose
    variables it reads here rather than by name (Snakemake's linter asks for an ``envvars:``
    directive for a variable a Snakefile names, one the workflow would then require)."""
    prefix = job_pycache_prefix(environ, workdir)
    if prefix is not None:
        environ["PYTHONPYCACHEPREFIX"] = prefix
        del environ["PYTHONDONTWRITEBYTECODE"]
    return prefix
