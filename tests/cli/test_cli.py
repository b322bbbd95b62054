"""`reeval score`: trec_eval-compatible output, options and errors."""

import gzip
import subprocess
import sys

import numpy as np
import pytest

from conftest import track_files, write_lines
from reeval.cli import main


@pytest.fixture
def files(tmp_path):
    q = write_lines(tmp_path / "qrels", ["1 0 A 1", "1 0 B 2", "1 0 C 0", "2 0 D 1", "3 0 E 1"])
    r1 = write_lines(tmp_path / "input.alpha", ["1 Q0 A 1 3 tagA", "1 Q0 C 2 2 tagA",
                                               "1 Q0 B 3 1 tagA", "2 Q0 X 1 1 tagA"])
    r2 = tmp_path / "beta.gz"
    r2.write_bytes(gzip.compress(b"1 Q0 B 1 3 b\n2 Q0 D 1 1 b\n"))
    return q, r1, r2


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out.splitlines(), out.err


def test_single_run_lines_match_trec_eval_format(capsys, files):
    q, r1, _ = files
    code, lines, _ = run(capsys, "score", q, r1, "-m", "map", "-m", "P.5,10", "-m", "num_ret")
    assert code == 0
    assert lines == [  # trec_eval's order, not the -m order; no runid unless asked for
        "num_ret               \tall\t4",
        "map                   \tall\t0.4167",   # topic 1: (1/1 + 2/3)/2; topic 2: 0
        "P_5                   \tall\t0.2000",
        "P_10                  \tall\t0.1000",
    ]
    code, lines, _ = run(capsys, "score", q, r1, "-m", "runid", "-m", "map")
    assert lines == ["runid                 \tall\ttagA", "map                   \tall\t0.4167"]


def test_complete_per_topic_level_depth_and_asl(capsys, files):
    q, r1, _ = files
    _, lines, _ = run(capsys, "score", q, r1, "-c", "-q", "-m", "map", "-m", "ASL", "-m", "num_q")
    assert "map                   \t1\t0.8333" in lines
    assert "map                   \tall\t0.2778" in lines      # 3 qrels topics with -c
    assert "num_q                 \tall\t3" in lines
    assert "ASL                   \t1\t1.5000" in lines        # A: 1, B: 2 (C above)
    _, lines, _ = run(capsys, "score", q, r1, "-l", "2", "-m", "map")
    assert lines[-1] == "map                   \tall\t0.1667"  # only B relevant: 1/3, topic 2 none
    _, lines, _ = run(capsys, "score", q, r1, "-M", "1", "-m", "map", "--decimals", "6")
    assert lines[-1] == "map                   \tall\t0.250000"


def test_several_runs_gzipped_are_prefixed_in_argument_order(capsys, files):
    q, r1, r2 = files
    _, lines, _ = run(capsys, "score", q, r2, r1, "-m", "recip_rank", "-m", "ASL@g1-10")
    assert [l.split("\t")[0] for l in lines] == ["beta"] * 2 + ["alpha"] * 2
    assert lines[0] == "beta\trecip_rank            \tall\t1.0000"


def test_bad_input_exits_nonzero_with_file_and_line(capsys, files, tmp_path):
    q, r1, _ = files
    bad = write_lines(tmp_path / "bad", ["1 Q0 A 1 3 t", "1 Q0 B 2 x t"])
    code, _, err = run(capsys, "score", q, bad)
    assert code == 1 and f"{bad}:2:" in err and err.count("\n") == 1
    with pytest.raises(SystemExit) as stop:  # an option error: usage line, exit 2, the nearest names
        run(capsys, "score", q, r1, "-m", "mapp")
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.startswith("usage: reeval score")
    assert "unknown measure 'mapp'; did you mean 'map'" in err and "reeval measures" in err
    code, _, err = run(capsys, "score", tmp_path / "missing", r1)
    assert code == 1 and "missing" in err


def test_console_script_against_pytrec_eval_on_a_real_run():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels_path, runs = track_files("trec2019-dl-passage")
    run_path = [r for r in runs if r.endswith("TUA1-1.gz")][0]
    out = subprocess.run([sys.executable, "-m", "reeval.cli", "score", qrels_path, run_path,
                          "--float32", "-m", "map", "-m", "ndcg_cut.10", "-m", "bpref"],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    values = {l.split("\t")[0].strip(): float(l.split("\t")[2]) for l in out}
    qrels, run = {}, {}
    with gzip.open(qrels_path, "rt") as fh:
        for line in fh:
            qid, _, doc, rel = line.split()
            qrels.setdefault(qid, {})[doc] = int(rel)
    with gzip.open(run_path, "rt") as fh:
        for line in fh:
            qid, _, doc, _, score, _ = line.split()
            if qid in qrels:
                run.setdefault(qid, {})[doc] = float(score)
    res = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut", "bpref"}).evaluate(run)
    for m in ("map", "ndcg_cut_10", "bpref"):
        mean = sum(v[m] for v in res.values()) / len(res)
        assert values[m] == pytest.approx(round(mean, 4), abs=1e-12)


def test_compare_matches_scipy_paired_t_on_per_topic_values(capsys, tmp_path):
    from scipy import stats
    q = write_lines(tmp_path / "q", [f"{t} 0 D{d} {int(d < 3)}" for t in range(1, 9) for d in range(6)])
    rng = np.random.default_rng(3)
    a = write_lines(tmp_path / "a", [f"{t} Q0 D{d} 0 {rng.random():.6f} a" for t in range(1, 9) for d in range(6)])
    b = write_lines(tmp_path / "b", [f"{t} Q0 D{d} 0 {rng.random():.6f} b" for t in range(1, 9) for d in range(6)])
    code, lines, _ = run(capsys, "compare", q, a, b, "-m", "map", "-m", "P@5", "--test", "t",
                         "--test", "permutation", "--alternative", "greater", "--format", "pairs")
    assert code == 0 and len(lines) == 5
    assert lines[0].split("\t") == ["measure", "test", "run_a", "run_b", "mean_a", "mean_b", "diff", "effect_size",
                                    "p_value", "p_adjusted", "ci_method", "ci_low", "ci_high", "topics_a_higher",
                                    "topics_a_lower"]
    from reeval.io.ingest import ingest_track
    from reeval.measures import build_grid, evaluate_grid, parse_measures
    t = ingest_track("x", q, [a, b])
    s = evaluate_grid(build_grid(t.judged, t.depth, t.qrels, runs=["a", "b"]), parse_measures(["map"]))
    ref = stats.ttest_rel(s.values["map"][0], s.values["map"][1], alternative="greater")
    fields = lines[1].split("\t")
    assert fields[:4] == ["map", "t", "a", "b"] and fields[10] == "t"
    assert float(fields[8]) == pytest.approx(ref.pvalue, rel=1e-3)
    assert float(fields[6]) == pytest.approx((s.values["map"][0] - s.values["map"][1]).mean(), abs=1e-4)
    assert lines[2].split("\t")[10:13] == ["none", "nan", "nan"]      # the permutation test gives no interval
    diffs = s.values["map"][0] - s.values["map"][1]
    assert fields[13:] == [str((diffs > 0).sum()), str((diffs < 0).sum())]
    # seeded: the permutation line is identical on a second call
    _, again, _ = run(capsys, "compare", q, a, b, "-m", "map", "--test", "permutation",
                      "--alternative", "greater", "--format", "pairs")
    assert again[1] == lines[2]


def test_compare_prints_one_table_for_many_runs(capsys, tmp_path):
    q = write_lines(tmp_path / "q", [f"{t} 0 D{d} {int(d < 3)}" for t in range(1, 13) for d in range(8)])
    rng = np.random.default_rng(5)
    paths = []
    for k, name in enumerate(["good", "mid", "bad"]):
        # "good" puts the relevant documents first more often than "mid", "mid" than "bad"
        lines = [f"{t} Q0 D{d} 0 {(3 - k) * (d < 3) + rng.random() * 3:.6f} {name}" for t in range(1, 13)
                 for d in range(8)]
        paths.append(write_lines(tmp_path / name, lines))
    code, lines, _ = run(capsys, "compare", q, *paths, "-m", "map", "-m", "P@3", "--test", "t", "--test", "tukey_hsd")
    assert code == 0
    assert lines[0].split() == ["run", "map", "P@3"]
    assert [line.split() for line in lines[1:4]] == [["a", "good", "1.0000*c", "1.0000*c"],
                                                     ["b", "mid", "0.9458", "0.8611"],
                                                     ["c", "bad", "0.8509", "0.6667"]]
    assert lines[4].startswith("Markers: the runs each run beats at p < 0.05 (two-sided paired t-test, "
                               "Holm-adjusted over the 3 pairs of each measure)")
    import reeval
    table = reeval.compare_runs(q, paths, ["map", "P@3"], tests=["t", "tukey_hsd"])
    assert lines == table.report(format="text").splitlines()
    _, latex, _ = run(capsys, "compare", q, *paths, "--format", "latex", "--table-test", "tukey_hsd",
                      "--test", "t", "--test", "tukey_hsd", "--max-p", "0.01")
    assert latex[0] == "\\begin{table}" and "\\toprule" in latex and "Tukey's HSD" in latex[2] and "p \\textless{} 0.01" in latex[2]
    code, _, err = run(capsys, "compare", q, *paths, "--table-test", "sign")
    assert code == 1 and "--table-test sign is not among the tests run" in err
    with pytest.raises(SystemExit):
        main(["compare", str(q), str(paths[0])])
    assert "compare needs at least two runs" in capsys.readouterr().err


def test_a_run_that_keeps_no_line_is_an_error_naming_it(capsys, tmp_path):
    q = write_lines(tmp_path / "q", ["1 0 A 1"])
    good = write_lines(tmp_path / "good", ["1 Q0 A 1 1 tg"])
    unjudged = write_lines(tmp_path / "unjudged", ["9 Q0 A 1 1 tu"])
    empty = tmp_path / "empty"
    empty.write_text("")
    code, lines, err = run(capsys, "score", q, good, unjudged, "-c", "-m", "map")
    assert code == 1 and lines == []
    assert err == f"reeval: {unjudged}: nothing to evaluate (1 line read: 1 on a topic without judgments)\n"
    code, lines, err = run(capsys, "score", q, good, empty, "-m", "map")
    assert (code, lines, err) == (1, [], f"reeval: {empty}: nothing to evaluate (empty file)\n")




@pytest.mark.parametrize("argv, message", [
    (["score", "-M", "9223372036854775808"], "argument -M: must be at most 9223372036854775807, not 9223372036854775808"),
    (["score", "-M", str(10**30)], "argument -M: must be at most 9223372036854775807"),
    (["score", "-l", str(2**63)], "argument -l: must be at most 9223372036854775807"),
    (["score", "-l", str(-2**63 - 1)], "argument -l: must be at least -9223372036854775808"),
    (["score", "--decimals", "99999999"], "argument --decimals: must be at most 30"),
    (["compare", "--seed", "-1"], "argument --seed: must be at least 0, not -1"),
    (["compare", "--seed", str(2**64)], "argument --seed: must be at most 9223372036854775807"),
    (["compare", "--resamples", str(2**63)], "argument --resamples: must be at most 1000000000"),
    (["prefer", "-l", "1e3"], "argument -l: expected an integer, not '1e3'"),
])
def test_integer_options_out_of_bounds_are_usage_errors_not_overflows(argv, message):
    qrels, runs = track_files("trec-covid-round2")
    files = [qrels, runs[0]] + ([runs[1]] if argv[0] in ("compare", "prefer") else [])
    got = subprocess.run([sys.executable, "-m", "reeval.cli", argv[0], *files, *argv[1:]], capture_output=True,
                         text=True)
    assert got.returncode == 2 and got.stdout == "" and "Traceback" not in got.stderr
    assert got.stderr.startswith("usage: reeval") and f"error: {message}" in got.stderr, got.stderr


def test_integer_options_at_their_bounds_compute(capsys):
    qrels, runs = track_files("trec-covid-round2")
    run_ = [r for r in runs if r.endswith("covidex.t5.gz")][0]
    code, out, _ = run(capsys, "score", "-M", 2**63 - 1, "-m", "map", qrels, run_)
    assert (code, out[-1]) == (0, "map                   \tall\t0.2880")  # the published MAP (../shared/data)
    code, out, _ = run(capsys, "score", "-l", -2**63, "-m", "num_rel", qrels, run_)
    assert (code, out[-1]) == (0, "num_rel               \tall\t12037")  # every judgment
    code, out, _ = run(capsys, "score", "-l", 2**63 - 1, "-m", "num_rel", qrels, run_)
    assert (code, out[-1]) == (0, "num_rel               \tall\t0")


def test_compare_heads_each_column_with_the_measure_name_as_asked(capsys, tmp_path):
    """Issue 39 item 5: ``-m nDCG@10 --format latex`` headed its column ``ndcg_cut_10``."""
    q = write_lines(tmp_path / "q", [f"{t} 0 D{d} {int(d < 3)}" for t in range(1, 6) for d in range(8)])
    paths = [write_lines(tmp_path / n, [f"{t} Q0 D{d} 0 {(d * (k + 3)) % 8} {n}" for t in range(1, 6)
                                        for d in range(8)]) for k, n in enumerate(["a", "b"])]
    _, latex, _ = run(capsys, "compare", q, *paths, "-m", "nDCG@10", "-m", "map", "--format", "latex")
    assert latex[5] == r" & Run & nDCG@10 & map \\"
    _, markdown, _ = run(capsys, "compare", q, *paths, "-m", "nDCG@10", "--format", "markdown")
    assert markdown[0].split("|")[3].strip() == "nDCG@10"
    _, text, _ = run(capsys, "compare", q, *paths, "-m", "nDCG@10", "-m", "P.5,10")
    assert text[0].split() == ["run", "nDCG@10", "P_5", "P_10"]   # a list of cutoffs keeps reeval's names
    _, pairs, _ = run(capsys, "compare", q, *paths, "-m", "nDCG@10", "--format", "pairs")
    assert pairs[1].split("\t")[0] == "nDCG@10"


def test_compare_with_a_baseline_prints_the_baseline_form(capsys, tmp_path):
    """--baseline: the baseline's row first and marked, then each run's delta, topics
    improved / degraded, p and corrected p (PyTerrier's Experiment form)."""
    q = write_lines(tmp_path / "qrels", [f"{t} 0 D{d} {int(d < 2)}" for t in range(1, 5) for d in range(4)])
    base = write_lines(tmp_path / "base", [f"{t} Q0 D{d} 0 {d} base" for t in range(1, 5) for d in range(4)])
    good = write_lines(tmp_path / "good", [f"{t} Q0 D{d} 0 {4 - d} good" for t in range(1, 5) for d in range(4)])
    code, lines, _ = run(capsys, "compare", q, base, good, "--baseline", "base", "--quiet")
    assert code == 0
    assert lines[0].split() == ["run", "map", "map", "delta", "map", "improved", "map", "degraded", "map", "p", "map",
                                "p", "corrected"]
    assert lines[1].split() == ["base", "(baseline)", "0.4167"]
    assert lines[2].split()[:5] == ["good", "1.0000", "+0.5833", "4", "0"]
    assert "Each run against the baseline base" in lines[3]
