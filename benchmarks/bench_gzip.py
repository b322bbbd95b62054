"""CPU seconds of the gzip paths with ISA-L (``isal``) and with Python's zlib, the same bytes.

    PYTHONPATH=src .venv/bin/python benchmarks/bench_gzip.py [--data ../shared/data] [--repeat 3]

deflate: the run files of a synthetic track shaped like the simulated study's (6 runs x 50
topics x 1,000 documents, ``reeval.synth.tracks``) deflated at level 1 as the generator does,
by zlib and by ISA-L; prints each one's CPU seconds (the least of ``--repeat``), MB/s and size.
inflate: every gzipped run of ``--data``'s tracks read as ``reeval.io.sources`` reads it, by
zlib and by ISA-L (``reeval.io.sources.zlib_module`` with ``isal`` importable or not); checks
both give the same bytes.
"""

from __future__ import annotations

import argparse
import sys
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def least_cpu(work, repeat: int) -> float:
    """The least process CPU seconds of ``repeat`` calls of ``work``."""
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        work()
        best = min(best, time.process_time() - t)
    return best


def deflate(repeat: int) -> None:
    from isal import isal_zlib

    from reeval.synth.tracks import TrackSpec, _run_file, _track_rows

    spec = TrackSpec(n_runs=6, n_topics=50, depth=1000, relevant_per_topic=80, judged_nonrel_per_topic=1000,
                     max_rel=1, pool_factor=3.0, tie_fraction=0.05)
    texts = [b"".join(_run_file(rows)) for rows in _track_rows(spec, 20261122)[1]]
    size = sum(map(len, texts))
    for name, lib in (("zlib", zlib), ("isal", isal_zlib)):
        def work(lib=lib) -> list:
            zs = [lib.compressobj(1, zlib.DEFLATED, 31) for _ in texts]
            return [z.compress(t) + z.flush() for z, t in zip(zs, texts)]
        stored = sum(map(len, work()))
        cpu = least_cpu(work, repeat)
        print(f"deflate level 1  {name:5s} {size / 1e6:.1f} MB of run text  {cpu:.3f} s CPU  "
              f"{size / cpu / 1e6:.0f} MB/s  stored {stored / size:.3f} of the text")


def inflate(data: Path, repeat: int) -> None:
    from reeval.io import sources

    files = sorted(data.glob("*/runs/*.gz"))
    raw = [f.read_bytes() for f in files]
    texts = {}
    for name, blocked in (("zlib", True), ("isal", False)):
        saved = sys.modules.get("isal")
        if blocked:
            sys.modules["isal"] = None  # import fails: the fallback
        try:
            cpu = least_cpu(lambda: texts.__setitem__(name, [sources.decompress(str(f), d, "gzip")
                                                             for f, d in zip(files, raw)]), repeat)
        finally:
            sys.modules.pop("isal", None)
            if saved is not None:
                sys.modules["isal"] = saved
        print(f"inflate          {name:5s} {len(files)} gzipped runs, {sum(map(len, raw)) / 1e6:.0f} MB "
              f"({sum(map(len, texts[name])) / 1e6:.0f} MB of text)  {cpu:.3f} s CPU")
    assert texts["zlib"] == texts["isal"], "ISA-L and zlib read different bytes"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    deflate(args.repeat)
    inflate(args.data, args.repeat)


if __name__ == "__main__":
    main()
