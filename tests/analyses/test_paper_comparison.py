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
    """The lexiprecision paper_comparison table of one track whose cells equal the paper's
    (table 4b by the stated Bonferroni, Holm as the other; tables 2-3 at >= 1, >= 2 beside)."""
    rows = []
    for sub, cols in LEXI["columns"].items():
        table = sub.removeprefix("table")
        setting, other = {"4a": ("randomised", ""), "4b": ("bonferroni", "holm"),
                          "1": ("relevance >= 1", "")}.get(table, ("relevance >= 1", "relevance >= 2"))
        for column, v in zip(cols, LEXI["benchmarks"][benchmark][sub]):
            rows.append({"track": track, "benchmark": benchmark, "table": table,
                         "column": column, "paper": float(v), "ours": float(v), "ours_low": float(v),
                         "ours_high": float(v), "setting": setting, "other_setting": other,
                         "other_ours": float(v) - 3 if other else float("nan")})
    df = pd.DataFrame(rows)
    for (table, column), values in (changes or {}).items():
        key = (df.table == table) & (df.column == column)
        for k, v in values.items():
            df.loc[key, k] = v
    return df


def lexi_tables(track="dl19", level=1, resamples=1000, runs=None):
    power = pd.DataFrame([{"track": track, "relevance_level": level, "test": test, "procedure": proc,
                           "measure": m, "resamples": res, "seeds": 5 if res else 1}
                          for test, proc, res in (("tukey_hsd", "randomised", resamples), ("paired", "holm", 0),
                                                  ("paired", "bonferroni", 0))
                          for m in ("rrLP", "sgnLP", "RR")])
    level_table = pd.DataFrame({"track": [track], "relevance_level": [level]})
    benchmark = {"dl19": "deep-pass (2019)", "dl20": "deep-pass (2020)"}[track]
    requests, n_runs = LEXI["benchmarks"][benchmark]["table1"][:2]
    profile = level_table.assign(requests=requests if runs is None else requests, runs=n_runs if runs is None else runs)
    return {"profile": profile, "table2_agreement": level_table, "table3_ties": level_table,
            "table4_discriminative_power": power}


def by(out, table, column, track="dl19"):
    return out[(out.track == track) & (out.item == f"table {table}") & (out.column == column)].iloc[0]


def test_every_lexiprecision_cell_has_a_row_unmapped_benchmarks_are_data_not_here():
    out = pc.lexiprecision_rows(lexi_cells(), lexi_tables())
    assert len(out[out["item"] != "text"]) == N_LEXI_CELLS and list(out.columns) == list(COLUMNS)
    mine = out[out.track == "dl19"]
    # the paper states no relevance level: every cell at the benchmark's one level is exact at an
    # inferred setting, the other level (ours under it, or "not computed") beside it
    assert len(mine) == 4 + 2 + 2 + 3 + 3 and (mine.status == "exact at an inferred setting").all()
    assert (mine.other_setting == "relevance >= 2").all() and (mine.other_value != "").all()
    assert mine.method.str.contains("relevance >= 1 (inferred: the paper does not state which grades count",
                                    regex=False).all()
    rest = out[(out.track == "") & (out["item"] != "text")]
    assert (rest.status == "data not here").all() and rest.note.str.startswith("needs ").all()
    assert "robust (2004) (110 runs, 249 requests)" in set(rest.needs)
    assert rest.apply(lambda r: f'lexiprecision: {{paper: {{<track>: "{r.row}"}}}}' in r.to_add, axis=1).all()


def test_lexiprecision_statuses_and_known_reasons():
    cells = lexi_cells(changes={
        ("4a", "rrLP"): {"ours": 16.97, "ours_low": 16.37, "ours_high": 16.97},   # paper 16.52: in the range
        ("4a", "sgnLP"): {"ours": 17.27, "ours_low": 17.27, "ours_high": 17.27},  # paper 18.47: known
        ("4a", "RR"): {"ours": 14.0, "ours_low": 13.9, "ours_high": 14.1},         # paper 13.21: 0.79 away
        ("2", "sgnLP"): {"ours": 87.07, "other_ours": 90.45},                      # paper 90.45
    })
    out = pc.lexiprecision_rows(cells, lexi_tables())
    assert by(out, "4a", "rrLP").status == "within Monte Carlo error"
    assert "ours 16.37 to 16.97 over 5 seeds" in by(out, "4a", "rrLP").note
    assert by(out, "4a", "sgnLP").status == "differs"
    assert by(out, "4a", "sgnLP").note.startswith("sgnLP 115 vs 123 pairs: cause unknown")
    rr = by(out, "4a", "RR")
    assert rr.status == "within tolerance" and rr.note.startswith("flagged")
    assert "1000 permutations, 5 seeds" in by(out, "4a", "rrLP").method
    assert "Tukey HSD, randomised (inferred: the paper cites Carterette (2012)" in by(out, "4a", "rrLP").method
    b = by(out, "4b", "rrLP")
    assert b.status == "exact at an inferred setting" and "paired test, bonferroni (stated)" in b.method
    assert (b.other_setting, b.other_value) == ("relevance >= 2", "not computed")
    # the other level prints the paper's value where the benchmark's level does not
    sgn = by(out, "2", "sgnLP")
    assert (sgn.status, sgn.reproduced, sgn.other_setting, sgn.other_value) == (
        "reproduced by another method", "87.07", "relevance >= 2", "90.45")


#: DL-2019's tables 1-3 at relevance >= 1 and >= 2 (the paper prints table 2 as at >= 1, table 3 as at >= 2)
DL19_BY_LEVEL = {("1", "requests"): (43.0, 43.0), ("1", "runs"): (37.0, 37.0), ("1", "rel/request"): (95.40, 58.16),
                 ("1", "docs/request"): (892.0, 892.0), ("2", "sgnLP"): (90.45, 87.07), ("2", "dRR_2"): (88.87, 84.68),
                 ("3", "rrLP, sgnLP"): (0.94, 2.63), ("3", "dRR_1"): (75.54, 56.89)}


def dl19_cells(computed_at: int):
    """The DL-2019 cells with tables 1-3 computed at ``computed_at`` and the other level beside."""
    pick = (0, 1) if computed_at == 1 else (1, 0)
    cells = lexi_cells(changes={k: {"ours": v[pick[0]], "ours_low": v[pick[0]], "ours_high": v[pick[0]],
                                    "other_ours": v[pick[1]]} for k, v in DL19_BY_LEVEL.items()})
    cells.loc[cells.table.isin(["1", "2", "3"]), ["setting", "other_setting"]] = [
        f"relevance >= {computed_at}", f"relevance >= {3 - computed_at}"]
    return cells


def test_one_relevance_level_per_benchmark_each_cell_exact_at_it_or_reproduced_at_the_other():
    """The lexiprecision paper states no relevance level. DL-2019 prints table 2 as at >= 1
    (90.45/88.87; 87.07/84.68 at >= 2) and table 3 as at >= 2 (2.63/56.89; 0.94/75.54 at
    >= 1). The comparison takes one level for the benchmark, table 4's (the track's, 2 here),
    whatever level the configuration computed each table at: table 3 is exact at that
    inferred setting with the other level's values beside; table 2 is reproduced only at the
    other level, both values shown; a count the level does not change (runs) is exact."""
    out = pc.lexiprecision_rows(dl19_cells(1), lexi_tables(level=2))
    sgn, drr = by(out, "2", "sgnLP"), by(out, "2", "dRR_2")
    assert (sgn.status, sgn.reproduced, sgn.other_setting, sgn.other_value) == (
        "reproduced by another method", "87.07", "relevance >= 1", "90.45")
    assert sgn.note == "relevance >= 1 prints the paper's value; the inferred level gives 87.07"
    assert sgn.method.startswith("relevance >= 2 (inferred: the paper does not state which grades count; one level "
                                 "per benchmark")
    assert (drr.status, drr.reproduced, drr.other_value) == ("reproduced by another method", "84.68", "88.87")
    ties = by(out, "3", "dRR_1")
    assert (ties.status, ties.reproduced, ties.other_setting, ties.other_value) == (
        "exact at an inferred setting", "56.89", "relevance >= 1", "75.54")
    rel, runs = by(out, "1", "rel/request"), by(out, "1", "runs")
    assert (rel.status, rel.reproduced, rel.other_value) == ("reproduced by another method", "58.16", "95.40")
    assert (runs.status, runs.reproduced, runs.other_setting) == ("exact", "37", "")
    # the same data computed at >= 2 (another configuration): the same statuses and values
    again = pc.lexiprecision_rows(dl19_cells(2), lexi_tables(level=2))
    keys = ["item", "column", "status", "reproduced", "other_setting", "other_value", "method", "note"]
    assert again[again.track == "dl19"][keys].equals(out[out.track == "dl19"][keys])


def test_another_method_is_a_status_of_its_own_with_both_values():
    """Table 4b says Bonferroni; on DL-2019 Bonferroni gives 14.86 and 9.91 where the paper
    prints 15.02 and 10.36, which Holm gives: those cells are "reproduced by another method",
    both values shown; sgnLP (17.42 both ways) is exact."""
    cells = lexi_cells(changes={("4b", "rrLP"): {"ours": 14.86, "other_ours": 15.02},
                                ("4b", "sgnLP"): {"other_ours": 17.42},
                                ("4b", "RR"): {"ours": 9.91, "other_ours": 10.36}})
    out = pc.lexiprecision_rows(cells, lexi_tables())
    rr_lp, sgn, rr = by(out, "4b", "rrLP"), by(out, "4b", "sgnLP"), by(out, "4b", "RR")
    assert rr_lp.status == "reproduced by another method"
    assert (rr_lp.published, rr_lp.reproduced, rr_lp.other_setting, rr_lp.other_value) == (
        "15.02", "14.86", "holm", "15.02")
    assert "the stated Bonferroni gives 14.86" in rr_lp.note and "paired test, bonferroni" in rr_lp.method
    assert sgn.status == "exact at an inferred setting" and rr.status == "reproduced by another method"
    # neither method prints the paper's value: differs
    off = pc.lexiprecision_rows(lexi_cells(changes={("4b", "RR"): {"ours": 9.0, "other_ours": 9.5}}), lexi_tables())
    assert by(off, "4b", "RR").status == "differs"


def test_another_method_without_its_value_is_refused():
    with pytest.raises(ValueError, match="needs the other method and its value"):
        cell("lexiprecision", "table 4b", "x", "RR", "1.00", "reproduced by another method", ours=1.0)


def test_a_track_with_fewer_runs_is_data_not_here_with_ours_beside_even_where_it_equals_the_paper():
    """The cells that need the runs are data not here on 12 of the 59 runs, ours beside;
    those read from the qrels alone (requests, rel/request) are decided on its 54 requests."""
    cells = lexi_cells("dl20", "deep-pass (2020)", changes={("1", "runs"): {"ours": 12.0},
                                                              ("2", "sgnLP"): {"ours": 93.5}})
    out = pc.lexiprecision_rows(cells, lexi_tables("dl20", runs=12))
    mine = out[out.track == "dl20"]
    runs = mine[~mine.column.isin(["requests", "rel/request"]) | (mine["item"] != "table 1")]
    assert len(runs) == 12 and (runs.status == "data not here").all() and (runs.reproduced != "").all()
    assert runs.note.str.startswith("on 12 of the benchmark's 59 runs, 54 of its 54 requests").all()
    assert by(out, "2", "sgnLP", "dl20").reproduced == "93.50"
    qrels = mine.drop(runs.index)
    assert list(qrels.status) == ["exact at an inferred setting"] * 2
    # fewer requests: the qrels cells are data not here too
    fewer = lexi_tables("dl20", runs=12)
    fewer["profile"] = fewer["profile"].assign(requests=50)
    out = pc.lexiprecision_rows(cells, fewer)
    row = by(out, "1", "rel/request", "dl20")
    assert row.status == "data not here" and row.note == (
        "on 12 of the benchmark's 59 runs, 50 of its 54 requests: ours beside; needs its requests (read from the "
        "qrels alone)")


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


CAMPAIGN = published("asl")["table1_campaign"]["passages"]["run_names"]
GROUPS = {"bm25": ["p_bm25*"], "neural": ["1", "pash_*"]}


def asl_study_rows(tech, runs=tuple(CAMPAIGN), groups=None):
    """The ASL study's paper_comparison table (as rule study writes it) for a track holding
    ``runs`` of the DL 2020 passage campaign, standing for table 1's passage half."""
    head = pd.DataFrame({"track": ["dl20"], "n_runs": [len(runs)], "P_20": [0.5], "ASL@g1-10": [30.0],
                         "ASL": [200.0]})
    frames = {"headroom": head, "techniques": tech, "table2": pd.DataFrame(),
              "map_share": pd.DataFrame(columns=["track", "share"]), "table1_runs": {"dl20": list(runs)}}
    spec = {"dl20": {"baseline": "bm25", "groups": groups or GROUPS}}
    return asl_paper.paper_rows(frames, {"passages": "dl20"}, spec).drop(columns="paper")


def test_asl_table1_passage_half_exact_on_the_whole_campaign_and_document_half_not_here():
    out = pc.asl_rows(asl_study_rows(asl_techniques()), {"passages": "dl20"})
    table1 = out[out.item == "table 1"]
    assert len(table1) == 24
    passages = table1[table1.column.str.startswith("passages")]
    assert (passages.status == "exact").all() and (passages.track == "dl20").all()
    assert set(passages[passages.column == "passages RRIE"].reproduced) == {"39%", "90%", "29%", "19%"}
    assert set(passages[passages.row == "MAP"].reproduced) == {"0.400", "0.572", "29%"}
    docs = table1[table1.column.str.startswith("documents")]
    assert (docs.status == "data not here").all() and (docs.track == "").all() and (docs.reproduced == "").all()
    assert set(docs.needs) == {"TREC DL 2020 document ranking (64 runs)"}
    assert (docs.to_add.str.contains("study: {paper: {documents: <track>}}", regex=False)).all()


def test_asl_table1_differs_on_the_whole_campaign_and_is_not_here_on_part_of_it():
    tech = asl_techniques()
    tech.loc[tech.measure == "ASL", "value"] += 10
    row = pc.asl_rows(asl_study_rows(tech), {"passages": "dl20"}).query("row == 'ASL' and column == 'passages BM25'")
    assert row.status.iloc[0] == "differs" and row.reproduced.iloc[0] == "274"
    part = pc.asl_rows(asl_study_rows(tech, runs=CAMPAIGN[:12]), {"passages": "dl20"})
    row = part.query("row == 'ASL' and column == 'passages BM25'").iloc[0]
    assert row.status == "data not here" and row.note.startswith("on 12 of the campaign's 59 runs: 274 (best_bm25)")
    assert row.reproduced == "274"
    # equal to the paper on part of the campaign: still data not here, ours beside
    equal = pc.asl_rows(asl_study_rows(asl_techniques(), runs=CAMPAIGN[:12]), {"passages": "dl20"})
    row = equal.query("row == 'ASL@g1-10' and column == 'passages BM25'").iloc[0]
    assert row.status == "data not here" and row.reproduced == "51"


def test_a_partial_track_that_differs_says_differs_where_the_cells_runs_are_all_here():
    """The runs a cell needs are its groups' runs of the campaign: with every absent run
    known to be in the other group, the BM25 cells' data suffice on 3 of the 59 runs, and
    a value off the paper's differs; the neural and RRIE cells, whose runs are absent, are
    data not here."""
    groups = {"bm25": ["p_bm25*"], "neural": [n for n in CAMPAIGN if not n.startswith("p_bm25")]}
    bm25_runs = [n for n in CAMPAIGN if n.startswith("p_bm25")]
    tech = asl_techniques()
    tech.loc[(tech.measure == "ASL") & (tech.group == "bm25"), "value"] += 10
    out = pc.asl_rows(asl_study_rows(tech, runs=bm25_runs + ["pash_f1"], groups=groups), {"passages": "dl20"})
    t1 = out[(out.item == "table 1") & out.column.str.startswith("passages")].set_index(["row", "column"])
    assert t1.loc[("ASL", "passages BM25"), "status"] == "differs"
    assert t1.loc[("ASL", "passages BM25"), "note"] == "ours 274 (best_bm25) on 4 of the campaign's 59 runs"
    assert t1.loc[("P@20", "passages BM25"), "status"] == "exact"
    assert (t1.xs("passages neural", level=1).status == "data not here").all()
    assert (t1.xs("passages RRIE", level=1).status == "data not here").all()


def test_table2_puts_ours_in_ours_and_flags_a_ratio_range_below_zero():
    table2 = pd.DataFrame([{"comparison": "atomize_p", "n_tracks": 11,
                            "delta_sort_mean": 40.0, "delta_sort_std": 10.0, "delta_sort_low": 30.0,
                            "delta_sort_high": 50.0, "delta_sort_median": 40.0, "delta_sort_n": 11,
                            "kendall_tau_mean": 0.8, "kendall_tau_std": 0.3, "kendall_tau_low": 0.5,
                            "kendall_tau_high": 1.1, "kendall_tau_median": 0.8, "kendall_tau_n": 11,
                            "delta_value_mean": 0.724, "delta_value_std": 2.101, "delta_value_low": -1.377,
                            "delta_value_high": 2.825, "delta_value_median": 0.5, "delta_value_n": 100,
                            "delta_value_gmean": 0.5, "delta_value_glow": 0.2, "delta_value_ghigh": 1.25,
                            "delta_value_gn": 98}])
    frames = {"headroom": pd.DataFrame({"track": [], "n_runs": []}), "techniques": asl_techniques().iloc[0:0],
              "table2": table2, "map_share": pd.DataFrame(columns=["track", "share"])}
    out = pc.asl_rows(asl_paper.paper_rows(frames).drop(columns="paper"))
    t2 = out[(out.item == "table 2") & (out.row == "Atomize P")].set_index("column")
    assert t2.loc["DeltaSort", "reproduced"] == "30% to 50%"
    assert t2.loc["Kendall", "reproduced"] == "0.5 to 1.0"        # clipped: tau is at most 1
    value = t2.loc["DeltaValue"]
    assert value.reproduced == "-1.377x to 2.825x (flagged: mean - sd below 0, impossible for a ratio)"
    assert "geometric mean divided and multiplied by the geometric sd: 0.200x to 1.250x over the 98 ratios > 0" in value.note
    assert (value.ours_low, value.ours_high) == (-1.377, 2.825)
    assert (t2.status == "data not here").all()


def test_counts_by_status_come_first_then_cells_with_ours_then_one_line_per_missing_dataset():
    lexi = pc.lexiprecision_rows(lexi_cells(changes={("4b", "RR"): {"ours": 9.91, "other_ours": 10.36}}),
                                 lexi_tables())
    asl = pc.asl_rows(asl_study_rows(asl_techniques(), runs=CAMPAIGN[:12]), {"passages": "dl20"})
    rows = pc.combine(asl, lexi)
    md = pc.comparison_markdown(rows)
    counts = pc.status_counts(rows).set_index("paper")
    assert counts.loc["the three papers", "cells"] == len(rows) == counts.loc[["asl", "lexiprecision"], "cells"].sum()
    assert counts.loc["lexiprecision", "reproduced by another method"] == 1
    first, cells, missing = md.index("| paper | exact |"), md.index("## Cells with a value of ours"), \
        md.index("## Data not here")
    assert first < cells < missing
    tail = md[missing:]
    assert "- lexiprecision: robust (2004) (110 runs, 249 requests): 15 cells (table 1, table 2, table 3, " \
           "table 4a, table 4b, text); add its qrels and runs under `tracks:`" in tail
    assert "- asl: TREC DL 2020 document ranking (64 runs): 12 cells (table 1)" in tail
    assert "- asl: the paper's 76 TREC tracks: 18 cells (table 2, appendix A.1, section 4.4)" in tail
    # section 4.5's best passage run: the runs at table 1's settings are not given here
    assert "- asl: TREC DL 2020 passage ranking (59 runs): 2 cells (section 4.5)" in tail
    # one line per dataset: the unmapped benchmarks, the ASL's three, the text's DL 2021 and web
    assert tail.count("\n- ") == len(LEXI["benchmarks"]) - 1 + 3 + 2
    assert "the web track runs (web (2009) ... web (2014)): 1 cell (text)" in tail
    assert "| holm: 10.36 |" in md[cells:missing]
    for entity in ("&#", "&lt;", "&gt;", "&amp;"):
        assert entity not in md


def test_summary_lines_count_each_status_and_markdown_escapes_names():
    rows = pc.combine(frame([cell("rareness", "table 2", "P@100", "DLT20", "0.071", "differs", "x", ours=0.2,
                                  track="a|b")]),
                      frame([cell("asl", "table 1", "ASL", "passages BM25", "264", "exact", ours=264.0)]))
    lines = pc.summary_lines(rows)
    assert lines[0] == ("2 cells of the three papers: 1 exact, 0 exact at an inferred setting, 0 reproduced by "
                        "another method, 0 within Monte Carlo error, 0 within tolerance, 1 differs, 0 data not here")
    assert lines[1:] == ["- asl: 1 exact", "- rareness: 1 differs"]
    md = pc.comparison_markdown(rows)
    assert "a&#124;b" in md and "| a|b" not in md


def test_rows_of_an_older_writer_get_the_new_columns_empty():
    old = frame([cell("rareness", "table 1", "P@100", "DLT20 95%", "61", "data not here")]).drop(
        columns=["other_setting", "other_value", "needs", "to_add"])
    out = pc.combine(old)
    assert list(out.columns) == list(COLUMNS) and out.other_setting.iloc[0] == ""


def test_printed_ranges_read_a_to_b():
    assert pc.as_range("26-60%") == "26% to 60%" and pc.as_range("0.3-0.6x") == "0.3x to 0.6x"
    assert pc.as_range("0.7-0.9") == "0.7 to 0.9" and pc.as_range("0.456") == "0.456"


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


def counts_sentence(rows) -> str:
    """The sentence docs/studies.md gives for a comparison's counts."""
    said = ", ".join(f"{int((rows.status == s).sum())} {s}" for s in STATUSES if (rows.status == s).any())
    return f"{len(rows)} cells: {said}."


def test_docs_studies_counts_are_the_comparisons_on_the_lexiprecision_paper_config(tmp_path):
    """docs/studies.md counts the "deep-pass (2019)" cells of config/lexiprecision-paper.yaml:
    the sentence is the one the comparison gives, computed here on the full DL-2019 track
    with the config's settings (figures 8-9's label removal left out: no table of 1-4 reads it)."""
    from pathlib import Path

    import yaml

    from conftest import ingested
    from reeval.analyses.lexiprecision import paper as lp
    from reeval.analyses.lexiprecision.report import study_level, track_lexiprecision
    from reeval.io.ingest import write_track
    from reeval.workflow.config_check import with_defaults

    root = Path(__file__).resolve().parents[2]
    config = with_defaults(yaml.safe_load((root / "config" / "lexiprecision-paper.yaml").read_text()))
    opts = {**config["lexiprecision"], "label_removal": {**config["lexiprecision"]["label_removal"],
                                                         "fractions": [0.0], "samples": 1}}
    track = "trec2019-dl-passage"
    text = " ".join((root / "docs" / "studies.md").read_text().split())
    write_track(ingested(track, precision=config["tracks"][track]["precision"]), tmp_path / "in")
    tables = track_lexiprecision(track, tmp_path / "in", tmp_path / "out", study_level(config, track), opts,
                                 figures=False)
    rows = pc.lexiprecision_rows(lp.comparison_table(tables, opts["paper"]), tables)
    mine = rows[(rows.track == track) & (rows["item"] != "text")]
    sentence = counts_sentence(mine)
    claim = rows[(rows.track == track) & (rows["item"] == "text")].iloc[0]
    assert (claim.status, claim.reproduced) == ("differs", "12")
    assert "figure 6's claim (fewer than ten recall levels capture 90% of the pairs) does not hold: 12" in text
    assert sentence == ("14 cells: 3 exact, 4 exact at an inferred setting, 5 reproduced by another method, "
                        "1 within Monte Carlo error, 1 differs.")
    assert f"deep-pass (2019) row, {sentence}" in text
    t4b = mine[mine["item"] == "table 4b"].set_index("column")
    assert t4b.loc["rrLP", ["reproduced", "other_setting", "other_value"]].tolist() == ["14.86", "holm", "15.02"]
    # table 4b at the other level, grade > 0, under the stated Bonferroni, beside the cell it prints
    assert t4b.loc["sgnLP", ["status", "reproduced", "other_setting", "other_value"]].tolist() == [
        "exact at an inferred setting", "17.42", "relevance >= 1", "10.66"]
    t4a = mine[mine["item"] == "table 4a"].set_index("column")
    assert t4a.loc["RR", ["status", "other_value"]].tolist() == ["exact at an inferred setting", "not computed"]
    t2 = mine[mine["item"] == "table 2"].set_index("column")
    assert t2.loc["sgnLP", ["status", "reproduced", "other_setting", "other_value"]].tolist() == [
        "reproduced by another method", "87.07", "relevance >= 1", "90.45"]
    t3 = mine[mine["item"] == "table 3"].set_index("column")
    assert t3.loc["dRR_1", ["status", "reproduced", "other_setting", "other_value"]].tolist() == [
        "exact at an inferred setting", "56.89", "relevance >= 1", "75.54"]


def test_the_lecture_notes_interpolation_table_by_the_rule_they_state():
    """The notes print 0.55 at recall 0.4 (0.67 and 0.43 averaged): their stated rule, the
    highest precision at recall at least L, which trec_eval 9.x's level rounding computes;
    trec_eval 10 (reeval's default) reaches 0.4 on the 3-relevant query at recall 1/3 and
    gives 0.5 there, 0.583 on average, beside each cell. The average row's other cells
    differ only by the notes' arithmetic (rounded values averaged, rounded half up)."""
    from reeval.analyses.papers.notes import notes_rows

    rows = notes_rows().set_index(["row", "column"])
    assert len(rows) == 33 and set(rows.status) == {"exact", "differs"}
    assert rows.loc[("Average", "recall 0.4"), ["published", "reproduced", "other_value", "status"]].tolist() == [
        "0.55", "0.55", "0.58", "exact"]
    assert rows.loc[("Ranking 2", "recall 0.4"), ["reproduced", "other_value"]].tolist() == ["0.43", "0.50"]
    assert rows.loc[("Ranking 2", "recall 0.4"), "ours_value"] == pytest.approx(3 / 7)
    differ = rows[rows.status == "differs"]
    assert list(differ.index.get_level_values(0).unique()) == ["Average"]
    assert differ.note.str.startswith("the notes average their rounded values").all()
    assert differ.loc[("Average", "recall 0.3"), "note"].endswith("(0.67 + 0.5) / 2, and round half up: 0.59")


def test_the_lexiprecision_texts_numbers_and_its_figure_6_claim_are_rows():
    """The text's relevant-retrieved numbers are for benchmarks no track here stands for;
    the claim that fewer than ten recall levels capture 90% of the pairs is checked on each
    mapped track: on the benchmark's data it holds (exact) or not (differs), on part of
    them it is data not here with ours beside."""
    ecdf = pd.DataFrame({"track": ["dl19"] * 3 + ["dl20"] * 2, "i_star": [1, 9, 12, 1, 4],
                         "ecdf": [0.5, 0.88, 0.91, 0.6, 0.95]})
    tables = {**lexi_tables(), "fig6_i_star_ecdf": ecdf}
    out = pc.lexiprecision_rows(lexi_cells(), tables)
    text = out[out["item"] == "text"]
    numbers = text[text.row.str.startswith("relevant items")]
    assert list(numbers.column) == ["DL 2021", "web", "robust", "ml-1m"] and (numbers.status == "data not here").all()
    assert numbers.set_index("column").published["DL 2021"] == "38.74 +- 21.75"
    claim = text[text.track == "dl19"].iloc[0]
    assert (claim.status, claim.reproduced) == ("differs", "12")
    assert claim.note == "12 recall levels capture 90% of the non-tied pairs: the claim does not hold on deep-pass (2019)"
    ecdf.loc[2, "i_star"] = 9.0
    holds = pc.lexiprecision_rows(lexi_cells(), {**tables, "fig6_i_star_ecdf": ecdf})
    assert holds[(holds["item"] == "text") & (holds.track == "dl19")].status.iloc[0] == "exact"
    part = pc.lexiprecision_rows(lexi_cells("dl20", "deep-pass (2020)"),
                                 {**lexi_tables("dl20", runs=12), "fig6_i_star_ecdf": ecdf})
    row = part[(part["item"] == "text") & (part.track == "dl20")].iloc[0]
    assert row.status == "data not here" and row.reproduced == "4" and row.note.startswith("on 12 of the benchmark's")


def test_relevant_items_retrieved_are_decided_on_the_group_s_benchmarks():
    """The text's "relevant items retrieved" need every benchmark of their group held whole:
    robust on a track holding robust (2004) is exact at the inferred standard deviation
    (the population's; the sample's beside) or differs; web on one of its six years is data
    not here, ours beside; the pooled mean and sd are those of the rankings put together."""
    import numpy as np

    from reeval.analyses.papers.texts import pooled_retrieved, text_rows

    rng = np.random.default_rng(3)
    a, b = rng.integers(0, 90, size=(110, 249)), rng.integers(0, 30, size=(5, 4))
    profile = pd.DataFrame({"track": ["rb", "w9"], "runs": [110, 5], "requests": [249, 4],
                            "rel_retrieved_per_ranking": [a.mean(), b.mean()],
                            "rel_retrieved_sd_per_ranking": [a.std(), b.std()]})
    both = np.concatenate([a.ravel(), b.ravel()])
    assert pooled_retrieved(profile, ["rb", "w9"]) == pytest.approx((both.mean(), both.std(), both.std(ddof=1)))
    mapped = {"rb": "robust (2004)", "w9": "web (2009)"}
    sufficient = {"rb": (True, ""), "w9": (True, "")}
    rows = text_rows(mapped, pd.DataFrame(columns=["track", "i_star", "ecdf"]), sufficient, profile)
    got = rows[rows.row.str.startswith("relevant items")].set_index("column")
    robust = got.loc["robust"]
    assert robust.status == "differs" and robust.reproduced == f"{a.mean():.2f} +- {a.std():.2f}"
    assert (robust.other_setting, robust.other_value) == ("sample standard deviation",
                                                          f"{a.mean():.2f} +- {a.std(ddof=1):.2f}")
    web = got.loc["web"]
    assert web.status == "data not here" and web.note.startswith(f"ours {b.mean():.2f} +- {b.std():.2f} over web (2009)")
    assert got.loc["ml-1m"].status == "data not here" and got.loc["ml-1m"].reproduced == ""
    # the paper's 40.51 +- 41.49 printed by ours: exact at the inferred (population) sd
    profile.loc[0, ["rel_retrieved_per_ranking", "rel_retrieved_sd_per_ranking"]] = [40.51, 41.49]
    rows = text_rows(mapped, pd.DataFrame(columns=["track", "i_star", "ecdf"]), sufficient, profile)
    assert rows.set_index("column").loc["robust"].status == "exact at an inferred setting"
    # the robust track with fewer runs: data not here
    rows = text_rows(mapped, pd.DataFrame(columns=["track", "i_star", "ecdf"]), {"rb": (False, "")}, profile)
    assert rows.set_index("column").loc["robust"].status == "data not here"


def test_the_first_page_counts_per_paper_apart_from_the_notes_and_states_each_method_once():
    """The first line counts the three papers' cells (the lecture notes' table apart); a table
    whose cells share a method states it once above the table, one with several numbers
    them and points each row at its own."""
    from reeval.analyses.papers.notes import notes_rows

    lexi = pc.lexiprecision_rows(lexi_cells(), lexi_tables())
    rows = pc.combine(lexi, notes_rows())
    md = pc.comparison_markdown(rows)
    papers = len(lexi)
    assert md.splitlines()[2].startswith(f"{papers} cells of the three papers: ")
    counts = pc.status_counts(rows).set_index("paper")
    assert counts.loc["the three papers", "cells"] == papers and counts.loc["lecture notes", "exact"] > 0
    assert list(counts.index) == ["lexiprecision", "lecture notes", "the three papers"]
    table2 = md[md.index("### lexiprecision: table 2"):md.index("### lexiprecision: table 3")]
    assert table2.count("Method: relevance >= 1 (inferred: ") == 1 and "| method |" not in table2
    assert "exact at an inferred setting" in md[:md.index("## Cells")]
    # two methods in one table: numbered once, each row pointing at its own
    two = lexi.copy()
    two.loc[(two["item"] == "table 2") & (two.column == "dRR_2"), "method"] = "another"
    table2 = pc.comparison_markdown(two)
    table2 = table2[table2.index("### lexiprecision: table 2"):table2.index("### lexiprecision: table 3")]
    assert "Methods:" in table2 and "2. another" in table2 and "| dRR_2 | 88.87 | 88.87 | exact at an inferred setting | relevance >= 2: 85.87 | dl19 | 2 |" in table2
    # a note every cell of a table shares: said once above it, no note column
    two.loc[two["item"] == "table 2", "note"] = "on these data"
    table2 = pc.comparison_markdown(two)
    table2 = table2[table2.index("### lexiprecision: table 2"):table2.index("### lexiprecision: table 3")]
    assert table2.count("on these data") == 1 and "Note: on these data" in table2 and "| note |" not in table2


def test_a_track_holding_a_benchmark_is_compared_whatever_the_mapping():
    """The status follows the data, not the configuration's mapping: the track named
    trec2019-dl-passage holds deep-pass (2019) in every configuration, so its cells (here
    with a configuration mapping nothing, as config/asl-paper.yaml) are the same as when
    lexiprecision.paper maps it; its per-track tables compute what the comparison needs."""
    from reeval.analyses.lexiprecision import paper as lp

    track = "trec2019-dl-passage"
    base = lexi_tables("dl19", level=2)
    tables = {name: df.assign(track=track) for name, df in base.items()}
    level = {"relevance_level": 2, "other_relevance_level": 1}
    tables["profile"] = tables["profile"].assign(
        **level, rel_per_request=58.16, docs_per_request=892.51, other_requests=43, other_runs=37,
        other_rel_per_request=95.40, other_docs_per_request=892.51)
    tables["table2_agreement"] = tables["table2_agreement"].assign(**level, sgnLP_suffix_agree=87.07, dRR2_agree=84.68,
                                                                   other_sgnLP_suffix_agree=90.45, other_dRR2_agree=88.87)
    tables["table3_ties"] = tables["table3_ties"].assign(**level, LP_ties=2.63, RR_ties=56.89, other_LP_ties=0.94,
                                                         other_RR_ties=75.54)
    tables["table4_discriminative_power"] = tables["table4_discriminative_power"].assign(
        percent_significant=17.42, percent_low=17.42, percent_high=17.42)
    unmapped = pc.lexiprecision_rows(lp.comparison_table(tables, {}), tables)
    mapped = pc.lexiprecision_rows(lp.comparison_table(tables, {track: "deep-pass (2019)"}), tables)
    mine = unmapped[unmapped.track == track]
    assert len(mine) == 14 and "data not here" not in set(mine.status)
    assert unmapped.equals(mapped)
    assert by(unmapped, "3", "dRR_1", track).status == "exact at an inferred setting"
    assert lp.compared({"paper": {}}, track) and not lp.compared({"paper": {}}, "trec2003-robust")
    assert lp.compared({"paper": {"mine": "robust (2004)"}}, "mine")
