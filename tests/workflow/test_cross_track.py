"""Cross-track rules when no track is included: every one finishes, writes its tables with
their columns and types, and says why they are empty (one included track: test_workflow)."""

import subprocess

import pandas as pd
import pyarrow.parquet as pq
import pytest
import yaml

from conftest import ROOT, assert_outputs_conform, write_lines
from reeval.archive.inclusion import inclusion_table
from snakemake_command import SNAKEMAKE

NOTE = "`summary/inclusion.csv`"


def test_every_cross_track_function_with_no_track(tmp_path):
    from reeval.analyses.lexiprecision import report as lr
    from reeval.analyses.rareness import report as rp
    from reeval.analyses.asl import study as S
    from reeval.analyses.asl import views as views
    from reeval.analyses.asl import techniques as techniques
    from reeval.analyses.lexiprecision.report import summarize_lexiprecision
    from reeval.workflow.measures_step import TRACK_SUMMARY_COLUMNS, run_table_columns, summarize
    from reeval.analyses.rareness.report import summarize_rareness, with_parsed_alphas
    from reeval.workflow.config_check import section_with_defaults as defaults
    from reeval.analyses.asl.report import STUDY_TABLES, study, study_options

    inclusion = inclusion_table({}, {}, {}, defaults("study")["min_runs"])
    specs = ["official", "ASL", "ASL@g1-10"]
    summarize({}, tmp_path / "summary", {}, measure_specs=specs, inclusion=inclusion)
    assert study({}, tmp_path / "study", study_options(defaults("study"))) == {"tracks": 0, "runs": 0}
    summarize_lexiprecision({}, tmp_path / "lexiprecision", {}, defaults("lexiprecision"))
    summarize_rareness({}, tmp_path / "rareness", with_parsed_alphas(defaults("rareness")))

    from reeval.io.tables import table_schema

    assert assert_outputs_conform(tmp_path) > 20
    runs = pq.read_table(tmp_path / "summary" / "runs.parquet")
    assert runs.num_rows == 0 and runs.schema == table_schema(run_table_columns(specs))
    assert {"map", "P_20", "num_ret", "ASL@g1-10", "asl_unanswered_topics"} <= set(runs.schema.names)
    assert list(pd.read_csv(tmp_path / "summary" / "tracks.csv").columns) == TRACK_SUMMARY_COLUMNS
    expected = {"headroom": S.HEADROOM_COLUMNS, "reordering": S.REORDERING_COLUMNS,
                "reordering_by_run": S.REORDERING_BY_RUN_COLUMNS, "map_share": views.MAP_SHARE_COLUMNS,
                "techniques": techniques.TECHNIQUE_COLUMNS}
    for name in STUDY_TABLES:
        table = pq.read_table(tmp_path / "study" / f"{name}.parquet")
        if name == "table2":  # one row per comparison, with no track behind it
            assert table.column("n_tracks").to_pylist() == [0] * 6
        elif name == "paper_comparison":  # every published cell, none with data here but the
            # worked example of appendix A.1, whose data are the paper's own
            cells = table.to_pandas()
            example = cells["item"] == "appendix A.1 worked example"
            assert len(cells) > 0 and set(cells.status[~example]) == {"data not here"}
            assert set(cells.status[example]) == {"exact", "differs"}
        else:
            assert table.num_rows == 0 and table.schema.names == list(expected[name]), name
    for name in lr.SUMMARY_TABLES:
        assert pq.read_schema(tmp_path / "lexiprecision" / f"{name}.parquet").names == list(lr.TABLE_COLUMNS[name])
    for name in rp.ANALYSES:
        assert pq.read_schema(tmp_path / "rareness" / f"{name}.parquet").names == list(rp.TABLE_COLUMNS[name])
    for md in ("summary/summary.md", "study/summary.md", "lexiprecision/summary.md"):
        text = (tmp_path / md).read_text()
        assert "No track is included" in text and NOTE in text, md
    for stem in ("study/fig1_p20", "lexiprecision/fig5_ties_by_level", "rareness/n_systems_by_track"):
        assert (tmp_path / f"{stem}.png").stat().st_size > 1000 and (tmp_path / f"{stem}.pdf").is_file()


@pytest.mark.slow
def test_workflow_with_every_track_excluded(tmp_path):
    """A local track with 2 runs (study.min_runs is 5): its own jobs run, it is excluded,
    and every cross-track rule finishes with empty, typed tables."""
    q = write_lines(tmp_path / "qrels.txt", ["1 0 A 1", "1 0 B 0", "2 0 C 1", "2 0 D 2"])
    runs = tmp_path / "runs"
    runs.mkdir()
    write_lines(runs / "r1", ["1 Q0 A 1 2 r1", "1 Q0 B 2 1 r1", "2 Q0 C 1 1 r1"])
    write_lines(runs / "r2", ["1 Q0 B 1 2 r2", "2 Q0 D 1 1 r2"])
    results = tmp_path / "results"
    cfg = {"results": str(results), "measures": ["official", "ASL"], "study": {"min_runs": 5},
           "tracks": {"small": {"qrels": str(q), "runs": str(runs)}}}
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(cfg))
    proc = subprocess.run([*SNAKEMAKE, "--cores", "2", "--configfile", str(path)],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    row = pd.read_csv(results / "summary" / "inclusion.csv").iloc[0]
    assert (row.track, row.source, bool(row.included), row.runs_ingested) == ("small", "local", False, 2)
    assert row.reason == "2 runs kept a line; the study needs >= 5; to include it, set study.min_runs: 2"
    assert assert_outputs_conform(results) > 50
    assert pd.read_parquet(results / "summary" / "runs.parquet").empty
    assert pd.read_csv(results / "study" / "headroom.csv").empty
    assert pd.read_csv(results / "lexiprecision" / "profile.csv").empty
    assert pd.read_csv(results / "rareness" / "tau.csv").empty
    summary = (results / "summary" / "summary.md").read_text()
    assert "0 included tracks" in summary and "| small | 2 runs kept a line" in summary
    for md in ("study/summary.md", "lexiprecision/summary.md"):
        assert NOTE in (results / md).read_text(), md
