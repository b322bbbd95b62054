"""``python -m reeval.cli``: the ``reeval`` console script."""

import sys

from reeval.cli.app import run

sys.exit(run())
