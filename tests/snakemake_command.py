"""The Snakemake command the workflow tests run, from the project folder.

Snakemake keeps its own locks in ``.snakemake/locks`` of its working directory and, when a
run ends, removes that whole folder (``shutil.rmtree``): a second Snakemake started from the
same folder (the other pytest-xdist worker) can be writing its lock file there at that moment
and fail with ``FileNotFoundError: .snakemake/locks/0.input.lock``. Snakemake supports one
instance per working directory; the tests run several, each on its own results folder, which
the workflow's own lock keeps apart (``reeval.workflow.folder_lock``). So the tests' runs take
no Snakemake lock (``--nolock``). tests/workflow/test_folder_lock.py runs Snakemake as a user
does, locks included.
"""
import sys

SNAKEMAKE = [sys.executable, "-m", "snakemake", "--nolock"]
