"""The optional compiled kernels (``_kernels.c``) and the switch that selects them.

pip builds the extension wherever a C compiler exists (pyproject.toml marks it
optional). Without it, with the environment variable ``REEVAL_KERNELS=0`` (to compare
the two paths as a user runs them) or with ``ENABLED = False`` (the tests run both
paths and compare them), reeval uses its numpy and pyarrow code, which gives the same
results more slowly.
"""

import os

try:
    from . import _kernels
except ImportError:  # pragma: no cover - an install without a C compiler
    _kernels = None

#: Use the compiled kernels when they are built, unless REEVAL_KERNELS=0 (tests set it to
#: False to check the rest).
ENABLED = _kernels is not None and os.environ.get("REEVAL_KERNELS", "1") != "0"


def kernels():
    """The compiled kernels module, or None when they are not built or not enabled."""
    return _kernels if ENABLED else None
