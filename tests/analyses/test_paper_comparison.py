"""The one comparison of the three papers: statuses, known differences, summary lines."""

import pandas as pd
import pytest

from reeval.analyses.asl import paper as asl_paper
from reeval.analyses.papers import comparison as pc
from reeval.analyses.papers.cells import COLUMNS, STATUSES, cell, frame, monte_carlo_status
from reeval.analyses.papers.published import published

LEXI = published("lexiprecision")
N_LEXI_CELLS = sum(len(c) for c in LEXI["columns"].values()) * len(LEXI["benchmarks"])


def lexi_cells(track="dl19", benchmark="deep-pass (2019)", changes=None):
    """The lexiprecision paper_comparison table of one track whose cells equal the paper's."""
    rows = []
    for sub, cols in LEXI["columns"].items():
        for column, v in zip(cols, LEXI["benchmarks"][benchmark][sub]):
            rows.append({"track": track, "benchmark": benchmark, "table": sub.removeprefix("table"),
                         "column": column, "paper": float(v), "ours": float(v), "ours_low": float(v),
                         "ours_high": float(v), "match": True})
    df = pd.DataFrame(rows)
    for (table, column), values in (changes or {}).items():
        key = (df.table == table) & (df.column == column)
        for k, v in values.items():
            df.loc[key, k] = v
    return df


def lexi_tables(track="dl19", level=1, correction="holm", resamples=1000):
    power = pd.DataFrame([{"track": track, "relevance_level": level, "test": test, "procedure": proc,
                           "measure": m, "resamples": res, "seeds": 5 if res else 1}
                          for test, proc, res in (("tukey_hsd", "randomised", resamples), ("paired", correction, 0))
                          for m in ("rrLP", "sgnLP", "RR")])
    level_table = pd.DataFrame({"track": [track], "relevance_level": [level]})
    return {"profile": level_table, "table2_agreement": level_table, "table3_ties": level_table,
            "table4_discriminative_power": power}


def by(out, table, column, track="dl19"):
    return out[(out.track == track) & (out.item == f"table {table}") & (out.column == column)].iloc[0]


def test_every_lexiprecision_cell_has_a_row_unmapped_benchmarks_are_data_not_here():
    out = pc.lexiprecision_rows(lexi_cells(), lexi_tables())
    assert len(out) == N_LEXI_CELLS and list(out.columns) == list(COLUMNS)
    mine = out[out.track == "dl19"]
    assert len(mine) == 4 + 2 + 2 + 3 + 3 and (mine.status == "exact").all()
    rest = out[out.track == ""]
    assert (rest.status == "data not here").all() and rest.note.str.startswith("needs ").all()
    assert "needs robust (2004) (110 runs, 249 requests)" in set(rest.note)


def test_lexiprecision_statuses_and_known_reasons():
    cells = lexi_cells(changes={
        ("4a", "rrLP"): {"ours": 16.97, "ours_low": 16.37, "ours_high": 16.97},   # paper 16.52: in the range
        ("4a", "sgnLP"): {"ours": 17.27, "ours_low": 17.27, "ours_high": 17.27},  # paper 18.47: known
        ("4a", "RR"): {"ours": 14.0, "ours_low": 13.9, "ours_high": 14.1},         # paper 13.21: 0.79 away
        ("2", "sgnLP"): {"ours": 87.07},                                           # paper 90.45
    })
    out = pc.lexiprecision_rows(cells, lexi_tables())
    assert by(out, "4a", "rrLP").status == "within Monte Carlo error"
    assert "ours 16.37-16.97 over 5 seeds" in by(out, "4a", "rrLP").note
    assert by(out, "4a", "sgnLP").status == "differs"
    assert by(out, "4a", "sgnLP").note.startswith("sgnLP 115 vs 123 pairs: cause unknown")
    rr = by(out, "4a", "RR")
    assert rr.status == "within tolerance" and rr.note.startswith("flagged")
    assert by(out, "2", "sgnLP").status == "differs" and by(out, "2", "sgnLP").note == "cause unknown"
    b = by(out, "4b", "rrLP")
    assert b.status == "exact" and "paper's Bonferroni reproduces as Holm" in b.note
    assert "paired test, holm" in b.method and "relevance >= 1" in b.method
    assert "1000 permutations, 5 seeds" in by(out, "4a", "rrLP").method


def test_lexiprecision_with_bonferroni_differs_with_the_reason_and_levels_are_named():
    cells = lexi_cells(changes={("4b", "RR"): {"ours": 9.0}, ("1", "rel/request"): {"ours": 58.16}})
    out = pc.lexiprecision_rows(cells, lexi_tables(level=2, correction="bonferroni"))
    assert by(out, "4b", "RR").note.startswith("paper's Bonferroni reproduces as Holm (set the correction to holm)")
    assert by(out, "1", "rel/request").note.startswith("relevance >= 2 here; the paper's tables 1-2 count grade > 0")


def test_a_track_with_fewer_runs_says_so_in_each_row():
    cells = lexi_cells("dl20", "deep-pass (2020)", changes={("1", "runs"): {"ours": 12.0}})
    out = pc.lexiprecision_rows(cells, lexi_tables("dl20"))
    mine = out[out.track == "dl20"]
    assert mine.note.str.contains("12 runs here, 59 in the paper").all()


TABLE1_MEASURES = {"P@20": "P_20", "ASL@g1-10": "ASL@g1-10", "MAP": "map", "ASL": "ASL"}


def asl_techniques(track="dl20"):
    """A techniques table whose bm25/neural bests print as the paper's passage half."""
    paper = {r["measure"]: r for r in published("asl")["table1"]}
    rows = []
    for printed_name, name in TABLE1_MEASURES.items():
        b, n = float(paper[printed_name]["passages BM25"]), float(paper[printed_name]["passages neural"])
        rrie = float(paper[printed_name]["passages RRIE"].rstrip("%")) / 100
        for group, v, r in (("bm25", b, float("nan")), ("neural", n, rrie)):
            rows.append({"track": track, "group": group, "baseline": "bm25", "measure": name, "value": v,
                         "run": f"best_{group}", "baseline_value": b, "rrie": r, "n_runs": 3})
    return pd.DataFrame(rows)


def asl_study_rows(tech, n_runs=59):
    """The ASL study's paper_comparison table (as rule study writes it) for a track of
    ``n_runs`` runs standing for table 1's passage half."""
    head = pd.DataFrame({"track": ["dl20"], "n_runs": [n_runs], "P_20": [0.5], "ASL@g1-10": [30.0], "ASL": [200.0]})
    frames = {"headroom": head, "techniques": tech, "table2": pd.DataFrame(),
              "map_share": pd.DataFrame(columns=["track", "share"])}
    return asl_paper.paper_rows(frames, {"passages": "dl20"}).drop(columns="paper")


def test_asl_table1_passage_half_exact_and_document_half_not_here():
    out = pc.asl_rows(asl_study_rows(asl_techniques()), {"passages": "dl20"})
    table1 = out[out.item == "table 1"]
    assert len(table1) == 24
    passages = table1[table1.column.str.startswith("passages")]
    assert (passages.status == "exact").all() and (passages.track == "dl20").all()
    assert set(passages[passages.column == "passages RRIE"].reproduced) == {"39%", "90%", "29%", "19%"}
    docs = table1[table1.column.str.startswith("documents")]
    assert (docs.status == "data not here").all() and (docs.track == "").all()
    assert (out[out.item != "table 1"].reproduced == "").all()


def test_asl_table1_differs_on_the_whole_campaign_and_is_not_here_on_part_of_it():
    tech = asl_techniques()
    tech.loc[tech.measure == "ASL", "value"] += 10
    row = pc.asl_rows(asl_study_rows(tech), {"passages": "dl20"}).query("row == 'ASL' and column == 'passages BM25'")
    assert row.status.iloc[0] == "differs" and row.reproduced.iloc[0] == "274"
    part = pc.asl_rows(asl_study_rows(tech, n_runs=12), {"passages": "dl20"})
    row = part.query("row == 'ASL' and column == 'passages BM25'").iloc[0]
    assert row.status == "data not here" and "12 of the campaign's 59 runs" in row.note


def test_summary_lines_count_each_status_and_markdown_escapes_names():
    rows = pc.combine(frame([cell("rareness", "table 2", "P@100", "DLT20", "0.071", "differs", "x", ours=0.2,
                                  track="a|b")]),
                      frame([cell("asl", "table 1", "ASL", "passages BM25", "264", "exact", ours=264.0)]))
    lines = pc.summary_lines(rows)
    assert lines[0] == "2 published cells: 1 exact, 0 within Monte Carlo error, 0 within tolerance, 1 differs, 0 data not here"
    assert lines[1:] == ["- rareness: 1 differs", "- asl: 1 exact"]
    md = pc.comparison_markdown(rows)
    assert "a&#124;b" in md and "| a|b" not in md


def test_unknown_statuses_are_refused():
    with pytest.raises(ValueError, match="status 'close'"):
        cell("asl", "table 1", "ASL", "x", "1", "close")
    bad = frame([cell("asl", "table 1", "ASL", "x", "1", "exact")]).assign(status="close")
    with pytest.raises(ValueError, match="unknown statuses"):
        pc.combine(bad)


@pytest.mark.parametrize("ours, low, high, want", [
    (0.0712, 0.07, 0.072, "exact"), (0.075, 0.0705, 0.076, "within Monte Carlo error"),
    (0.09, 0.085, 0.095, "differs"), (float("nan"), float("nan"), float("nan"), "data not here")])
def test_monte_carlo_status(ours, low, high, want):
    assert monte_carlo_status(0.071, ours, low, high, 3) == want
    assert want in STATUSES
