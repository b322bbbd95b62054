"""The audit's cross-track summary (reeval.workflow.audit_step): counts per block, tracks by
trust, a track whose MAPs mostly disagree flagged, the closing line, an empty study."""

import pandas as pd

from reeval.workflow.audit_step import SUMMARY_COLUMNS, block_summary, closing_line, summarize_audits


def table(rows):
    return pd.DataFrame(rows, columns=["run", "block", "measure", "official", "ours", "status", "cause",
                                       "ours_under_cause", "setting", "reproduced_by", "nearest", "difference",
                                       "settings_tried"])


GOOD = table([["a", "trec_eval", "map", "0.1", "0.1", "equal", "", "", "s", "s2", "", "", "2"],
              ["b", "trec_eval", "map", "0.2", "0.3", "explained", "c1", "0.2", "s", "s2", "", "", "2"],
              ["c", "trec_eval", "map", "0.2", "", "not compared", "the run is not in the track", "", "", "", "", "",
               ""]])
BAD = table([["a", "trec_eval", "map", "0.1", "0.5", "unexplained", "", "", "s", "", "s3", "-0.3", "40"],
             ["b", "trec_eval", "map", "0.2", "0.6", "unexplained", "", "", "s", "", "s", "-0.4", "40"],
             ["b", "trec_eval", "P_10", "0.2", "0.2", "equal", "", "", "s", "s", "", "", "40"]])


def test_a_block_s_counts_and_causes():
    row = block_summary("t", GOOD).iloc[0]
    assert (row.runs, row.figures, row.equal, row.explained, row.unexplained, row.not_compared) == (2, 2, 1, 1, 0, 1)
    assert row.causes == "c1 (1)" and not row.mismatched


def test_a_block_says_which_setting_reproduces_its_figures_and_how_many_settings_were_tried():
    good, bad = block_summary("t", GOOD).iloc[0], block_summary("t", BAD).iloc[0]
    assert (good.reproduced, good.settings_tried) == ("s2: 2/2", 2)
    assert (bad.reproduced, bad.settings_tried) == ("s: 1/3; unexplained: 2/3", 40)


def test_the_summary_lists_each_unexplained_figure_with_its_nearest_setting_and_difference(tmp_path):
    paths = {}
    for name, t in {"good": GOOD, "bad": BAD}.items():
        paths[name] = tmp_path / f"{name}.csv"
        t.to_csv(paths[name], index=False)
    summarize_audits(paths, tmp_path / "results")
    md = (tmp_path / "results" / "audit" / "summary.md").read_text()
    assert "| good | trec_eval | 2 | s | 1 | 1 | 0 | 1 | c1 (1) | s2: 2/2 | 2 |" in md
    listed = md[md.index("## Unexplained figures"):]
    assert "| bad | trec_eval | a | map | 0.1 | 0.5 | s3 | -0.3 |" in listed
    assert "| bad | trec_eval | b | map | 0.2 | 0.6 | s | -0.4 |" in listed and "| good |" not in listed


def test_a_track_whose_maps_mostly_disagree_is_flagged_and_ranked_last(tmp_path):
    paths = {}
    for name, t in {"good": GOOD, "bad": BAD}.items():
        paths[name] = tmp_path / f"{name}.csv"
        t.to_csv(paths[name], index=False)
    summary = summarize_audits(paths, tmp_path / "results")
    assert list(summary.track) == ["good", "bad"] and list(summary.mismatched) == [False, True]
    md = (tmp_path / "results" / "audit" / "summary.md").read_text()
    assert "| bad (probably mismatched: most MAPs unexplained) | 3 | 1 | 0 | 2 | 33.3% |" in md
    assert closing_line(summary) == "official scores: 2 of 5 equal, 1 explained, 2 unexplained in 1 track"
    assert (tmp_path / "results" / "audit" / "trust_by_track.pdf").is_file()


def test_a_study_without_official_figures_writes_empty_tables(tmp_path):
    summary = summarize_audits({}, tmp_path)
    assert list(summary.columns) == SUMMARY_COLUMNS and summary.empty
    assert list(pd.read_csv(tmp_path / "audit" / "summary.csv").columns) == SUMMARY_COLUMNS
    assert "No track of this study gives official figures" in (tmp_path / "audit" / "summary.md").read_text()


def test_the_closing_line_writes_thousands():
    summary = pd.DataFrame({"track": ["a", "b"], "figures": [6000, 497], "equal": [5900, 223],
                            "explained": [100, 201], "unexplained": [0, 73]})
    assert closing_line(summary) == "official scores: 6,123 of 6,497 equal, 301 explained, 73 unexplained in 1 track"


def test_the_trust_figure_fits_the_whole_archive_s_tracks(tmp_path):
    """One bar per track of config/trec-official (122 tracks, the longest names of the study),
    some flagged: laid out within the page (the saver refuses a drawing beyond its edge)."""
    from conftest import ROOT
    from reeval.analyses.audit.figures import plot_audit_trust
    from reeval.workflow.audit_step import trust_by_track

    names = sorted(p.stem for p in (ROOT / "config" / "trec-official").glob("*.csv"))
    rows = pd.DataFrame({"track": names, "figures": 1000, "equal": [900 - 10 * (i % 20) for i in range(len(names))],
                         "explained": 50, "unexplained": [50 + 10 * (i % 20) for i in range(len(names))],
                         "mismatched": [i % 20 == 19 for i in range(len(names))]})
    plot_audit_trust(trust_by_track(rows), tmp_path / "trust")
    assert (tmp_path / "trust.png").stat().st_size > 0 and (tmp_path / "trust.pdf").stat().st_size > 0


def test_a_trust_figure_that_cannot_be_drawn_is_told_in_its_files_not_raised(tmp_path, monkeypatch, caplog):
    """plot_audit_trust draws within drawn_or_told itself (no caller wraps it): a table it
    cannot draw (no 'figures' column) writes the sentence and logs the warning."""
    from reeval.analyses.audit.figures import plot_audit_trust
    from reeval.report.figures import STRICT

    monkeypatch.delenv(STRICT, raising=False)
    plot_audit_trust(pd.DataFrame({"track": ["t"], "equal": [1]}), tmp_path / "trust")
    assert (tmp_path / "trust.png").stat().st_size > 0 and (tmp_path / "trust.pdf").stat().st_size > 0
    assert "figure " + str(tmp_path / "trust") + ".png not drawn: KeyError" in caplog.text
