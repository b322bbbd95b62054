"""Send a rule script's stderr and logging to its Snakemake log file."""

import logging
import sys
from pathlib import Path

# the package itself, also when a rule runs in a conda environment without it installed
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))


def to_log(snakemake):
    if snakemake.log:
        sys.stderr = open(snakemake.log[0], "w", buffering=1)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(message)s")
    return logging.getLogger("reeval")
