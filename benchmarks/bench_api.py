"""The Python API against the command line on the same work: TREC-COVID round 1, 143 runs.

    .venv/bin/python benchmarks/bench_api.py [--repeat 3] [--measures official,ndcg_cut.10]
        [--track ../shared/data/trec-covid-round1]

Each round times, in fresh processes (interpreter start included for the command):

  cli         ``reeval score -c -m M ... QRELS RUN...`` (the console script, stdout to a file)
  api-call    ``reeval.evaluate(QRELS, RUNS, M)`` on the paths, inside a fresh interpreter
              that has already run ``import reeval`` and imported pandas (a notebook's state
              after its first cell): the call alone
  api-process the same interpreter from its start to the end of the call (python start,
              imports, the call): the API as a whole process, comparable with ``cli``

and checks that the API's values equal the command's (printed with 30 decimals). The
issue's target: api-call no slower than cli. Medians of ``--repeat`` rounds are printed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TRACK = ROOT.parent / "shared" / "data" / "trec-covid-round1"

API_SCRIPT = r"""
import json, sys, time
start = float(sys.argv[1])
import reeval, pandas
qrels, measures, runs = sys.argv[2], sys.argv[3].split(","), sys.argv[4:]
t0 = time.perf_counter()
frame = reeval.evaluate(qrels, runs, measures)
call = time.perf_counter() - t0
print(json.dumps({"call": call, "process": time.time() - start,
                  "values": {f"{r}\t{c}": float(v) for (r, c), v in frame.stack().items()}}))
"""


def track_inputs(track: Path) -> tuple[str, list[str]]:
    qrels = sorted((track / "qrels").iterdir())
    runs = sorted(str(p) for p in (track / "runs").iterdir())
    if len(qrels) != 1 or not runs:
        sys.exit(f"{track}: expected qrels/ with one file and runs/ (see ../shared/data/README.md)")
    return str(qrels[0]), runs


def time_cli(qrels: str, runs: list, measures: list, out: Path) -> tuple[float, dict]:
    argv = [str(Path(sys.executable).with_name("reeval")), "score", "-c", "--quiet", "--decimals", "30"]
    for m in measures:
        argv += ["-m", m]
    start = time.perf_counter()
    with open(out, "w") as sink:
        subprocess.run(argv + [qrels, *runs], stdout=sink, check=True)
    wall = time.perf_counter() - start
    values = {}
    for line in out.read_text().splitlines():
        run, measure, qid, value = line.split("\t")
        if measure.strip() != "runid":
            values[f"{run}\t{measure.strip()}"] = float(value)
    return wall, values


def time_api(qrels: str, runs: list, measures: list) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    done = subprocess.run([sys.executable, "-c", API_SCRIPT, repr(time.time()), qrels, ",".join(measures), *runs],
                          capture_output=True, text=True, check=True, env=env)
    return json.loads(done.stdout.splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--measures", default="official")
    ap.add_argument("--track", type=Path, default=DEFAULT_TRACK)
    args = ap.parse_args(argv)
    if not args.track.is_dir():
        sys.exit(f"{args.track}: track not found (../shared/data holds TREC-COVID round 1)")
    qrels, runs = track_inputs(args.track)
    measures = args.measures.split(",")
    times: dict = {"cli": [], "api-call": [], "api-process": []}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.repeat):
            cli_wall, cli_values = time_cli(qrels, runs, measures, Path(tmp) / "cli.out")
            api = time_api(qrels, runs, measures)
            if api["values"] != cli_values:
                differ = [k for k in cli_values if api["values"].get(k) != cli_values[k]][:5]
                sys.exit(f"the API's values differ from the command's: {differ}")
            times["cli"].append(cli_wall)
            times["api-call"].append(api["call"])
            times["api-process"].append(api["process"])
    print(f"{len(runs)} runs of {args.track.name}, measures {args.measures}, {args.repeat} round(s); "
          f"values equal ({len(cli_values)} run x measure values)")
    for name, values in times.items():
        print(f"{name:<12} median {statistics.median(values):7.3f} s  (min {min(values):.3f}, max {max(values):.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
