"""The switch of reeval's optional compiled kernels, shared by :mod:`reeval.io.compiled` and
:mod:`reeval.stats.compiled` (so that neither package imports the other).

pip builds each package's extension (``<package>/_kernels.c``) wherever a C compiler exists
(pyproject.toml marks them optional). A package uses its kernels when they are built and the
environment variable ``REEVAL_KERNELS`` is not ``0`` (to compare the two paths as a user runs
them); otherwise it uses its numpy and pyarrow code, which gives the same results more slowly.
"""

import importlib
import os

#: the environment variable that switches every compiled kernel off for a process (``0``)
SWITCH = "REEVAL_KERNELS"


def built_kernels(package: str):
    """``<package>._kernels`` (e.g. ``reeval.io._kernels``) if pip built it, else None."""
    try:
        return importlib.import_module(f"{package}._kernels")
    except ImportError:  # pragma: no cover - an install without a C compiler
        return None


def switched_on(kernels) -> bool:
    """Whether built kernels are used: they exist and ``REEVAL_KERNELS`` is not ``0``."""
    return kernels is not None and os.environ.get(SWITCH, "1") != "0"
