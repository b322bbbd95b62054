"""A process that uses pyarrow without pandas (the audit job, rule ``audit``).

pyarrow imports pandas, when it is installed, the first time an array is built or converted
(``pa.array``, ``ChunkedArray.to_numpy``): its lazy ``_PandasAPIShim`` tries the import once,
to recognise pandas objects, and its C++ layer once, for pandas' missing-value constants.
Importing pandas costs a fresh process about 0.5-0.8 s of CPU (docs/benchmarks.md), most of
a job that otherwise takes one second. :func:`arrow_without_pandas` makes both first tries
find no pandas, so that pyarrow works as where pandas is not installed.
"""

from __future__ import annotations

import sys


class _NoPandas:
    """A meta path finder for which pandas cannot be imported."""

    def find_spec(self, name, path=None, target=None):
        if name == "pandas" or name.startswith("pandas."):
            raise ImportError("pandas is switched off for pyarrow in this process (reeval.io.pandas_free)")
        return None


def arrow_without_pandas() -> bool:
    """Make pyarrow's pandas integration find no pandas in this process; True where it did.

    Arrow arrays and tables are then built, converted and written as where pandas is not
    installed (the same values and bytes: the audit tables are checked byte for byte,
    docs/benchmarks.md). Call it first thing in a process whose code uses no pandas: a pandas
    object given to pyarrow afterwards (``pa.array(series)``) would be read as a plain
    sequence, though ``Table.to_pandas`` and ``Table.from_pandas`` still import pandas and
    work. Does nothing (False) where pandas is imported already (pyarrow then uses it)."""
    if "pandas" in sys.modules:
        return False
    import numpy as np
    import pyarrow as pa

    blocker = _NoPandas()
    sys.meta_path.insert(0, blocker)
    try:
        have = pa.lib._pandas_api.have_pandas  # the shim's one try at importing pandas
        pa.chunked_array([pa.array(np.zeros(1))]).to_numpy()  # the C++ layer's
    finally:
        sys.meta_path.remove(blocker)
    return not have
