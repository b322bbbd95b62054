"""The optional compiled kernels (``_kernels.c``) and the switch that selects them.

pip builds the extension wherever a C compiler exists (pyproject.toml marks it
optional). Without it, or with ``ENABLED = False`` (the tests run both paths and
compare them), reeval uses its numpy and pyarrow code, which gives the same results
more slowly.
"""

try:
    from . import _kernels
except ImportError:  # pragma: no cover - an install without a C compiler
    _kernels = None

#: Use the compiled kernels when they are built (tests set it to False to check the rest).
ENABLED = _kernels is not None


def kernels():
    """The compiled kernels module, or None when they are not built or not enabled."""
    return _kernels if ENABLED else None
