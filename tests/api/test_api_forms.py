"""reeval.evaluate on every input form equals ``reeval score``, bit for bit."""

import math
import warnings

import pytest

import reeval
from api_inputs import cli_values, qrels_forms, run_forms
from conftest import track_files
from reeval.api.scoring import measure_columns
from reeval.synth.tracks import DEFAULT_CAMPAIGN, write_track

SPECS = ["official", "ndcg_cut_10", "P@20", "ASL", "ASL@g1-10", "P_rareness@10", "AP_rareness_norm@20"]


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    """syn-mixed: comments, blank lines, unjudged topics, a duplicate, tags unlike names."""
    out = tmp_path_factory.mktemp("syn")
    write_track(out, DEFAULT_CAMPAIGN["syn-mixed"], seed=7)
    qrels, runs = out / "qrels.txt", sorted((out / "runs").iterdir())
    return qrels, runs, qrels_forms(qrels), run_forms(runs), cli_values(qrels, runs, SPECS, "-c")


def evaluate_quietly(*args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", reeval.ReevalWarning)
        return reeval.evaluate(*args, **kw)


def assert_equal_to_cli(frame, cli, specs, per_topic=False):
    columns = measure_columns(specs)
    checked = 0
    for column, m in columns.items():
        for key, value in frame[column].items():
            run, qid = key if per_topic else (key, "all")
            expected = cli.get((run, m.name, qid))
            if expected is None:  # reeval score -q leaves out ASL on topics without a relevant document
                assert per_topic and m.is_asl and math.isnan(value), (run, column, qid)
                continue
            assert value == expected or (math.isnan(value) and math.isnan(expected)), (run, column, qid, value, expected)
            checked += 1
    # every value the command printed was compared (per topic: its -q lines, else its ``all`` lines)
    assert checked == sum(1 for m in columns.values() for k in cli
                          if k[1] == m.name and (k[2] != "all") == per_topic) > 0


@pytest.mark.parametrize("qrels_form", ["path", "frame", "frame_trec_names", "dict", "records"])
@pytest.mark.parametrize("runs_form", ["paths", "frame_with_run", "dict_of_frames", "dict_of_dicts",
                                       "dict_of_records", "dict_of_paths"])
def test_every_input_form_gives_the_cli_values(synthetic, qrels_form, runs_form):
    qrels, runs, qrels_as, runs_as, cli = synthetic
    frame = evaluate_quietly(qrels_as[qrels_form], runs_as[runs_form], SPECS)
    assert list(frame.index) == [r for r, _, q in cli if q == "all" and _ == "map"]
    assert_equal_to_cli(frame, cli, SPECS)


@pytest.mark.parametrize("runs_form", ["paths", "frame_with_run", "dict_of_dicts"])
def test_per_topic_answered_topics_and_options_give_the_cli_values(synthetic, runs_form):
    qrels, runs, qrels_as, runs_as, _ = synthetic
    specs = ["map", "P_5", "recip_rank", "num_rel_ret", "ASL@g1-10", "ndcg"]
    options = ["-q", "-l", "2", "-M", "50", "--float32", "--unretrieved", "eq3"]
    cli = cli_values(qrels, runs, specs, *options)
    frame = evaluate_quietly(qrels_as["dict"], runs_as[runs_form], specs, per_topic=True,
                             complete=False, relevance_level=2, depth=50, precision="float32", unretrieved="eq3")
    assert_equal_to_cli(frame, cli, specs, per_topic=True)
    means = evaluate_quietly(qrels, runs, specs, complete=False, relevance_level=2, depth=50, precision="float32",
                             unretrieved="eq3")
    assert_equal_to_cli(means, cli, specs)


@pytest.mark.parametrize("track", ["trec2019-dl-passage", "clef2015-ehealth-task2"])
def test_real_tracks_in_three_run_forms_give_the_cli_values(track):
    qrels, runs = track_files(track)
    runs = runs[:4]
    specs = ["official", "ndcg_cut.10,20", "bpref", "ASL", "P_rareness@100"]
    cli = cli_values(qrels, runs, specs, "-c")
    runs_as = run_forms(runs, ["paths", "frame_with_run", "dict_of_records"])
    for form in runs_as:
        frame = evaluate_quietly(qrels_forms(qrels)["frame"], runs_as[form], specs)
        assert_equal_to_cli(frame, cli, specs)
