"""Parity with trec_eval 10.0 itself, built from ../shared/oracles (conftest.trec_eval10):
its own quicktest through ``reeval score`` byte for byte; every measure of ``-m all_trec``,
topic by topic at full precision and in the printed lines, on every run of every shared
track; options and parameters (-M, -J, -l, gain maps, rbp's p ...) on real runs."""

import contextlib
import io
import math
import subprocess
import sys

import pytest

from conftest import REAL_TRACKS, real_track_params
from reeval.cli import main, read_inputs
from reeval.compute import score_track
from reeval.measures import trec_eval_selection

#: trec_eval's Makefile `quicktest` cases on qrels and TREC runs (not -Z, -R prefs, qrels_prefs, qrels_jg)
QUICKTEST = [
    ("out.test", ["qrels.test", "results.test"]),
    ("out.test", ["qrels.test.with-comments", "results.test"]),
    ("out.comment.test", ["qrels.comment.test", "results.comment.test"]),
    ("out.test.a", ["-m", "all_trec", "qrels.test", "results.test"]),
    ("out.test.aq", ["-m", "all_trec", "-q", "qrels.test", "results.test"]),
    ("out.test.aqc", ["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"]),
    ("out.test.aqcM", ["-m", "all_trec", "-q", "-c", "-M100", "qrels.test", "results.trunc"]),
    ("out.test.aql", ["-m", "all_trec", "-mrelstring.20", "-q", "-l2", "qrels.rel_level", "results.test"]),
    ("out.test.meas_params", ["-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
                              "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
                              "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20",
                              "qrels.test", "results.test"]),
]
#: families whose values pass through log or log2 (numpy's here, the C library's in
#: trec_eval): allowed 1e-12 on platforms where the two differ in the last bit; equal here
LOG_FAMILIES = {"ndcg", "ndcg_cut", "ndcg_rel", "Rndcg", "dcg", "ideal_dcg", "G", "binG", "yaap", "gm_map",
                "gm_bpref"}


@pytest.mark.parametrize("expected, argv", QUICKTEST, ids=[" ".join(a) for _, a in QUICKTEST])
def test_trec_eval_quicktest_byte_for_byte(trec_eval10, expected, argv):
    """`reeval score` prints trec_eval's expected output files of its own test suite."""
    out = subprocess.run([sys.executable, "-m", "reeval.cli", "score", "--quiet", *argv], cwd=trec_eval10.tests,
                         capture_output=True, check=True).stdout
    assert out == (trec_eval10.tests / expected).read_bytes()


def _oracle(binary, qrels, run, options) -> dict:
    """{(measure, qid): text} printed by trec_eval for one run."""
    out = subprocess.run([str(binary), *options, str(qrels), str(run)], capture_output=True, text=True, check=True)
    return {(m.strip(), q): v for m, q, v in (line.split("\t") for line in out.stdout.splitlines())}


def _same(family: str, ours, text: str) -> bool:
    """Our value equals trec_eval's printed one (exactly; within 1e-12 for log families)."""
    if family == "relstring":
        return f"'{ours}'" == text
    theirs = float(text)
    if math.isnan(theirs) or math.isnan(ours):
        return math.isnan(theirs) and math.isnan(ours)
    return ours == theirs or (family in LOG_FAMILIES and abs(ours - theirs) <= 1e-12)


def check_track(trec_eval10, plain_tracks, track, level, specs=("all_trec",), max_depth=None, judged_only=False):
    """Every measure of ``specs``, topic by topic (-c -q) and for the run (`all`), equals
    trec_eval 10's full-precision output on every run of the track. Returns values checked."""
    qrels, runs = plain_tracks(track)
    options = ["-q", "-c", "-l", str(level), *(f"-m{s}" for s in specs)]
    options += [f"-M{max_depth}"] * (max_depth is not None) + ["-J"] * judged_only
    measures, _ = trec_eval_selection(list(specs))
    tables = read_inputs(qrels, [path for _, path in runs])
    names = [name for name, _ in runs]
    scores, summary = score_track(tables, names, measures, rel_level=level, max_depth=max_depth,
                                  judged_only=judged_only, complete=True)
    checked = 0
    for si, (name, path) in enumerate(runs):
        oracle, seen = _oracle(trec_eval10.full, qrels, path, options), set()
        for m in measures:
            if m.family == "runid":
                assert oracle[("runid", "all")] == summary["runid"][si]
                seen.add(("runid", "all"))
                continue
            if m.aggregate not in ("count", "gmean"):  # a per-topic line (with -c, for every qrels topic)
                for ti, qid in enumerate(scores.topics):
                    assert _same(m.family, scores.values[m.name][si, ti], oracle[(m.name, qid)]), (name, m.name, qid)
                    seen.add((m.name, qid))
                    checked += 1
            if m.aggregate != "none":
                assert _same(m.family, float(summary[m.name][si]), oracle[(m.name, "all")]), (name, m.name)
                seen.add((m.name, "all"))
        assert seen == set(oracle), name  # no line of trec_eval's left unchecked
    return checked


@pytest.mark.parametrize("track", real_track_params())
def test_all_trec_topic_by_topic_on_every_run(trec_eval10, plain_tracks, track):
    levels = {REAL_TRACKS[track], 1, 2} if track.startswith(("trec20", "trec2021", "trec-covid-round5")) else {1}
    for level in sorted(levels):
        assert check_track(trec_eval10, plain_tracks, track, level) > 0


@pytest.mark.parametrize("track", real_track_params())
def test_printed_lines_equal_trec_eval_s_on_every_run(trec_eval10, plain_tracks, track):
    """`reeval score -c -m all_trec QRELS RUN...` (all runs in one command, each line after
    its run's name) prints, per run, the lines `trec_eval -c -m all_trec QRELS RUN` prints."""
    qrels, runs = plain_tracks(track)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(["score", "--quiet", "-c", "-m", "all_trec", str(qrels), *(str(p) for _, p in runs)]) == 0
    ours: dict = {}
    for line in printed.getvalue().splitlines():
        name, rest = line.split("\t", 1)
        ours.setdefault(name, []).append(rest)
    for name, path in runs:
        out = subprocess.run([str(trec_eval10.binary), "-c", "-m", "all_trec", str(qrels), str(path)],
                             capture_output=True, text=True, check=True).stdout
        assert ours[name] == out.splitlines(), name


@pytest.mark.parametrize("specs, options", [
    (("all_trec",), {"max_depth": 50}),
    (("all_trec",), {"judged_only": True}),
    (("ndcg.0=1,1=3,2=9,3=4.5", "G.1=2.5,3=0.2", "Rndcg.2=0,3=-1"), {}),  # G: -nan on topics where it logs <= 0
    # dcg, ideal_dcg and ndcg share one parameter record in trec_eval (m_ndcg.c): two of them
    # with gains abort it, and one's gains are the others' (docs/semantics.md); one at a time
    (("ndcg_rel.1=0.5,2=2.7", "dcg.2=5", "yaap", "G.1=3,2=9"), {}),
    (("ideal_dcg.1=0,2=1", "Rndcg.1=7,2=1,3=1"), {}),
    (("rbp.p=0.95",), {}),
    (("rbp_resid.p=0.5", "utility.1,-0.5,-2,0.001", "11pt_avg.0.9,0.1,0.5"), {}),
    (("set_F.0.25", "Rprec_mult.0.1,3", "relstring.50", "unj.1,1000", "success.1,1000"), {}),
])
@pytest.mark.slow
def test_options_and_parameters_on_real_runs(trec_eval10, plain_tracks, specs, options):
    for track, level in [("trec2019-dl-passage", 2), ("trec-covid-round5", 1)]:
        assert check_track(trec_eval10, plain_tracks, track, level, specs, **options) > 0


def test_rbp_is_what_trec_eval_intends_where_it_reads_uninitialised_memory(trec_eval10, plain_tracks):
    """trec_eval 10.0's rbp starts its min and max of the gains uninitialised (m_rbp.c): its
    value depends on the build and on what ran before it. Alone, or in all_trec, the
    default build gives what the code means (min and max of the topic's gains), which
    reeval computes; after yaap it gives another number on graded qrels."""
    qrels, runs = plain_tracks("trec2019-dl-passage")
    name, path = runs[0]
    alone = _oracle(trec_eval10.full, qrels, path, ["-l2", "-mrbp"])
    after = _oracle(trec_eval10.full, qrels, path, ["-l2", "-mrbp", "-myaap"])
    tables = read_inputs(qrels, [path])
    measures, _ = trec_eval_selection(["rbp"])
    _, summary = score_track(tables, [name], measures, rel_level=2, complete=False)
    assert float(alone[("rbp", "all")]) == summary["rbp"][0] != float(after[("rbp", "all")])
