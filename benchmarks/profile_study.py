"""Where a whole study's CPU goes, per rule and per function, from the profiles its jobs wrote.

    REEVAL_PROFILE_DIR=/tmp/prof .venv/bin/snakemake --cores 2 --configfile STUDY.yaml \\
        --config results=/tmp/prof-results
    .venv/bin/python benchmarks/profile_study.py /tmp/prof [--top 15] [--rules analyses measures]

With ``REEVAL_PROFILE_DIR`` set, every rule script profiles its body (``scripts/_log.py``,
``profiled``) and writes ``<rule>-<wildcards>.prof`` and ``.cpu``. This prints, per rule,
its jobs, the CPU seconds of their processes before the body (interpreter, imports,
Snakemake's preamble) and in all, then, for each rule asked (default: every rule), the
functions with the most own time summed over its jobs. cProfile slows Python-heavy code:
compare shares, and time the study without it (``/usr/bin/time -v snakemake ...``).
Snakemake's own process is not profiled: the study's CPU less the jobs' sum is its share.
"""

import argparse
import io
import pstats
import sys
from collections import defaultdict
from pathlib import Path


def rule_of(stem: str) -> str:
    """The rule of a profile's file name ``<rule>-<wildcards>`` (rule names have no ``-``)."""
    return stem.split("-", 1)[0]


def cpu_by_rule(folder: Path) -> dict:
    """{rule: [jobs, CPU before the body, CPU at its end]} summed over the ``.cpu`` files."""
    out = defaultdict(lambda: [0, 0.0, 0.0])
    for path in sorted(folder.glob("*.cpu")):
        before, end = map(float, path.read_text().split())
        row = out[rule_of(path.stem)]
        row[0] += 1
        row[1] += before
        row[2] += end
    return dict(out)


def top_functions(folder: Path, rule: str, top: int) -> str:
    """The ``top`` functions by own time over the rule's profiles, as pstats prints them."""
    paths = sorted(str(p) for p in folder.glob("*.prof") if rule_of(p.stem) == rule)
    if not paths:
        return f"{rule}: no profile\n"
    text = io.StringIO()
    stats = pstats.Stats(paths[0], stream=text)
    for path in paths[1:]:
        stats.add(path)
    stats.strip_dirs().sort_stats("tottime").print_stats(top)
    lines = text.getvalue().splitlines()
    start = next((i for i, line in enumerate(lines) if "function calls" in line), 0)
    return "\n".join([f"== {rule} ({len(paths)} jobs)", *lines[start:]]) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="the REEVAL_PROFILE_DIR of the run")
    parser.add_argument("--top", type=int, default=15, help="functions per rule (default 15)")
    parser.add_argument("--rules", nargs="*", help="rules whose functions to list (default: every rule)")
    args = parser.parse_args(argv)
    table = cpu_by_rule(args.folder)
    if not table:
        print(f"error: no .cpu file in {args.folder}", file=sys.stderr)
        return 1
    print(f"{'rule':24} {'jobs':>5} {'CPU before body':>16} {'CPU in all':>11}")
    for rule, (jobs, before, end) in sorted(table.items(), key=lambda kv: -kv[1][2]):
        print(f"{rule:24} {jobs:5d} {before:16.1f} {end:11.1f}")
    total = [sum(row[i] for row in table.values()) for i in range(3)]
    print(f"{'all jobs':24} {total[0]:5d} {total[1]:16.1f} {total[2]:11.1f}")
    for rule in args.rules if args.rules is not None else sorted(table, key=lambda r: -table[r][2]):
        print()
        print(top_functions(args.folder, rule, args.top), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
