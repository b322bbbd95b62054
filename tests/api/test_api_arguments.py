"""The Python API on the hostile inputs of issue 31 (items 1, 5, 9) and the notes rule of
issue 34 item 5: booleans are booleans, the notes say what differs from trec_eval, and
one warning at most per call, only for what differs or was lost."""

import warnings

import pandas as pd
import pytest

import reeval
from reeval.errors import InputError

QRELS = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"], "relevance": [1, 1, 1]})
RUN = pd.DataFrame({"query_id": ["1", "9"], "doc_id": ["a", "x"], "score": [2.0, 1.0]})


@pytest.mark.parametrize("option", ["complete", "per_topic"])
@pytest.mark.parametrize("value", ["False", "True", 0, 1, None])
def test_evaluate_takes_true_or_false_only(option, value):
    """`evaluate(..., complete="False")` was taken as True."""
    with pytest.raises(InputError, match=f"{option} must be True or False"):
        reeval.evaluate(QRELS, RUN, ["map"], **{option: value})


def test_prefer_takes_true_or_false_only():
    with pytest.raises(InputError, match="per_topic must be True or False"):
        reeval.prefer(QRELS, {"a": RUN, "b": RUN}, per_topic="no")


def test_topics_a_run_lacks_without_complete_are_one_warning_and_a_note():
    with pytest.warns(reeval.ReevalWarning, match="-c counts them") as caught:
        frame = reeval.evaluate(QRELS, RUN, ["map", "num_q"], complete=False)
    assert len(caught) == 1 and frame["num_q"].tolist() == [1] and frame["map"].tolist() == [0.5]
    assert any("lacks 1 of 2" in note for note in frame.attrs["notes"])


def test_what_trec_eval_reads_alike_is_a_note_without_a_warning():
    """Issue 34 item 5: a run's topic without judgments (dropped, as trec_eval skips it) no
    longer warns; it is summed up in one note."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame = reeval.evaluate(QRELS, RUN, ["map"])
    assert frame.attrs["notes"] == ["read as trec_eval reads them: 1 file with lines on topics without "
                                    "judgments (1 line dropped)"]


def test_a_negative_level_is_level_0_and_said():
    """Item 7 through the API: a negative grade never counts as relevant."""
    qrels = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [-3, 1]})
    run = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    with pytest.warns(reeval.ReevalWarning, match="read as -l 0"):
        frame = reeval.evaluate(qrels, run, ["num_rel_ret", "bpref"], relevance_level=-3)
    assert frame.iloc[0].tolist() == [1, 1.0]
