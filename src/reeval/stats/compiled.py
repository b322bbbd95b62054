"""The optional compiled kernels of the statistics (``_kernels.c``) and the switch that
selects them.

Built by pip wherever a C compiler exists (pyproject.toml marks the extension optional),
like ``reeval.io``'s kernels and with the same switch: without the extension, with the
environment variable ``REEVAL_KERNELS=0`` or with ``ENABLED = False`` (the tests run both
paths and compare them), reeval uses its numpy code, which gives the same bits more slowly.
"""

import os

try:
    from . import _kernels
except ImportError:  # pragma: no cover - an install without a C compiler
    _kernels = None

#: Use the compiled kernels when they are built, unless REEVAL_KERNELS=0.
ENABLED = _kernels is not None and os.environ.get("REEVAL_KERNELS", "1") != "0"


def kernels():
    """The compiled kernels module, or None when they are not built or not enabled."""
    return _kernels if ENABLED else None
