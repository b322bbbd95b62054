"""The tie rules of reeval.io.ordering.ranked_order against a plain Python sort, with the
compiled kernels and without: trec_eval's docno descending, docno ascending (ir_measures'
msmarco and judged providers), the lines' input order (cwl_eval)."""

import numpy as np
import pytest

from reeval.io import compiled
from reeval.io.ordering import ordering_key, ranked_order
from reeval.io.strings import Strings


def reference(topic, docno, score, precision, rule):
    """Row indices sorted by topic, score descending (at ``precision``), then the rule."""
    key = ordering_key(np.asarray(score), precision).astype(float)
    rows = list(range(len(topic)))
    if rule == "docno_desc":
        rows.sort(key=lambda i: docno[i].encode(), reverse=True)
    elif rule == "docno_asc":
        rows.sort(key=lambda i: docno[i].encode())
    return sorted(rows, key=lambda i: (topic[i], -key[i]))  # stable: ties keep the rule's order


@pytest.mark.parametrize("kernels", [True, False], ids=["kernels", "numpy"])
@pytest.mark.parametrize("precision", ["float64", "float32"])
@pytest.mark.parametrize("rule", ["docno_desc", "docno_asc", "input"])
def test_each_tie_rule_orders_as_a_plain_sort(monkeypatch, kernels, precision, rule):
    if kernels and compiled.kernels() is None:
        pytest.skip("the compiled kernels are not built")
    monkeypatch.setattr(compiled, "ENABLED", kernels)
    rng = np.random.default_rng(7)
    n = 400
    topic = rng.integers(0, 5, n)
    score = rng.choice([0.0, -0.0, 1.0, 1.0 + 1e-9, 2.5, np.inf, -np.inf], n)
    names = [f"d{i}" for i in rng.permutation(n)]  # distinct docnos, as after deduplication
    order = ranked_order(topic, Strings.from_list(names), score, precision, rule=rule)
    assert list(order) == reference(topic, names, score, precision, rule)


def test_scoring_under_a_tie_order_the_track_was_not_ingested_with_is_refused(tmp_path):
    from conftest import write_lines
    from reeval.compute import score_track
    from reeval.io.ingest import ingest_track
    from reeval.measures import parse_measure

    qrels = write_lines(tmp_path / "qrels", ["1 0 a 1"])
    run = write_lines(tmp_path / "run", ["1 Q0 a 1 0 r", "1 Q0 b 2 0 r"])
    tables = ingest_track("t", qrels, [run], keep_runs=False)
    with pytest.raises(ValueError, match="ingested without the ordering"):
        score_track(tables, ["run"], parse_measure("RR@1"), ties="ir_measures")
