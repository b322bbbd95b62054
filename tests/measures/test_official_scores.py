"""Official published scores (../shared/data/*/meta) reproduced to 4 decimals.

Mode the organizers used: trec_eval 9.x ordering (float32 scores), averages over the
qrels topics. Known causes of difference, pinned here rather than hidden:

- DL-2020 passage, ``trec_eval`` block: its nDCG values were computed on qrels in
  which grade 1 counts as 0 (gains 0, 2, 3); with the raw grades every nDCG of that
  block differs. ``grade_map={1: 0}`` reproduces all of them.
- TREC-COVID round 1, run BERT: with float64 ordering (trec_eval 10) its nDCG@10,
  bpref and MAP differ in the 4th decimal from the published ones; float32 reproduces
  them (the organizers' trec_eval tied scores equal in float32).
"""

import glob

import pandas as pd
import pytest

from conftest import SHARED_DATA, ingested, track_files
from reeval.measures import aggregate, build_grid, evaluate_grid, parse_measures

COVID_COLUMNS = {"ndcg@10": "ndcg_cut_10", "p@5": "P_5", "bpref": "bpref", "map": "map",
                 "ndcg@20": "ndcg_cut_20", "p@20": "P_20"}


def run_means(track, measures, level, precision="float32", grade_map=None):
    tables = ingested(track, precision=precision, grade_map=grade_map)
    ms = parse_measures(measures)
    grid = build_grid(tables.judged, tables.depth, tables.qrels)
    return aggregate(evaluate_grid(grid, ms, rel_level=level), ms, complete=True).set_index("run")


def mismatches(official: pd.DataFrame, columns: dict, ours: pd.DataFrame):
    bad, n = [], 0
    for run, row in official.iterrows():
        if run not in ours.index:
            continue
        for col, measure in columns.items():
            if pd.isna(row[col]):
                continue
            n += 1
            value = ours.loc[run, measure]
            if f"{value:.4f}" != f"{float(row[col]):.4f}":
                bad.append((run, measure, round(value, 6), row[col]))
    return n, bad


def meta(track, sep=","):
    """Official scores indexed by run; TREC-COVID headers lower-cased (they vary by round)."""
    track_files(track)
    path = glob.glob(str(SHARED_DATA / track / "meta" / "*"))[0]
    df = pd.read_csv(path, sep=sep)
    df = df.rename(columns={df.columns[0]: "run"})
    if sep == ",":
        df = df.rename(columns=str.lower)
    return df.set_index("run")


@pytest.mark.parametrize("track,expected_runs", [
    ("trec-covid-round1", 143), ("trec-covid-round2", 12), ("trec-covid-round3", 12),
    ("trec-covid-round4", 12), ("trec-covid-round5", 12)])
def test_trec_covid_leaderboards(track, expected_runs):
    official = meta(track)
    columns = {c: m for c, m in COVID_COLUMNS.items() if c in official.columns}
    ours = run_means(track, list(columns.values()), level=1)
    n, bad = mismatches(official, columns, ours)
    assert n == expected_runs * len(columns)
    assert bad == []


def test_trec_covid_round1_bert_differs_in_float64_only():
    official = meta("trec-covid-round1")
    columns = {c: COVID_COLUMNS[c] for c in ("ndcg@10", "bpref", "map")}
    ours = run_means("trec-covid-round1", list(columns.values()), level=1, precision="float64")
    n, bad = mismatches(official, columns, ours)
    assert sorted({run for run, *_ in bad}) == ["BERT"]


@pytest.mark.parametrize("track,block,level,grade_map", [
    ("trec2019-dl-passage", "trec_eval", 1, None),
    ("trec2019-dl-passage", "passages-eval", 2, None),
    ("trec2020-dl-passage", "trec_eval", 2, {1: 0}),
    ("trec2020-dl-passage", "passages-eval", 2, None),
])
def test_deep_learning_official_blocks(track, block, level, grade_map):
    official = meta(track, sep="\t")
    columns = {c: c.split(":", 1)[1] for c in official.columns if c.startswith(block + ":")}
    ours = run_means(track, sorted(set(columns.values())), level=level, grade_map=grade_map)
    n, bad = mismatches(official, columns, ours)
    assert n > 0 and bad == []


def test_deep_learning_2020_ndcg_needs_grade_map():
    official = meta("trec2020-dl-passage", sep="\t")
    columns = {"trec_eval:ndcg_cut_10": "ndcg_cut_10"}
    n, bad = mismatches(official, columns, run_means("trec2020-dl-passage", ["ndcg_cut_10"], 2))
    assert len(bad) == n == 12


def test_readme_published_scores():
    """The figures quoted in ../shared/data/README.md, including CLEF 2015 (66 topics)."""
    clef = run_means("clef2015-ehealth-task2", ["map", "num_q"], 1)
    assert f"{clef.loc['ECNU_EN_Run.1.dat', 'map']:.4f}" == "0.2056"
    assert f"{clef.loc['FDUSGInfo_EN_Run.1.dat', 'map']:.4f}" == "0.1833"
    assert clef.loc["ECNU_EN_Run.1.dat", "num_q"] == 66
    dl19 = run_means("trec2019-dl-passage", ["map"], 1)
    assert f"{dl19.loc['TUA1-1', 'map']:.4f}" == "0.4723"
    assert f"{run_means('trec2019-dl-passage', ['map'], 2).loc['TUA1-1', 'map']:.4f}" == "0.4571"
    dl20 = run_means("trec2020-dl-passage", ["map", "ndcg_cut_10"], 2)
    assert f"{dl20.loc['p_bm25', 'map']:.4f}" == "0.2856"
    assert f"{dl20.loc['pash_f1', 'ndcg_cut_10']:.4f}" == "0.7956"
    r2 = run_means("trec-covid-round2", ["map"], 1)
    assert f"{r2.loc['covidex.t5', 'map']:.4f}" == "0.2880"
