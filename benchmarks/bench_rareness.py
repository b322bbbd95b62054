"""Every rareness analysis on TREC-COVID round 1 (143 runs x 30 topics), timed step by step.

    .venv/bin/python benchmarks/bench_rareness.py [--track trec-covid-round1] [--trials 1000]

Steps (default configuration: k = 100, alpha in {0, 0.25, 0.5, 0.75, 1}, the four
rareness measures, 1000 trials): per-topic scores of every measure x alpha, Kendall tau
per alpha, Tukey HSD discriminative power (95%, 99%), Buckley-Voorhees stability, the
number-of-systems experiment (N = 2..64), the synthetic figure-1 experiment, and the
whole per-track step of the workflow (the same, plus writing every table and figure).
Ingest is timed apart (it is the workflow's ingest rule). The seeded experiments are run a
second time and must give identical tables. Target: under 60 s on 2 cores.
"""

import argparse
import glob
import resource
import tempfile
import time
from pathlib import Path

import pandas as pd

from reeval.analyses.rareness import core as rr
from reeval.analyses.rareness import analysis as ra
from reeval.analyses.rareness import report as rp
from reeval.io.ingest import ingest_track, write_track
from reeval.measures import build_grid
from reeval.workflow.config_check import section_with_defaults

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--track", default="trec-covid-round1")
    ap.add_argument("--trials", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=section_with_defaults("rareness")["seed"])
    args = ap.parse_args()
    qrels = glob.glob(str(DATA / args.track / "qrels" / "*"))[0]
    runs = sorted(glob.glob(str(DATA / args.track / "runs" / "*")))
    opts = rp.with_parsed_alphas(section_with_defaults("rareness", {"trials": args.trials, "seed": args.seed}))
    timings = {}

    def step(name, fn):
        t = time.perf_counter()
        out = fn()
        timings[name] = time.perf_counter() - t
        return out

    tables = step("ingest (apart)", lambda: ingest_track(args.track, qrels, runs, precision="float32"))
    k, alphas, families = opts["k"], opts["alpha"], opts["measures"]
    keyed = [(f, a) for f in families for a in alphas]

    def prepare():
        grid = build_grid(tables.judged, tables.depth, tables.qrels, keep_docno=True)
        return rr.top_k_hits(grid, k)

    hits = step("grid + top-k hits", prepare)
    per_topic = step("scores (4 measures x 5 alpha)",
                     lambda: {(f, a): rr.scores(hits, f, a) for f, a in keyed})
    means = {key: ra.run_means(v) for key, v in per_topic.items()}
    tau = step("Kendall tau + tau_AP per alpha",
               lambda: ra.rank_correlation(means, {f: means[(f, 0)] for f in families}))
    disc = step("discriminative power (Tukey HSD)", lambda: ra.discriminative_power(per_topic))
    fuzzy = {"fuzziness": opts["fuzziness"], "scale": opts["fuzziness_scale"], "seeds": opts["stability_seeds"]}
    stab = step(f"stability ({args.trials} trials x {fuzzy['seeds']} seeds)",
                lambda: ra.stability(per_topic, trials=args.trials, seed=args.seed, **fuzzy))
    nsys = step(f"number of systems ({args.trials} trials)",
                lambda: ra.number_of_systems(hits, keyed, sizes=opts["n_systems"], trials=args.trials,
                                             seed=args.seed))
    step("synthetic experiment", lambda: ra.synthetic_ranks(hits, ra.default_topic(hits)))
    analyses = sum(v for key, v in timings.items() if key != "ingest (apart)")
    with tempfile.TemporaryDirectory() as tmp:
        write_track(tables, tmp)
        step("workflow step (tables + figures)",
             lambda: rp.track_rareness(args.track, tmp, Path(tmp) / "rareness", opts))
    same = (ra.stability(per_topic, trials=args.trials, seed=args.seed, **fuzzy).equals(stab)
            and ra.number_of_systems(hits, keyed, sizes=opts["n_systems"], trials=args.trials,
                                     seed=args.seed).equals(nsys))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    S, T = hits.shape
    print(f"{args.track}: {S} runs x {T} topics, {len(hits.run):,} relevant documents in the top {k}")
    for name, s in timings.items():
        print(f"  {name:<40} {s:7.2f} s")
    print(f"  {'every analysis (without ingest)':<40} {analyses:7.2f} s   peak RSS {peak:.0f} MB")
    print(f"  deterministic for seed {args.seed}: {same}")
    pd.set_option("display.width", 200)
    at = lambda df, a: df[df.alpha.isin([rr.alpha_label(x) for x in a])]  # noqa: E731
    print(at(tau, [0.5, 1]).to_string(index=False))
    print(at(disc, [0, 0.5, 1]).to_string(index=False))
    print(at(stab, [0, 0.5, 1]).to_string(index=False))
    print(at(nsys, [1]).to_string(index=False))
    if not same:
        raise SystemExit("seeded experiments differ between two runs")


if __name__ == "__main__":
    main()
