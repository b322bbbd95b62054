"""The ASL paper's cells beside ours (reeval.analyses.asl.paper), its appendix A.1 worked
example, and config/asl-paper.yaml's table 1 on the shared DL-2020 passage track."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from reeval.analyses.asl.paper import ROW_COLUMNS, headline_claims, paper_rows, printed
from reeval.analyses.asl.views import map_share
from reeval.analyses.asl.study import HEADROOM_COLUMNS
from reeval.analyses.asl.techniques import TECHNIQUE_COLUMNS, technique_table
from reeval.analyses.papers.published import published

ROOT = Path(__file__).resolve().parents[2]
#: appendix A.1: "Given input search lengths of: [1, 1, 1, 2, 4, 5, 10, 10000, 10000], an
#: unweighted average by P is equivalent to an unweighted average of these SLs instead:
#: [1, 1, 1, 2.1, 2.7, 2.9, 3, 3.2, 3.2]"
A1_SEARCH_LENGTHS = [1, 1, 1, 2, 4, 5, 10, 10000, 10000]
A1_EQUIVALENT = [1, 1, 1, 2.1, 2.7, 2.9, 3, 3.2, 3.2]


def test_appendix_a1_worked_example():
    sl = np.array(A1_SEARCH_LENGTHS, dtype=float)
    p = 1.0 / sl
    # averaging in P-space, read back as a search length: the harmonic mean of the SLs
    p_average_sl = 1.0 / p.mean()
    assert p_average_sl == pytest.approx(9 / 4.0502)              # 2.222
    # eq. 14-15: averaging P unweighted is averaging the SLs weighted by w_i = 1/SL_i
    w = 1.0 / sl
    assert (w * sl).sum() / w.sum() == pytest.approx(p_average_sl)
    assert np.mean(sl) == pytest.approx(20024 / 9)         # the plain SL mean, 2224.9, for contrast
    # the paper's equivalent SLs (printed to one decimal) average to the same: within the
    # rounding of nine values to one decimal (0.05 at most each)
    assert np.mean(A1_EQUIVALENT) == pytest.approx(p_average_sl, abs=0.05)
    # the same documents as one run: MAP's share (A.1) is the prefix of SLs sorted by P
    # whose plain mean is closest to 2.222: 1, 1, 1, 2, 4, 5 (mean 2.33; five give 1.8)
    docs = pd.DataFrame({"run": "r", "qid": "q", "docno": [f"d{k}" for k in range(9)], "precision": p,
                         "asl": sl, "retrieved": True})
    s = map_share(docs).iloc[0]
    assert s.target_sl == pytest.approx(p_average_sl)
    assert (s.n_docs, s.n_closest) == (9, 6) and s.share == pytest.approx(6 / 9)


def test_printed_as_the_paper():
    assert printed(0.45612, 3) == "0.456" and printed(51.33, 0) == "51" and printed(0.391, 0, percent=True) == "39%"
    assert printed(float("nan"), 3) == "n/a"


def _frames(n_runs: int, values: dict):
    """One track's headroom and technique rows: ``values`` group -> {measure: (value, run)}."""
    head = pd.DataFrame([{c: np.nan for c in HEADROOM_COLUMNS} | {"track": "dl20", "n_runs": n_runs,
                         "P_20": 0.7, "ASL@g1-10": 25.0, "map": 0.5, "ASL": 300.0}])
    rows = []
    for group, ms in values.items():
        for m, (v, run) in ms.items():
            b = values["bm25"][m][0]
            higher = m in ("P_20", "map")
            e_b, e_o = (1 - b, 1 - v) if higher else (b - 1, v - 1)
            rows.append({"track": "dl20", "group": group, "baseline": "bm25", "measure": m, "value": v, "run": run,
                         "baseline_value": b, "rrie": np.nan if group == "bm25" else (e_b - e_o) / e_b,
                         "n_runs": 1})
    return head, pd.DataFrame(rows, columns=TECHNIQUE_COLUMNS)


PAPER_PASSAGES = {"bm25": {"P_20": (0.517, "b"), "ASL@g1-10": (51.2, "b"), "map": (0.4004, "b"), "ASL": (263.6, "b")},
                  "neural": {"P_20": (0.7058, "n"), "ASL@g1-10": (6.1, "n"), "map": (0.572, "n"), "ASL": (215.0, "n")}}


@pytest.mark.parametrize("n_runs", [12, 59])
def test_paper_rows_status(n_runs):
    values = {g: dict(ms) for g, ms in PAPER_PASSAGES.items()}
    values["neural"]["map"] = (0.55, "n")      # one cell off the paper's 0.572
    head, tech = _frames(n_runs, values)
    empty = pd.DataFrame()
    rows = paper_rows({"headroom": head, "techniques": tech, "table2": empty.assign(comparison=[]),
                       "map_share": pd.DataFrame(columns=["track", "share"])}, {"passages": "dl20"})
    assert list(rows.columns) == list(ROW_COLUMNS) and (rows.paper == "asl").all()
    t1 = rows[rows["item"] == "table 1"].set_index(["row", "column"])
    assert len(t1) == 24
    assert (t1.xs("documents BM25", level=1).status == "data not here").all()
    assert t1.loc[("P@20", "passages BM25"), "status"] == "exact"
    assert t1.loc[("ASL", "passages neural"), "status"] == "exact"        # 215.0 prints 215
    assert t1.loc[("ASL@g1-10", "passages RRIE"), "status"] == "exact"    # (50.2 - 5.1) / 50.2 = 90%
    off = t1.loc[("MAP", "passages neural")]
    assert off.status == ("data not here" if n_runs < 59 else "differs") and off.ours == 0.55
    assert "0.550 (n)" in off.note
    if n_runs < 59:
        assert "holds 12 of the campaign's 59 runs" in off.note
    # nothing mapped: every table 1 cell needs data
    none = paper_rows({"headroom": head, "techniques": tech, "table2": empty.assign(comparison=[]),
                       "map_share": pd.DataFrame(columns=["track", "share"])})
    assert (none[none["item"] == "table 1"].status == "data not here").all()
    assert set(none["item"]) == {"table 1", "table 2", "appendix A.1", "headline claims"}


def test_headline_claims_count_tracks():
    head = pd.DataFrame({"track": list("abcd"), "P_20": [0.6, 0.5, 0.2, np.nan],
                         "ASL@g1-10": [25.0, 10.0, 21.0, 30.0], "ASL": [150.0, 90.0, 1000.0, 5.0]})
    c = headline_claims(head).set_index("claim")
    assert (c.loc["tracks with best P@20 in [0.5, 1]", "tracks"], c.loc["tracks with best P@20 in [0.5, 1]", "of"]) == (2, 3)
    assert c.loc["tracks with best ASL@g1-10 > 20", "tracks"] == 3 and c.loc["tracks with best ASL > 100", "tracks"] == 2
    assert c.loc["tracks with best ASL > 10", "share"] == 75.0


def test_published_table1_campaigns():
    asl = published("asl")
    assert asl["table1_campaign"]["passages"]["runs"] == 59
    assert {r["measure"] for r in asl["table1"]} == {"P@20", "ASL@g1-10", "MAP", "ASL"}


def test_asl_paper_config_table1_on_the_shared_dl2020_passage_track(tmp_path):
    """Done-when of issue 32: config/asl-paper.yaml's table 1 passage cells equal the
    paper's for every cell whose best run is in the configured track (here p_bm25's
    ASL@g1-10, 51), and no cell differs: the others are 'data not here' (12 of 59 runs)."""
    from conftest import ingested
    from reeval.io.ingest import write_track
    from reeval.analyses.asl.study import headroom
    from reeval.workflow.measures_step import track_measures

    config = yaml.safe_load((ROOT / "config" / "asl-paper.yaml").read_text())
    track = config["study"]["paper"]["passages"]
    assert config["tracks"][track]["relevance_level"] == 1
    tables = ingested(track)
    d = tmp_path / "dl20"
    write_track(tables, d)
    track_measures(track, d, d, ["official", "P_20", "ASL", "ASL@g1", "ASL@g1-10"], rel_level=1)
    by_run = pd.read_parquet(d / "measures_by_run.parquet")
    spec = config["study"]["techniques"][track]
    head = pd.DataFrame([headroom(by_run, track)], columns=HEADROOM_COLUMNS)
    tech = technique_table(by_run, spec, track)
    rows = paper_rows({"headroom": head, "techniques": tech, "table2": pd.DataFrame({"comparison": []}),
                       "map_share": pd.DataFrame(columns=["track", "share"])}, config["study"]["paper"])
    t1 = rows[rows["item"] == "table 1"].set_index(["row", "column"])
    passages = t1[t1.index.get_level_values(1).str.startswith("passages")]
    assert passages.loc[("ASL@g1-10", "passages BM25"), "status"] == "exact"
    assert "(p_bm25)" in passages.loc[("ASL@g1-10", "passages BM25"), "note"]
    assert not (passages.status == "differs").any()
    assert set(passages.status) <= {"exact", "data not here"}
