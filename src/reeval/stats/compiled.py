"""The optional compiled kernels of the statistics (``_kernels.c``) and the switch that
selects them.

Built and switched as :mod:`reeval.compiled` says, like ``reeval.io``'s kernels: without the
extension, with the environment variable ``REEVAL_KERNELS=0`` or with ``ENABLED = False``
(the tests run both paths and compare them), reeval uses its numpy code, which gives the same
bits more slowly.
"""

from reeval.compiled import built_kernels, switched_on

_kernels = built_kernels(__package__)

#: Use the compiled kernels when they are built, unless REEVAL_KERNELS=0.
ENABLED = switched_on(_kernels)


def kernels():
    """The compiled kernels module, or None when they are not built or not enabled."""
    return _kernels if ENABLED else None
