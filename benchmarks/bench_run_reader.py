"""The run readers on one synthetic space-separated run of 79 MB (2,000,000 lines): the
compiled kernel, pyarrow's CSV fast path (kernels off) and the general line-by-line path
(a file the fast path refuses: one leading space on every line). Best of 5, in ms.

    .venv/bin/python benchmarks/bench_run_reader.py
"""

import time

from reeval.io import compiled
from reeval.io.trecio import read_run


def best_ms(read, repeats: int = 5) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        read()
        times.append(time.perf_counter() - t)
    return min(times) * 1000


def main():
    data = b"".join(b"%d Q0 doc-%07d %d %.6f runtag\n" % (q, d, d, 1 / (d + 1))
                    for q in range(50) for d in range(40000))
    indented = b"".join(b" " + line + b"\n" for line in data.splitlines())
    lines = data.count(b"\n")
    print(f"{len(data) / 1e6:.1f} MB, {lines:,} lines")
    cases = [("compiled kernel", True, data), ("pyarrow CSV fast path", False, data),
             ("general path (leading space)", False, indented)]
    for name, enabled, text in cases:
        compiled.ENABLED = enabled and compiled._kernels is not None
        print(f"{name:<30} {best_ms(lambda: read_run('run', data=text)):8.1f} ms")


if __name__ == "__main__":
    main()
