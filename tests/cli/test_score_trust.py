"""`reeval score` on the hostile inputs of issue 31 ("Trust, round three") and the stderr
rule of issue 34: each test failed before its fix. trec_eval 10.0's own answers, where it
gives one, are written beside the expected lines (checked for every case of this kind by
tests/measures/test_differential.py against the binary)."""

import pytest

from conftest import write_lines
from reeval.cli import main


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out.splitlines(), out.err


def values(lines) -> dict:
    """{(measure, qid): text} of printed lines."""
    return {(m.strip(), q): v for m, q, v in (line.split("\t") for line in lines)}


@pytest.fixture
def two_topics(tmp_path):
    """qrels `1 0 d1 1` / `2 0 d1 1`; a run retrieving d1 for 1 and an unjudged zz for 2."""
    q = write_lines(tmp_path / "qrels", ["1 0 d1 1", "2 0 d1 1"])
    r = write_lines(tmp_path / "run", ["1 Q0 d1 1 3 t", "2 Q0 zz 1 3 t"])
    return q, r


def test_judged_only_keeps_a_topic_whose_retrieved_documents_are_all_unjudged(capsys, two_topics):
    """Item 1: -J without -c (trec_eval 10: num_q 2, map 0.5000)."""
    code, lines, _ = run(capsys, "score", "-J", "-m", "num_q", "-m", "map", *two_topics)
    assert code == 0 and lines == ["num_q                 \tall\t2", "map                   \tall\t0.5000"]


def test_judged_only_utility_and_iprec_of_a_topic_left_empty_are_trec_eval_s(capsys, tmp_path):
    """-J -M1 leaves topic 2 with nothing ranked: trec_eval scores utility's c3 R and
    iprec_at_recall 0 / 0 (-nan) on it."""
    q = write_lines(tmp_path / "qrels", ["1 0 a 1", "2 0 b 1", "2 0 c 1"])
    r = write_lines(tmp_path / "run", ["1 Q0 a 1 3 t", "2 Q0 u 1 3 t", "2 Q0 b 2 1 t"])
    code, lines, _ = run(capsys, "score", "-q", "-J", "-M1", "-m", "utility.0,0.5,2,0", "-m", "iprec_at_recall.0",
                         q, r)
    got = values(lines)
    assert got[("utility_0,0.5,2,0", "2")] == "4.0000" and got[("iprec_at_recall_0.00", "2")] == "  -nan"


@pytest.mark.parametrize("specs, also", [
    (["official", "AP(rel=2)"], {"map", "AP(rel=2)", "P_5"}),
    (["Rprec", "Rprec(rel=2)"], {"Rprec", "Rprec(rel=2)"}),
    (["bpref", "Bpref(rel=2)"], {"bpref", "Bpref(rel=2)"}),
    (["map", "AP(judged_only=True)"], {"map", "AP(judged_only=True)"}),
    (["official", "iprec_at_recall.0.2,0.25"], {"map", "iprec_at_recall_0.20", "iprec_at_recall_0.25"}),
])
def test_an_ir_measures_variant_or_a_parameter_keeps_every_requested_measure(capsys, two_topics, specs, also):
    """Item 2: `-m official -m 'AP(rel=2)'` printed no map."""
    argv = [a for s in specs for a in ("-m", s)]
    code, lines, _ = run(capsys, "score", *argv, *two_topics)
    assert code == 0 and also <= {m for m, _ in values(lines)}


def test_parameters_replace_a_set_s_defaults_in_their_order(capsys, two_topics):
    code, lines, _ = run(capsys, "score", "-m", "all_trec", "-m", "ndcg_cut.10,1", *two_topics)
    assert [m for m, _ in values(lines) if m.startswith("ndcg_cut")] == ["ndcg_cut_1", "ndcg_cut_10"]


def test_qrels_topics_the_run_lacks_are_said_once(capsys, tmp_path):
    """Item 5: trec_eval 10.0 exits 4 here; reeval says how many topics the run lacks and
    that -c counts them."""
    q = write_lines(tmp_path / "qrels", ["1 0 a 1", "1 0 b 1", "2 0 c 1"])
    r = write_lines(tmp_path / "run", ["1 Q0 a 1 3 t"])
    code, lines, err = run(capsys, "score", "-m", "num_q", "-m", "map", q, r)
    assert lines == ["num_q                 \tall\t1", "map                   \tall\t0.5000"]
    assert err.count("\n") == 1 and "run lacks 1 of 2" in err and "-c counts them" in err
    code, lines, err = run(capsys, "score", "-c", "-m", "num_q", "-m", "map", q, r)
    assert lines == ["num_q                 \tall\t2", "map                   \tall\t0.2500"] and err == ""


@pytest.mark.parametrize("spec, message", [
    ("nDCG(gains={1:3,1:1})@10", "a grade is given two gains"),
    ("AP(rel=2,rel=3)", "rel is given twice"),
    ("nDCG@9223372036854775808", "cutoffs must be integers from 1 to 2^63 - 1"),
    ("RR@9223372036854775808", "must be within"),
    ("AP(rel=99999999999999999999)", "must be within"),
    ("ndcg.1=inf", "is not a finite number"),
    ("rbp.p=1.5", "p must be in (0, 1]"),
    ("RBP(p=0)", "p must be in (0, 1]"),
])
def test_repeated_out_of_range_or_non_finite_parameters_are_refused_in_one_line(capsys, two_topics, spec, message):
    """Items 6, 12, 15: nDCG above 1, the last rel silently, an OverflowError traceback,
    nan for an infinite gain, a negative RBP."""
    with pytest.raises(SystemExit) as exit_:
        main(["score", "-m", spec, *map(str, two_topics)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and message in err and "Traceback" not in err


def test_a_negative_level_is_level_0_and_said(capsys, tmp_path):
    """Item 7: qrels `1 0 a -3` / `1 0 b 1`, -l -3: num_rel_ret 2 and bpref 2.0 before
    (trec_eval 10: 1 and 1.0); a negative grade is never relevant."""
    q = write_lines(tmp_path / "qrels", ["1 0 a -3", "1 0 b 1"])
    r = write_lines(tmp_path / "run", ["1 Q0 a 1 2 t", "1 Q0 b 2 1 t"])
    argv = ["-m", "num_rel", "-m", "num_rel_ret", "-m", "bpref", "-m", "map", q, r]
    code, lines, err = run(capsys, "score", "-l", "-3", *argv)
    assert values(lines) == {("num_rel", "all"): "1", ("num_rel_ret", "all"): "1", ("bpref", "all"): "1.0000",
                             ("map", "all"): "0.5000"}
    assert "-l -3 read as -l 0" in err
    assert run(capsys, "score", "-l", "0", *argv)[1] == lines


def test_grades_beyond_what_a_double_holds_are_refused_by_the_gain_measures(capsys, tmp_path):
    """Item 8: a grade of 2^63 - 1 gave ndcg 0 and rbp 9.2e18; the measures that do not use
    gains still take any int64 grade."""
    q = write_lines(tmp_path / "qrels", ["1 0 a 9223372036854775807", "1 0 b 1"])
    r = write_lines(tmp_path / "run", ["1 Q0 a 1 2 t", "1 Q0 b 2 1 t"])
    for spec in ("ndcg", "rbp", "G", "ndcg_cut.10"):
        code, lines, err = run(capsys, "score", "-m", spec, q, r)
        assert code == 1 and lines == [] and err.count("\n") == 1 and "up to 2^53" in err
    assert run(capsys, "score", "-m", "map", q, r)[1] == ["map                   \tall\t1.0000"]
    q2 = write_lines(tmp_path / "qrels2", ["1 0 a 9007199254740992", "1 0 b 1"])
    code, lines, _ = run(capsys, "score", "-m", "ndcg", q2, r)
    assert lines == ["ndcg                  \tall\t1.0000"]


def test_runs_alike_under_two_names_are_said(capsys, tmp_path):
    """Item 15: two runs of identical content were both included without a note."""
    q = write_lines(tmp_path / "qrels", ["1 0 a 1", "1 0 b 0"])
    r = write_lines(tmp_path / "run", ["1 Q0 a 1 2 t", "1 Q0 b 2 1 t"])
    copy = write_lines(tmp_path / "copy", ["1 Q0 a 1 2 t", "1 Q0 b 2 1 t"])
    other = write_lines(tmp_path / "other", ["1 Q0 b 1 2 t", "1 Q0 a 2 1 t"])
    code, lines, err = run(capsys, "score", "-m", "map", q, r, copy, other)
    assert code == 0 and len(lines) == 3 and err.count("\n") == 1
    assert "runs 'copy', 'run' rank the same judged documents" in err and "'other'" not in err


def test_what_trec_eval_reads_alike_is_one_line_for_many_runs_and_per_file_with_verbose(capsys, tmp_path):
    """Issue 34 item 5: one note per run ("N lines on M topics without judgments dropped")
    for behaviour identical to trec_eval's: 37 lines for DL-2019."""
    q = write_lines(tmp_path / "qrels", ["1 0 a 1"])
    runs = [write_lines(tmp_path / f"run{i}", ["1 Q0 a 1 2 t", f"9 Q0 x{i} 1 1 t"] +
                        [f"1 Q0 u{j} 1 1 t" for j in range(i)]) for i in range(37)]  # 37 different runs
    code, lines, err = run(capsys, "score", "-m", "map", q, *runs)
    assert code == 0 and len(lines) == 37
    assert err == ("reeval: read as trec_eval reads them: 37 files with lines on topics without judgments "
                   "(37 lines dropped)\n")
    code, _, err = run(capsys, "score", "--verbose", "-m", "map", q, *runs)
    assert err.count("\n") == 37 and err.count("without judgments dropped (trec_eval skips those topics too)") == 37
    code, _, err = run(capsys, "compare", "-m", "map", q, *runs[:3])
    assert err.count("\n") == 1


def test_gm_map_s_exp_is_the_c_library_s(capsys, tmp_path):
    """Found by the differential test (seed 2): one topic of AP 0.25625, whose gm_map is
    exp(log(0.25625)): 0.25625000000000003 by C (trec_eval 10 prints 0.2563), 0.25625 by
    numpy's exp (0.2562 printed)."""
    q = write_lines(tmp_path / "qrels", ["10 0 d0 1", "10 0 d2 0", "10 0 d3 4", "10 0 d4 4", "10 0 d5 4",
                                         "10 0 d7 -1", "10 0 d8 2"])
    r = write_lines(tmp_path / "run", ["10 Q0 d0 0 0.0 t", "10 Q0 d1 1 2.0 t", "10 Q0 u3 2 -1.0 t",
                                       "10 Q0 d8 3 0.68 t", "10 Q0 d7 4 3.0 t", "10 Q0 u2 5 -1.449 t",
                                       "10 Q0 d3 6 -1.0 t", "10 Q0 u0 7 1.504 t", "10 Q0 d5 8 1.5 t"])
    code, lines, _ = run(capsys, "score", "-l2", "-m", "map", "-m", "gm_map", q, r)
    assert lines == ["map                   \tall\t0.2562", "gm_map                \tall\t0.2563"]


def test_compare_says_a_negative_level_is_level_0(capsys, tmp_path):
    q = write_lines(tmp_path / "qrels", ["1 0 a -3", "1 0 b 1", "2 0 c 1"])
    r1 = write_lines(tmp_path / "one", ["1 Q0 a 1 2 t", "1 Q0 b 2 1 t", "2 Q0 c 1 1 t"])
    r2 = write_lines(tmp_path / "two", ["1 Q0 b 1 2 t", "1 Q0 a 2 1 t", "2 Q0 x 1 1 t"])
    code, lines, err = run(capsys, "compare", "-l", "-3", "--format", "pairs", q, r1, r2)
    assert code == 0 and "-l -3 read as -l 0" in err
    assert lines == run(capsys, "compare", "-l", "0", "--format", "pairs", q, r1, r2)[1]
