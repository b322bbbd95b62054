"""Speed and memory of the lexicographic-precision study against a per-pair Python loop.

    .venv/bin/python benchmarks/bench_lexiprecision.py [--track trec-covid-round1]

On a real track of ../shared/data (default TREC-COVID round 1: 143 runs, 10,153 pairs x
30 topics), each side runs in its own process, in this one invocation:

- ``vectorized``: ingest, then every table of the paper (reeval.analyses.lexiprecision.report's
  per-track computation without writing files): position vectors, all pairs x topics
  (i*, sgnLP, rrLP, dRR_1..20), tables 2, 3, 4 (the per-pair t, sign and topic-blocked
  HSD tests) and the data of figures 3, 5, 6, 7 and 9 (10 label-removal samples x 10
  fractions).
- ``loop``: the same ingest, then pair by pair and topic by topic in Python on position
  lists (None = not retrieved), as the reference code (pref_eval) does: sgnLP and rrLP
  (the reference's own work, timed alone), then i*, the suffix sgnLP and dRR_1..20 (the
  rest of what the vectorized all-pairs stage returns).

Reports wall time per stage, peak resident memory per process, the ratio of the loop to
the vectorized all-pairs stage (the same outputs), and checks that both give identical
arrays for every pair and topic.
"""

from __future__ import annotations

import argparse
import glob
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LEVELS = 20
DATA = ROOT.parent / "shared" / "data"


def load(track: str):
    from reeval.io.ingest import ingest_track

    qrels = glob.glob(str(DATA / track / "qrels" / "*"))[0]
    runs = sorted(glob.glob(str(DATA / track / "runs" / "*")))
    return ingest_track(track, qrels, runs, precision="float32")


def vectorized(track: str, out: str) -> dict:
    import numpy as np

    from reeval.analyses.lexiprecision import core as lx
    from reeval.analyses.lexiprecision import ties as lt

    times = {}
    t0 = time.perf_counter()
    tables = load(track)
    times["ingest"] = time.perf_counter() - t0
    t = time.perf_counter()
    pv = lx.position_vectors(tables.judged, tables.qrels, tables.depth)
    pc = lx.compare_pairs(pv)
    times["all_pairs"] = time.perf_counter() - t
    t = time.perf_counter()
    lx.ranking_agreement(pc), lx.system_agreement(pc), lx.tie_rates(pc)
    times["tables_2_3"] = time.perf_counter() - t
    t = time.perf_counter()
    tests = lx.pair_tests(pc, lx.reciprocal_rank(pv))
    lx.discriminative_power(tests)
    times["table_4"] = time.perf_counter() - t
    t = time.perf_counter()
    lt.tie_probability_by_p1(pv), lt.tie_probability_by_level(pc), lt.i_star_distribution(pc)
    lt.locality(pc)
    times["figures_3_5_6_7"] = time.perf_counter() - t
    t = time.perf_counter()
    lt.label_removal_ties(tables.judged, tables.qrels, tables.depth)
    times["figure_9"] = time.perf_counter() - t
    times["total"] = time.perf_counter() - t0
    np.savez(out, sgn=pc.sgn, rr=pc.rr, i_star=pc.i_star, suffix=pc.sgn_suffix, drr=pc.drr)
    return {"times": times, "runs": len(pv.runs), "topics": len(pv.topics), "pairs": pc.n_pairs}


def loop(track: str, out: str) -> dict:
    import numpy as np

    from reeval.analyses.lexiprecision.core import lexiprecision_pair

    times = {}
    t0 = time.perf_counter()
    tables = load(track)
    times["ingest"] = time.perf_counter() - t0
    t = time.perf_counter()
    # position lists as the reference builds them: relevant = grade > 0, per run and topic
    qrels = tables.qrels.to_pandas()
    relevant = qrels[qrels.rel > 0]
    rel_count = relevant.groupby("qid").size().to_dict()
    rel_set = set(zip(relevant.qid, relevant.docno))
    runs = sorted(set(tables.depth["run"].to_pylist()))
    topics = sorted(rel_count)
    found = {}
    for run, qid, docno, pos in zip(*(tables.judged[c].to_pylist() for c in ("run", "qid", "docno", "pos"))):
        if (qid, docno) in rel_set:
            found.setdefault((run, qid), []).append(pos)
    vectors = {(r, q): sorted(found.get((r, q), [])) for r in runs for q in topics}
    vectors = {k: v + [None] * (rel_count[k[1]] - len(v)) for k, v in vectors.items()}
    times["position_lists"] = time.perf_counter() - t
    S, T = len(runs), len(topics)
    P = S * (S - 1) // 2
    # the reference's work: sgnLP and rrLP, pair by pair and topic by topic
    t = time.perf_counter()
    sgn = np.zeros((P, T), dtype=np.int8)
    rr = np.zeros((P, T))
    k = 0
    for i in range(S):
        for j in range(i + 1, S):
            for n, q in enumerate(topics):
                sgn[k, n], rr[k, n] = lexiprecision_pair(vectors[runs[i], q], vectors[runs[j], q])
            k += 1
    times["sgnLP_rrLP"] = time.perf_counter() - t
    # everything the vectorized all-pairs stage also returns: i*, sgnLP on p_2..m, dRR_1..20
    t = time.perf_counter()
    i_star = np.zeros((P, T), dtype=np.int32)
    suffix = np.zeros((P, T), dtype=np.int8)
    drr = np.full((P, T, LEVELS), np.nan)
    k = 0
    for i in range(S):
        for j in range(i + 1, S):
            for n, q in enumerate(topics):
                x, y = vectors[runs[i], q], vectors[runs[j], q]
                i_star[k, n] = next((d + 1 for d, (a, b) in enumerate(zip(x, y)) if a != b), 0)
                suffix[k, n] = lexiprecision_pair(x[1:], y[1:])[0]
                for lvl in range(min(LEVELS, len(x))):
                    drr[k, n, lvl] = ((0.0 if x[lvl] is None else 1.0 / x[lvl])
                                      - (0.0 if y[lvl] is None else 1.0 / y[lvl]))
            k += 1
    times["all_pairs"] = times["sgnLP_rrLP"] + time.perf_counter() - t
    times["total"] = time.perf_counter() - t0
    np.savez(out, sgn=sgn, rr=rr, i_star=i_star, suffix=suffix, drr=drr)
    return {"times": times}


def child(mode: str, track: str, out: str) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--child", mode, "--track", track, "--out", out],
                          capture_output=True, text=True, cwd=ROOT)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-3000:])
    return json.loads(proc.stdout.splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--track", default="trec-covid-round1")
    ap.add_argument("--child", choices=("vectorized", "loop"))
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    if args.child:
        result = (vectorized if args.child == "vectorized" else loop)(args.track, args.out)
        result["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps(result))
        return 0
    if not (DATA / args.track / "runs").is_dir():
        print(f"track {args.track} not found under {DATA}", file=sys.stderr)
        return 1
    import numpy as np

    with tempfile.TemporaryDirectory() as tmp:
        vec = child("vectorized", args.track, f"{tmp}/vec.npz")
        ref = child("loop", args.track, f"{tmp}/loop.npz")
        a, b = np.load(f"{tmp}/vec.npz"), np.load(f"{tmp}/loop.npz")
        same = {name: bool(np.array_equal(a[name], b[name], equal_nan=True)) for name in a.files}
    print(f"{args.track}: {vec['runs']} runs, {vec['topics']} topics with a relevant document, "
          f"{vec['pairs']} pairs x {vec['topics']} topics = {vec['pairs'] * vec['topics']} comparisons")
    print("\n| stage | vectorized s | per-pair loop s |\n|---|---|---|")
    for stage in ("ingest", "position_lists", "sgnLP_rrLP", "all_pairs", "tables_2_3", "table_4", "figures_3_5_6_7",
                  "figure_9", "total"):
        v, r = vec["times"].get(stage), ref["times"].get(stage)
        print(f"| {stage} | {'' if v is None else f'{v:.2f}'} | {'' if r is None else f'{r:.2f}'} |")
    print(f"| peak memory MB | {vec['peak_mb']:.0f} | {ref['peak_mb']:.0f} |")
    ratio = ref["times"]["all_pairs"] / vec["times"]["all_pairs"]
    print(f"\nall pairs x topics (i*, sgnLP, rrLP, suffix sgnLP, dRR_1..20): loop / vectorized = "
          f"{ratio:.1f}x; the loop's sgnLP + rrLP alone: {ref['times']['sgnLP_rrLP']:.2f} s")
    print("identical outputs: " + ", ".join(f"{k} {v}" for k, v in same.items()))
    print(f"every table of the paper, ingest included: {vec['times']['total']:.1f} s, "
          f"peak {vec['peak_mb']:.0f} MB")
    return 0 if all(same.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
