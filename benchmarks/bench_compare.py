"""Many runs compared at once: TREC 2019 DL passages (37 runs, 666 pairs) through
``reeval.compare_runs`` with every test, and the randomised Tukey HSD by B.

    .venv/bin/python benchmarks/bench_compare.py [--repeat 3] [--track ../shared/data/trec2019-dl-passage]
        [--measures AP,nDCG@10,RR] [--level 2] [--resamples 10000] [--skip-peers]

Whole processes, as a user types them (interpreter start and imports included; medians of
``--repeat`` fresh processes):

  python -c   ``reeval.compare_runs(qrels, runs, measures, tests=<all 7>, resamples=B)``
  reeval      ``reeval compare -l LEVEL -m ... --test <all 7> --format pairs QRELS RUN...``

In one process, beside them and labelled so (the reading and scoring excluded): each
test on the per-topic matrices, every pair at once; the same work done pair by pair by a
peer (scipy.stats ttest_rel / wilcoxon / permutation_test, statsmodels' multipletests,
scipy.stats.tukey_hsd (one-way), reeval's two-run bootstrap) measured in the same run,
with their ratio; and the randomised Tukey HSD by B (scores: RR, 37 x 43; preferences:
rrLP, 666 pairs), against a loop over single resamples. The command's p-values are
checked equal to scipy's ttest_rel + statsmodels' Holm. The machine is shared: ``uptime``
is printed before and after.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
from bench_api import track_inputs   # benchmarks/ is the script's folder

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TRACK = ROOT.parent / "shared" / "data" / "trec2019-dl-passage"
TESTS = ("t", "wilcoxon", "sign", "permutation", "bootstrap", "tukey_hsd", "randomised_tukey_hsd")
API_SCRIPT = """
import sys, warnings
import reeval
warnings.simplefilter("ignore", reeval.ReevalWarning)
qrels, measures, level, resamples, out = sys.argv[1], sys.argv[2].split(","), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
runs = sys.argv[6:]
table = reeval.compare_runs(qrels, runs, measures, tests={tests!r}, relevance_level=level, resamples=resamples)
table.to_csv(out, index=False)
""".format(tests=TESTS)


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def whole_processes(qrels, runs, measures, level, resamples, repeat, tmp) -> dict:
    """Median wall time of the python -c and the command, fresh processes each round."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    cli = [str(Path(sys.executable).with_name("reeval")), "compare", "--quiet", "-l", str(level),
           "--resamples", str(resamples), "--format", "pairs"]
    for m in measures:
        cli += ["-m", m]
    for t in TESTS:
        cli += ["--test", t]
    times = {"python -c compare_runs": [], "reeval compare": []}
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", API_SCRIPT, qrels, ",".join(measures), str(level), str(resamples),
                        str(tmp / "api.csv"), *runs], check=True, env=env)
        times["python -c compare_runs"].append(time.perf_counter() - start)
        start = time.perf_counter()
        with open(tmp / "cli.tsv", "w") as sink:
            subprocess.run(cli + [qrels, *runs], stdout=sink, check=True, env=env)
        times["reeval compare"].append(time.perf_counter() - start)
    return {k: statistics.median(v) for k, v in times.items()}


def check_t_holm(api, cli, X: np.ndarray, measure: str) -> int:
    """The t rows of ``measure``: the API's p_adjusted equal scipy's ttest_rel + statsmodels'
    Holm on the per-topic values X, and the command printed the API's (4 significant
    digits). Returns the rows checked."""
    from scipy import stats as st

    ii, jj = np.triu_indices(X.shape[0], 1)
    expected = _holm([st.ttest_rel(X[i], X[j]).pvalue for i, j in zip(ii, jj)])
    rows = api[(api.test == "t") & (api.measure == measure)]
    assert np.allclose(rows.p_adjusted, expected, rtol=1e-9, atol=1e-300), "compare_runs != scipy + statsmodels"
    t_cli = cli[cli.test == "t"]
    assert np.allclose(api[api.test == "t"].p_value, t_cli.p_value, rtol=1e-3, atol=1e-300), "command != API"
    return len(rows)


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return time.perf_counter() - start, out


def matrices(qrels, runs, measures, level):
    import reeval

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", reeval.ReevalWarning)
        by_topic = reeval.evaluate(qrels, runs, measures, per_topic=True, relevance_level=level)
    from reeval.stats.frames import score_matrix

    return {m: score_matrix(by_topic[m])[0] for m in measures}


def per_test(X: np.ndarray, resamples: int, skip_peers: bool) -> list:
    """(test, vectorised seconds, peer seconds or None, peer name) on one runs x topics matrix."""
    from scipy import stats as st

    from reeval.stats import bootstrap_test
    from reeval.stats.comparisons import all_pairs_tests

    ii, jj = np.triu_indices(X.shape[0], 1)
    peers = {
        "t": ("scipy ttest_rel loop + statsmodels holm", lambda: _holm([st.ttest_rel(X[i], X[j]).pvalue
                                                                      for i, j in zip(ii, jj)])),
        "wilcoxon": ("scipy wilcoxon loop", lambda: [st.wilcoxon(X[i], X[j]).pvalue for i, j in zip(ii, jj)
                                                     if np.any(X[i] != X[j])]),
        "sign": ("scipy binomtest loop", lambda: [st.binomtest(int((X[i] > X[j]).sum()),
                                                               int((X[i] != X[j]).sum()) or 1).pvalue
                                                  for i, j in zip(ii, jj)]),
        "permutation": ("scipy permutation_test loop (vectorized=True)", lambda: [
            st.permutation_test((X[i], X[j]), lambda a, b, axis: np.mean(a - b, axis=axis), vectorized=True,
                                permutation_type="samples", n_resamples=resamples, rng=0).pvalue
            for i, j in zip(ii, jj)]),
        "bootstrap": ("reeval two-run bootstrap_test loop", lambda: [
            bootstrap_test(X[i], X[j], n_resamples=resamples)["p_value"] for i, j in zip(ii, jj)]),
        "tukey_hsd": ("scipy tukey_hsd (one-way)", lambda: st.tukey_hsd(*X).pvalue),
        "randomised_tukey_hsd": ("loop over single resamples", lambda: _loop_rhsd(X, resamples)),
    }
    out = []
    for test in TESTS:
        ours, _ = timed(all_pairs_tests, X, tests=[test], resamples=resamples)
        name, peer = peers[test]
        theirs = None if skip_peers else timed(peer)[0]
        out.append((test, ours, theirs, name))
    return out


def _holm(p):
    from statsmodels.stats.multitest import multipletests

    return multipletests(p, method="holm")[1]


def _loop_rhsd(X: np.ndarray, B: int) -> np.ndarray:
    """The randomised HSD's null distribution one resample at a time (numpy within it)."""
    rng = np.random.default_rng(0)
    S, T = X.shape
    null = np.empty(B)
    topic = np.arange(T)
    for b in range(B):
        perm = np.argsort(rng.random((T, S)), axis=1)
        means = X[perm.T, topic].mean(axis=1)
        null[b] = means.max() - means.min()
    return null


def hsd_by_b(qrels, runs, level, bs) -> list:
    """(B, seconds scores RR, seconds preferences rrLP) in this process."""
    from reeval.analyses.lexiprecision import core as lx
    from reeval.io.ingest import ingest_track
    from reeval.io.trecio import run_names
    from reeval.stats import randomised_tukey_hsd, randomised_tukey_hsd_preferences

    tables = ingest_track("bench", qrels, runs, keep_runs=False)
    pv = lx.position_vectors(tables.judged, tables.qrels, tables.depth, runs=run_names(runs), rel_level=level,
                             levels=1)
    pc = lx.compare_pairs(pv, levels=1)
    rr = lx.reciprocal_rank(pv)
    rows = []
    for B in bs:
        scores, _ = timed(randomised_tukey_hsd, rr, resamples=B)
        prefs, _ = timed(randomised_tukey_hsd_preferences, pc.rr, resamples=B)
        rows.append((B, scores, prefs, (0.05 * 0.95 / B) ** 0.5))
    return rows, pc.rr.shape


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--track", type=Path, default=DEFAULT_TRACK)
    ap.add_argument("--measures", default="AP,nDCG@10,RR")
    ap.add_argument("--level", type=int, default=2)
    ap.add_argument("--resamples", type=int, default=10000)
    ap.add_argument("--skip-peers", action="store_true", help="time only reeval in process")
    args = ap.parse_args(argv)
    if not args.track.is_dir():
        sys.exit(f"{args.track}: track not found (../shared/data holds TREC 2019 DL passages)")
    qrels, runs = track_inputs(args.track)
    measures = args.measures.split(",")
    import pandas as pd

    print("before:", uptime())
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        whole = whole_processes(qrels, runs, measures, args.level, args.resamples, args.repeat, tmp)
        api, cli = pd.read_csv(tmp / "api.csv"), pd.read_csv(tmp / "cli.tsv", sep="\t")
    X = matrices(qrels, runs, measures[:1], args.level)[measures[0]]
    checked = check_t_holm(api, cli, X, measures[0])
    S = len(runs)
    print(f"{S} runs ({S * (S - 1) // 2} pairs) of {args.track.name}, measures {args.measures}, relevance "
          f">= {args.level}, tests {', '.join(TESTS)}, B = {args.resamples}; {len(api)} rows; the {checked} t rows "
          f"of {measures[0]} equal scipy ttest_rel + statsmodels Holm, and the command printed the API's")
    for name, seconds in whole.items():
        print(f"whole process  {name:<24} median of {args.repeat}: {seconds:7.2f} s")
    print(f"\nin process, {measures[0]} only ({X.shape[0]} x {X.shape[1]}), scores already computed:")
    print(f"{'test':<22}{'reeval':>9}{'peer':>10}{'ratio':>8}  peer")
    for test, ours, theirs, name in per_test(X, args.resamples, args.skip_peers):
        ratio = f"{theirs / ours:7.1f}x" if theirs else "      -"
        print(f"{test:<22}{ours:8.2f}s{(f'{theirs:9.2f}s' if theirs else '         -')}{ratio}  {name}")
    rows, shape = hsd_by_b(qrels, runs, args.level, (1000, 2000, 5000, 10000, 20000))
    print(f"\nrandomised Tukey HSD by B, in process (RR: {S} x {X.shape[1]}; rrLP: {shape[0]} pairs x {shape[1]} topics):")
    print(f"{'B':>6}{'scores (RR)':>14}{'preferences (rrLP)':>21}{'MC s.e. at p=0.05':>20}")
    for B, scores, prefs, se in rows:
        print(f"{B:>6}{scores:13.2f}s{prefs:20.2f}s{se:20.4f}")
    print("after:", uptime())
    return 0


if __name__ == "__main__":
    sys.exit(main())
