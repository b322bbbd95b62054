"""Speed and memory of reeval against pytrec_eval-terrier, ir_measures and ranx.

    .venv/bin/python benchmarks/bench_measures.py [--runs 50 --topics 250 --depth 1000] [--repeat 5]

Writes the seeded synthetic benchmark track (reeval.synthetic.BENCHMARK_TRACK, 50 runs x
250 topics x 1000 documents, ~100 relevant per topic, 4-decimal scores so ties occur)
once under benchmarks/.data/, then times each tool end to end in its own process
(parse the files + MAP, P@20, reciprocal rank; reeval also ASL, through the code of
``reeval score``, its output lines included; reeval-numpy is reeval without its
compiled kernels), reporting wall time,
CPU time (user + system of every thread, imports included), peak
resident memory and each tool's time as a ratio to reeval's, and how far each
tool's per-run MAP / P@20 / RR are from reeval's (float32 ordering, as trec_eval 9.x).
"""

from __future__ import annotations

import argparse
import dataclasses
import glob
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
MEASURES = ("map", "P_20", "recip_rank")


def track_dir(args) -> Path:
    from reeval.synthetic import BENCHMARK_TRACK, write_track

    spec = dataclasses.replace(BENCHMARK_TRACK, n_runs=args.runs, n_topics=args.topics, depth=args.depth)
    out = HERE / ".data" / f"bench-{args.runs}x{args.topics}x{args.depth}-s{args.seed}"
    if not (out / "qrels.txt").exists():
        t = time.perf_counter()
        write_track(out, spec, seed=args.seed)
        print(f"wrote {out} in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    return out


def files(d: Path):
    qrels = str(d / "qrels.txt")
    runs = sorted(glob.glob(str(d / "runs" / "*")))
    return qrels, runs


def tool_reeval(qrels, runs):
    """``reeval score --float32 -m map -m P_20 -m recip_rank -m ASL QRELS RUN...``, in process
    (20 decimals: enough to read every double back exactly)."""
    from reeval.cli import score_lines

    out: dict = {}
    for line in score_lines(qrels, runs, list(MEASURES) + ["ASL"], precision="float32", decimals=20):
        run, measure, qid, value = line.split("\t")
        if qid == "all" and measure.strip() in MEASURES:
            out.setdefault(run, {})[measure.strip()] = float(value)
    return out


def tool_reeval_numpy(qrels, runs):
    """reeval without its compiled kernels (the path of an install without a C compiler)."""
    from reeval import compiled

    compiled.ENABLED = False
    return tool_reeval(qrels, runs)


def _mean_by_run(per_topic: dict) -> dict:
    """Means over the topics added in sorted order, as trec_eval's ``all`` line adds them."""
    return {m: sum(per_topic[q][m] for q in sorted(per_topic)) / len(per_topic) for m in MEASURES}


def tool_pytrec_eval(qrels, runs):
    import gzip
    import pytrec_eval
    from reeval.trecio import run_name_from_path

    def opener(p):
        return gzip.open(p, "rt") if p.endswith(".gz") else open(p)

    with opener(qrels) as fh:
        q = pytrec_eval.parse_qrel(fh)
    ev = pytrec_eval.RelevanceEvaluator(q, {"map", "P_20", "recip_rank"})
    out = {}
    for p in runs:
        with opener(p) as fh:
            out[run_name_from_path(p)] = _mean_by_run(ev.evaluate(pytrec_eval.parse_run(fh)))
    return out


def tool_ir_measures(qrels, runs):
    import ir_measures
    from ir_measures import AP, P, RR
    from reeval.trecio import run_name_from_path

    q = list(ir_measures.read_trec_qrels(qrels))
    evaluator = ir_measures.evaluator([AP, P @ 20, RR], q)
    out = {}
    for p in runs:
        agg = evaluator.calc_aggregate(ir_measures.read_trec_run(p))
        out[run_name_from_path(p)] = {"map": agg[AP], "P_20": agg[P @ 20], "recip_rank": agg[RR]}
    return out


def tool_ranx(qrels, runs):
    from ranx import Qrels, Run, evaluate
    from reeval.trecio import run_name_from_path

    q = Qrels.from_file(qrels, kind="trec")
    out = {}
    for p in runs:
        res = evaluate(q, Run.from_file(p, kind="trec"), ["map", "precision@20", "mrr"])
        out[run_name_from_path(p)] = {"map": res["map"], "P_20": res["precision@20"], "recip_rank": res["mrr"]}
    return out


TOOLS = {"reeval": tool_reeval, "reeval-numpy": tool_reeval_numpy, "pytrec_eval": tool_pytrec_eval, "ir_measures": tool_ir_measures,
         "ranx": tool_ranx}


def child(tool: str, d: str) -> None:
    qrels, runs = files(Path(d))
    t = time.perf_counter()
    values = TOOLS[tool](qrels, runs)
    wall = time.perf_counter() - t
    usage = resource.getrusage(resource.RUSAGE_SELF)  # every thread (no tool starts processes)
    print(json.dumps({"tool": tool, "wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
                      "peak_mb": usage.ru_maxrss / 1024, "values": values}))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--topics", type=int, default=250)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tools", default=",".join(TOOLS))
    ap.add_argument("--repeat", type=int, default=1,
                    help="rounds of every tool, alternated; the table reports median wall times")
    ap.add_argument("--child", nargs=2, metavar=("TOOL", "DIR"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(*args.child)
    d = track_dir(args)
    qrels, runs = files(d)
    size = sum(os.path.getsize(p) for p in runs + [qrels]) / 1e6
    from reeval import compiled

    print(f"track: {len(runs)} runs, {args.topics} topics, depth {args.depth}; {size:.0f} MB on disk; "
          f"reeval's compiled kernels {'built' if compiled._kernels is not None else 'NOT built'}")
    for path in runs + [qrels]:  # the page cache holds every file: no tool pays for the disk
        Path(path).read_bytes()
    tools = args.tools.split(",")
    walls: dict = {tool: [] for tool in tools}
    results: dict = {}
    for _ in range(args.repeat):  # rounds: every tool once per round, so slow spells hit all
        for tool in tools:
            proc = subprocess.run([sys.executable, __file__, "--child", tool, str(d)],
                                  capture_output=True, text=True)
            if proc.returncode != 0:
                print(f"{tool}: failed: {proc.stderr.strip().splitlines()[-1] if proc.stderr else ''}")
                continue
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            walls[tool].append(r["wall"])
            results.setdefault(tool, r)
    base = results.get("reeval")
    print(f"{'tool':<12} {'wall s':>8} {'x reeval':>9} {'cpu s':>7} {'peak MB':>8}  "
          "max |diff| vs reeval (map, P_20, recip_rank)")
    for tool, r in results.items():
        wall = statistics.median(walls[tool])
        ratio = wall / statistics.median(walls["reeval"]) if base else float("nan")
        diffs = []
        if base:
            for m in MEASURES:
                common = set(base["values"]) & set(r["values"])
                diffs.append(max(abs(base["values"][k][m] - r["values"][k][m]) for k in common))
        print(f"{tool:<12} {wall:>8.2f} {ratio:>9.2f} {r['cpu']:>7.2f} {r['peak_mb']:>8.0f}  "
              + ", ".join(f"{x:.2e}" for x in diffs))
    if args.repeat > 1:
        print(f"wall s of each of the {args.repeat} rounds (the table gives the medians; cpu and peak of round 1):")
        for tool in results:
            per_round = ", ".join(f"{w:.2f}" for w in walls[tool])
            ratios = "" if tool == "reeval" or len(walls[tool]) != len(walls["reeval"]) else \
                "  x reeval in the same round: " + ", ".join(f"{w / b:.2f}" for w, b in zip(walls[tool], walls["reeval"]))
            print(f"  {tool:<12} {per_round}{ratios}")

if __name__ == "__main__":
    main()
