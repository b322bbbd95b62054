"""The audit of official figures (reeval.analyses.audit, ``reeval audit``): the published
figures of ../shared/data equal or explained, each cause found on a track built to need it,
a cause accepted only for a whole block or a run's whole block, and both file formats."""

from __future__ import annotations

import glob
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import reeval
from conftest import SHARED_DATA, track_files
from reeval.analyses.audit.core import audit, reproduced_text
from reeval.analyses.audit.evaluate import TrackEvaluator
from reeval.analyses.audit.official import read_official
from reeval.analyses.audit.settings import Setting
from reeval.cli.audit import audit_files
from reeval.errors import InputError
from reeval.io.trecio import run_names

MEASURES = ["map", "P_10", "ndcg", "recall_1000", "bpref"]


@pytest.fixture(scope="module")
def track(tmp_path_factory):
    """A track built so that every cause changes some figure: grades 0-2; run r1 ties scores
    that differ only beyond float32; r3 lacks topic t4; every run ranks 1,100 documents, with
    relevant ones beyond rank 1,000."""
    folder = tmp_path_factory.mktemp("audit-track")
    rng = np.random.default_rng(7)
    topics = ["t1", "t2", "t3", "t4"]
    qrels = [f"{t} 0 d{d} {rng.integers(0, 3)}" for t in topics for d in rng.choice(1500, 80, replace=False)]
    qrels += [f"{t} 0 d{1400 + i} 2" for t in topics for i in range(5)]  # relevant, ranked beyond 1,000
    (folder / "qrels").write_text("\n".join(qrels) + "\n")
    runs = []
    for name in ("r1", "r2", "r3"):
        lines = []
        for t in topics:
            if name == "r3" and t == "t4":
                continue
            docs = list(rng.permutation(1400)[:1095]) + [1400 + i for i in range(5)]
            scores = 1000.0 - np.arange(len(docs)) * 0.5
            if name == "r1":  # pairs of scores equal in float32, ordered by docno there
                scores[:200] = 1.0 + np.repeat(np.arange(100), 2) * 1e-3 + np.tile([0, 1e-12], 100)
                scores[:200] = scores[:200][::-1].copy()
                scores[200:] = 0.5 - np.arange(len(docs) - 200) * 1e-4
            lines += [f"{t} Q0 d{d} {i} {float(s)!r} {name}" for i, (d, s) in enumerate(zip(docs, scores))]
        (folder / name).write_text("\n".join(lines) + "\n")
        runs.append(folder / name)
    return folder / "qrels", runs


def figures(qrels, runs, block="trec_eval", runs_only=None, **setting):
    """Official figures as reeval computes them under a setting, printed to 4 decimals."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", reeval.ReevalWarning)
        values = reeval.evaluate(qrels, [str(r) for r in runs], MEASURES, **setting)
    long = values.reset_index().melt(id_vars="run", var_name="measure", value_name="value")
    long["official"] = long["value"].map(lambda v: f"{v:.4f}")
    long["block"] = block
    if runs_only is not None:
        long = long[long["run"].isin(runs_only)]
    return long[["run", "block", "measure", "official"]].reset_index(drop=True)


def audit_frame(official: pd.DataFrame, evaluate, track, names, *limits, alternatives=()) -> pd.DataFrame:
    """audit() of a DataFrame of figures (Arrow in, Arrow out), as a DataFrame."""
    return audit(pa.Table.from_pandas(official, preserve_index=False), evaluate, track, names, *limits,
                 alternatives=alternatives).to_pandas()


def audited(qrels, runs, official, **track_setting):
    names = run_names(runs)
    evaluate = TrackEvaluator(str(qrels), [str(r) for r in runs], names)
    return audit_frame(official, evaluate, Setting(**track_setting), names, *evaluate.limits())


def assert_same_values(found: pa.Table, expected: pa.Table) -> None:
    """Two evaluate() tables: the same runs, measures and values (bit for bit)."""
    assert found.equals(expected), (found.to_pydict(), expected.to_pydict())


def zero_ones(qrels, tmp_path):
    """The qrels with grade 1 relabelled 0 (as DL-2020's trec_eval block computed nDCG)."""
    table = pd.read_csv(qrels, sep=" ", header=None, dtype=str)
    table[3] = table[3].replace("1", "0")
    path = tmp_path / "qrels-zero-ones"
    table.to_csv(path, sep=" ", header=False, index=False)
    return path


@pytest.mark.parametrize("cause,setting,track_level", [
    ("relevance >= 2", {"relevance_level": 2}, 1),
    ("trec_eval 9.x ordering (scores as float32)", {"precision": "float32"}, 1),
    ("without -c (topics a run lacks not counted)", {"complete": False}, 1),
    ("-M 1000 (the first 1,000 documents of each ranking)", {"depth": 1000}, 1),
])
def test_each_cause_explains_a_block_computed_under_it(track, cause, setting, track_level):
    qrels, runs = track
    table = audited(qrels, runs, figures(qrels, runs, **setting), level=track_level)
    assert (table["status"] != "equal").any(), "the case must need the cause"
    assert set(table["status"]) <= {"equal", "explained"}
    assert set(table.loc[table["status"] == "explained", "cause"]) == {cause}
    explained = table[table["status"] == "explained"]
    assert (explained["ours_under_cause"] == explained["official"]).all()
    assert (explained["ours"] != explained["official"]).all()


def test_grades_below_the_level_gaining_zero_explain_ndcg(track, tmp_path):
    qrels, runs = track
    official = figures(zero_ones(qrels, tmp_path), runs, relevance_level=2)
    table = audited(qrels, runs, official, level=2)
    explained = table[table["status"] == "explained"]
    assert len(explained) and set(explained["measure"]) == {"ndcg"}
    assert set(explained["cause"]) == {"grades below 2 gain 0 (nDCG's gains as the binary measures')"}
    assert set(table["status"]) == {"equal", "explained"}


def test_a_cause_is_accepted_run_by_run_when_no_setting_fits_the_whole_block(track):
    """r1 at relevance >= 2, r2 at the track's level 1: no one setting prints the block; each
    run's block is reproduced by its own fewest causes."""
    qrels, runs = track
    official = pd.concat([figures(qrels, runs, runs_only=["r1"], relevance_level=2),
                          figures(qrels, runs, runs_only=["r2"]),
                          figures(qrels, runs, runs_only=["r3"], complete=False)], ignore_index=True)
    table = audited(qrels, runs, official).set_index(["run", "measure"])
    causes = table[table["status"] == "explained"].groupby(level="run")["cause"].unique()
    assert list(causes["r1"]) == ["relevance >= 2"]
    assert list(causes["r3"]) == ["without -c (topics a run lacks not counted)"]
    assert (table.loc["r2", "status"] == "equal").all()
    assert set(table.loc["r2", "reproduced_by"]) == {"relevance >= 1, trec_eval 10 ordering, -c"}


def test_a_block_that_needs_two_causes_at_once_is_explained_naming_both(track):
    """Figures at relevance >= 2 and trec_eval 9.x ordering, audited at level 1 and trec_eval
    10: no single cause reproduces the block (each leaves figures apart), the pair does, and
    every explained row names both; the search stopped with the first pair that fits."""
    qrels, runs = track
    official = figures(qrels, runs, relevance_level=2, precision="float32")
    for one in ({"relevance_level": 2}, {"precision": "float32"}):
        assert not figures(qrels, runs, **one)["official"].equals(official["official"]), "the case must need both"
    names = run_names(runs)
    evaluate = TrackEvaluator(str(qrels), [str(r) for r in runs], names)
    table = pa.Table.from_pandas(official, preserve_index=False)
    found = audit(table, evaluate, Setting(), names, *evaluate.limits())
    frame = found.to_pandas()
    assert set(frame["status"]) == {"explained"} | ({"equal"} & set(frame["status"]))
    both = "relevance >= 2 and trec_eval 9.x ordering (scores as float32)"
    assert set(frame.loc[frame["status"] == "explained", "cause"]) == {both}
    assert set(frame["reproduced_by"]) == {"relevance >= 2, trec_eval 9.x ordering (float32 scores), -c"}
    # the base, the five single causes, then the pairs in order up to this one (the 2nd: after level 2 + gains)
    assert set(frame["settings_tried"]) == {"8"} and found.schema.metadata[b"settings"] == b"8"


def test_a_block_that_needs_no_cause_is_equal_and_evaluated_at_its_setting_alone(track):
    """Every figure printed at the block's setting: equal, reproduced by that setting, and no
    other setting evaluated."""
    qrels, runs = track
    names = run_names(runs)
    evaluate = TrackEvaluator(str(qrels), [str(r) for r in runs], names)
    asked = []
    table = audit_frame(figures(qrels, runs, relevance_level=2), lambda s, m: asked.append(s) or evaluate(s, m),
                        Setting(level=2), names, *evaluate.limits())
    assert set(table["status"]) == {"equal"} and set(table["cause"]) == {""}
    assert set(table["reproduced_by"]) == {"relevance >= 2, trec_eval 10 ordering, -c"}
    assert asked == [Setting(level=2)] and set(table["settings_tried"]) == {"1"}


def test_a_cause_that_fits_one_number_but_not_the_run_s_block_explains_nothing(track):
    qrels, runs = track
    official = figures(qrels, runs)
    under = figures(qrels, runs, precision="float32").set_index(["run", "measure"])["official"]
    at = official.set_index(["run", "measure"]).index
    changed = [key for key in at if key[0] == "r1" and under[key] != official.set_index(["run", "measure"]).loc[key, "official"]]
    assert changed, "float32 must change some figure of r1"
    official.loc[at.get_loc(changed[0]), "official"] = under[changed[0]]
    official.loc[at.get_loc(("r1", "bpref")), "official"] = "0.9999"  # no cause gives this
    table = audited(qrels, runs, official).set_index(["run", "measure"])
    assert table.loc[changed[0], "status"] == "unexplained"
    assert table.loc[("r1", "bpref"), "status"] == "unexplained"
    assert (table.drop(index=[changed[0], ("r1", "bpref")])["status"] == "equal").all()


@pytest.fixture(scope="module")
def tied(tmp_path_factory):
    """A track whose runs hold many tied scores among judged and unjudged documents: the
    run files, and the same rankings written in docno-ascending order of ties with distinct
    scores (each a run of the same name, in another folder): the figures of the second are
    what a program ordering ties by docno ascending prints for the first."""
    folder = tmp_path_factory.mktemp("audit-tied")
    rng = np.random.default_rng(11)
    topics = ["t1", "t2", "t3"]
    (folder / "qrels").write_text("".join(f"{t} 0 d{d:03d} {rng.integers(0, 3)}\n"
                                          for t in topics for d in rng.choice(80, 40, replace=False)))
    (folder / "asc").mkdir()
    runs = []
    for name in ("r1", "r2"):
        rows = pd.DataFrame([(t, f"d{d:03d}", float(20 - i // 4)) for t in topics
                             for i, d in enumerate(rng.permutation(80)[:50])], columns=["qid", "docno", "score"])
        (folder / name).write_text("".join(f"{q} Q0 {d} 0 {s!r} {name}\n" for q, d, s in rows.itertuples(index=False)))
        asc = rows.sort_values(["qid", "score", "docno"], ascending=[True, False, True])
        asc["score"] = 1000.0 - asc.groupby("qid").cumcount()
        (folder / "asc" / name).write_text("".join(f"{q} Q0 {d} 0 {s!r} {name}\n"
                                                   for q, d, s in asc.itertuples(index=False)))
        runs.append(folder / name)
    return folder / "qrels", runs, [folder / "asc" / r.name for r in runs]


def test_docno_ascending_positions_of_a_runs_table_reverse_each_tied_block_within_its_topic():
    import pyarrow as pa

    from reeval.analyses.audit.evaluate import runs_positions

    runs = pa.table({"pos": [1, 2, 3, 4, 5, 1, 2, 3], "docno": list("edcbafed"),
                     "score": [9.0, 5.0, 5.0, 5.0, 1.0, 5.0, 5.0, 4.0]})  # a tie across topics is no tie
    assert runs_positions(runs, "float64", "docno ascending", "float64").tolist() == [1, 4, 3, 2, 5, 2, 1, 3]
    assert runs_positions(runs, "float64", "trec_eval", "float64").tolist() == [1, 2, 3, 4, 5, 1, 2, 3]


def test_float32_positions_of_a_runs_table_order_the_new_ties_by_docno_as_ingest_would():
    import pyarrow as pa

    from reeval.analyses.audit.evaluate import runs_positions

    # 1 + 1e-12 and 1.0 differ in float64 but tie in float32: then docno decides
    runs = pa.table({"pos": [1, 2, 3], "docno": ["a", "c", "b"], "score": [1.0 + 1e-12, 1.0, 0.5]})
    assert runs_positions(runs, "float32", "trec_eval", "float64").tolist() == [2, 1, 3]
    assert runs_positions(runs, "float32", "docno ascending", "float64").tolist() == [1, 2, 3]


def test_a_runs_table_not_as_the_ingest_writes_it_is_not_used_the_files_are_read():
    import pyarrow as pa

    from reeval.analyses.audit.evaluate import judged_reordered

    runs = pa.table({"run": ["r", "r"], "qid": ["1", "1"], "pos": [2, 1], "docno": ["a", "b"], "score": [1.0, 1.0]})
    judged = pa.table({"run": ["r"], "qid": ["1"], "docno": ["b"], "pos": [1], "rel": [1]})
    assert judged_reordered(runs, judged, "float64", "docno ascending", "float64") is None
    other_topic = judged.set_column(1, "qid", pa.array(["2"]))
    ordered = runs.set_column(2, "pos", pa.array([1, 2], pa.int32()))
    assert judged_reordered(ordered, other_topic, "float64", "docno ascending", "float64") is None
    assert judged_reordered(ordered, judged, "float64", "docno ascending", "float64").to_pylist() == [
        {"run": "r", "qid": "1", "docno": "b", "pos": 2, "rel": 1}]


def test_a_cause_evaluates_only_the_measures_of_the_units_still_open(tied):
    """trec_eval's figures equal, Judged@10 from a program ordering ties by docno ascending:
    every setting past the block's own is evaluated for Judged@10 alone."""
    qrels, runs, ascending = tied
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", reeval.ReevalWarning)
        judged = reeval.evaluate(qrels, [str(r) for r in ascending], ["Judged@10"])["Judged@10"]
    official = pd.concat([figures(qrels, runs), pd.DataFrame({"run": judged.index, "block": "trec_eval", "measure": "J@10",
                                                              "official": judged.map(lambda v: f"{v:.4f}").to_numpy()})],
                         ignore_index=True)
    names = run_names(runs)
    evaluate = TrackEvaluator(str(qrels), [str(r) for r in runs], names)
    asked = []

    def recorded(setting, specs):
        asked.append((setting, list(specs)))
        return evaluate(setting, specs)

    table = audit_frame(official, recorded, Setting(), names, *evaluate.limits())
    assert table.loc[table["measure"] == "J@10", "status"].eq("explained").any()
    assert {tuple(specs) for setting, specs in asked if setting != Setting()} == {("Judged@10",)}


@pytest.mark.parametrize("precision,ingested", [("float64", "float64"), ("float32", "float64"),
                                                ("float64", "float32"), ("float32", "float32")])
@pytest.mark.parametrize("ties", ["trec_eval", "docno ascending"])
def test_every_ordering_from_the_runs_table_equals_the_files_read_in_it(tied, track, precision, ingested, ties):
    """The one ordering source (reeval.io.ordering): the runs table reordered and the files
    ingested in that ordering give the same figures, ties, float32 collisions and all."""
    from reeval.io.ingest import ingest_track

    for qrels, runs in ((tied[0], tied[1]), track):
        paths = [str(r) for r in runs]
        tables = ingest_track("t", str(qrels), paths, precision=ingested, tune=False)
        from_tables = TrackEvaluator(str(qrels), paths, run_names(runs), runs_table=lambda: tables.runs,
                                     ingested=(ingested, (tables.judged, tables.depth, tables.qrels)))
        from_files = TrackEvaluator(str(qrels), paths, run_names(runs), read_once=False)
        setting = Setting(precision=precision, ties=ties)
        assert_same_values(from_tables(setting, MEASURES), from_files(setting, MEASURES))
        if (precision, ties) != (ingested, "trec_eval"):
            assert from_tables.reordered(precision, ties) is not None, "the runs table must serve it"


def test_settings_differing_only_in_level_or_c_share_a_grid_and_c_shares_the_per_topic_values(track, monkeypatch):
    """Four settings, two grids (zero_below relabels the grades), three evaluations (-c only
    averages otherwise); each setting's values are those a fresh evaluator gives."""
    import reeval.measures

    qrels, runs = track
    paths, names = [str(r) for r in runs], run_names(runs)
    shared = TrackEvaluator(str(qrels), paths, names)
    grids, evaluations = [], []
    grid, evaluate_grid = shared.grid, reeval.measures.evaluate_grid
    monkeypatch.setattr(shared, "grid", lambda setting: grids.append(setting) or grid(setting))
    monkeypatch.setattr(reeval.measures, "evaluate_grid", lambda *a, **k: evaluations.append(a) or evaluate_grid(*a, **k))
    settings = [Setting(), Setting(level=2), Setting(complete=False), Setting(level=2, zero_below=True)]
    for setting in settings:
        fresh = TrackEvaluator(str(qrels), paths, names, read_once=False)
        assert_same_values(shared(setting, MEASURES), fresh(setting, MEASURES))
    assert grids == [settings[0], settings[3]]
    assert len(evaluations) == 3 + 4  # shared's three, then the fresh evaluator's one per setting


def test_the_command_s_evaluator_reads_the_files_once_for_every_setting_of_the_track_s_qrels(tied, monkeypatch):
    """Without ingested tables the evaluator reads the track once (its runs table kept) and
    serves both orderings, both orders of ties and the grades below a level made 0 from it,
    the values those of the files read again in each (read_once=False)."""
    from reeval.io import ingest

    qrels, runs, _ = tied
    paths, names = [str(r) for r in runs], run_names(runs)
    reads = []
    real = ingest.ingest_track
    monkeypatch.setattr(ingest, "ingest_track", lambda *a, **k: reads.append(a) or real(*a, **k))
    once = TrackEvaluator(str(qrels), paths, names)
    settings = [Setting(level=2, zero_below=True, precision="float32"), Setting(ties="docno ascending"), Setting()]
    values = [once(setting, MEASURES) for setting in settings]
    assert len(reads) == 1
    for setting, found in zip(settings, values):
        assert_same_values(found, TrackEvaluator(str(qrels), paths, names, read_once=False)(setting, MEASURES))


def test_the_judged_lines_rows_in_the_runs_table_are_found_once_for_every_ordering(tied, monkeypatch):
    from reeval.analyses.audit import evaluate as module
    from reeval.io.ingest import ingest_track

    qrels, runs, _ = tied
    paths = [str(r) for r in runs]
    tables = ingest_track("t", str(qrels), paths, precision="float32", tune=False)
    evaluate = TrackEvaluator(str(qrels), paths, run_names(runs), runs_table=lambda: tables.runs,
                              ingested=("float32", (tables.judged, tables.depth, tables.qrels)))
    found = []
    judged_rows = module.judged_rows
    monkeypatch.setattr(module, "judged_rows", lambda *a: found.append(a) or judged_rows(*a))
    for precision, ties in (("float64", "trec_eval"), ("float32", "docno ascending"), ("float64", "docno ascending")):
        assert evaluate.reordered(precision, ties) is not None
    assert len(found) == 1


def test_ties_by_docno_ascending_explain_a_block_computed_in_that_order(tied):
    qrels, runs, ascending = tied
    table = audited(qrels, runs, figures(qrels, ascending))
    assert (table["status"] != "equal").any(), "the case must need the cause"
    assert set(table["status"]) == {"equal", "explained"}
    assert set(table.loc[table["status"] == "explained", "cause"]) == {"docno-ascending ties (another program's order)"}


def test_a_block_is_audited_per_program_the_judged_figures_apart_from_trec_eval_s(tied):
    """A leaderboard prints trec_eval's figures and, from another program ordering ties by
    docno ascending, Judged@10 (which trec_eval lacks): the cause explains the Judged@10
    figures as their own unit, and trec_eval's stay equal."""
    qrels, runs, ascending = tied
    from_trec_eval = figures(qrels, runs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", reeval.ReevalWarning)
        judged = reeval.evaluate(qrels, [str(r) for r in ascending], ["Judged@10"])["Judged@10"]
    official = pd.concat([from_trec_eval, pd.DataFrame({"run": judged.index, "block": "trec_eval", "measure": "J@10",
                                                        "official": judged.map(lambda v: f"{v:.4f}").to_numpy()})],
                         ignore_index=True)
    table = audited(qrels, runs, official)
    assert table.loc[table["measure"] != "J@10", "status"].eq("equal").all()
    judged_rows = table[table["measure"] == "J@10"]
    assert judged_rows["status"].eq("explained").any() and set(judged_rows["status"]) <= {"equal", "explained"}
    assert set(table.loc[table["status"] == "explained", "cause"]) == {"docno-ascending ties (another program's order)"}


def other_qrels(qrels, tmp_path, name: str, seed: int):
    """The qrels with a third of its judgments of grade 2 made 0 (another judging), as ``name``."""
    table = pd.read_csv(qrels, sep=" ", header=None, dtype=str)
    flip = (table[3] == "2") & (np.random.default_rng(seed).random(len(table)) < 1 / 3)
    table.loc[flip, 3] = "0"
    path = tmp_path / name
    table.to_csv(path, sep=" ", header=False, index=False)
    return path


def test_an_alternative_qrels_file_explains_a_block_computed_with_it(track, tmp_path):
    """Figures computed with another qrels file: no setting of the track's qrels reproduces
    them; of two alternatives given, the second (the one they were computed with) does."""
    qrels, runs = track
    decoy, used = other_qrels(qrels, tmp_path, "qrels.decoy", 1), other_qrels(qrels, tmp_path, "qrels.cumulative", 2)
    names = run_names(runs)
    official = figures(used, runs)
    evaluate = TrackEvaluator(str(qrels), [str(r) for r in runs], names)
    without = audit_frame(official, evaluate, Setting(), names, *evaluate.limits())
    assert (without["status"] == "unexplained").any(), "the case must need the alternative qrels"
    table = audit_frame(official, evaluate, Setting(), names, *evaluate.limits(), alternatives=[str(decoy), str(used)])
    assert set(table["status"]) == {"equal", "explained"}
    assert set(table.loc[table["status"] == "explained", "cause"]) == {"the alternative qrels qrels.cumulative"}


def test_the_command_tries_the_alternative_qrels_it_is_given(track, tmp_path):
    qrels, runs = track
    used = other_qrels(qrels, tmp_path, "qrels.cumulative", 2)
    path = tmp_path / "official.csv"
    figures(used, runs).rename(columns={"official": "value"}).to_csv(path, index=False)
    done = subprocess.run([sys.executable, "-m", "reeval.cli", "audit", str(qrels), *map(str, runs), "--official",
                           str(path), "--alternative-qrels", str(used)], capture_output=True, check=True, text=True)
    lines = done.stdout.splitlines()
    assert lines[0].endswith(" explained, 0 unexplained")
    assert lines[1].endswith(" explained, 0 unexplained; " + lines[1].split("; ")[1])
    assert lines[1].split("; ")[1].endswith(" by the alternative qrels qrels.cumulative")


@pytest.mark.parametrize("fixture", ["track", "tied"])
@pytest.mark.parametrize("setting", [Setting(ties="docno ascending"), Setting(precision="float32"),
                                     Setting(precision="float32", ties="docno ascending"),
                                     Setting(ties="docno ascending", level=2, zero_below=True, depth=30)])
def test_other_orderings_from_the_ingested_runs_table_equal_those_from_the_files(request, fixture, setting):
    """The workflow's evaluator orders the track's runs table (runs.parquet) anew for float32
    scores and docno-ascending ties; the command's reads the files again: the same values, and
    no file read again (on the track with float32-only ties and on the one with exact ties)."""
    from reeval.io.ingest import ingest_track

    qrels, runs = request.getfixturevalue(fixture)[:2]
    names = run_names(runs)
    tables = ingest_track("t", str(qrels), [str(r) for r in runs], tune=False)
    from_tables = TrackEvaluator(str(qrels), [str(r) for r in runs], names, runs_table=lambda: tables.runs,
                                 ingested=("float64", (tables.judged, tables.depth, tables.qrels)))
    from_files = TrackEvaluator(str(qrels), [str(r) for r in runs], names, read_once=False)
    specs = MEASURES + ["Judged@10"]
    assert_same_values(from_tables(setting, specs), from_files(setting, specs))
    assert not from_tables._tables


def test_a_float32_track_s_trec_eval_10_ordering_from_its_runs_table_equals_the_files(track):
    from reeval.io.ingest import ingest_track

    qrels, runs = track
    names = run_names(runs)
    tables = ingest_track("t", str(qrels), [str(r) for r in runs], precision="float32", tune=False)
    from_tables = TrackEvaluator(str(qrels), [str(r) for r in runs], names, runs_table=lambda: tables.runs,
                                 ingested=("float32", (tables.judged, tables.depth, tables.qrels)))
    from_files = TrackEvaluator(str(qrels), [str(r) for r in runs], names, read_once=False)
    setting = Setting(precision="float64")
    assert_same_values(from_tables(setting, MEASURES), from_files(setting, MEASURES))
    assert not from_tables(setting, MEASURES).equals(from_files(Setting(precision="float32"), MEASURES))


def test_the_program_of_a_figure_is_trec_eval_only_for_trec_eval_s_own_names():
    from reeval.analyses.audit.core import program

    assert [program(m) for m in ("map", "P@5", "ndcg_cut_10", "bpref")] == ["trec_eval"] * 4
    assert [program(m) for m in ("Judged@10", "RBP(p=0.5)")] == ["Judged", "rbp"]


def test_runs_absent_and_unknown_measures_are_not_compared(track):
    qrels, runs = track
    official = pd.concat([figures(qrels, runs),
                          pd.DataFrame({"run": ["ghost", "r1"], "block": ["trec_eval"] * 2,
                                        "measure": ["map", "iP10"], "official": ["0.1000", "0.5000"]})],
                         ignore_index=True)
    table = audited(qrels, runs, official).set_index(["run", "measure"])
    assert table.loc[("ghost", "map"), ["status", "cause"]].tolist() == ["not compared", "the run is not in the track"]
    assert table.loc[("r1", "iP10"), ["status", "cause"]].tolist() == ["not compared",
                                                                      "reeval knows no measure of this name"]


def test_ours_is_printed_with_each_figure_s_decimals_as_python_formats_it():
    """printed(): each value equals Python's own formatting of it at its figure's decimals,
    halfway cases, negatives, nan and 0 decimals included."""
    from reeval.analyses.audit.core import printed

    columns = {"map": [0.12345, 0.5, -0.00005, np.nan, 2.675], "P_10": [1 / 3, 0.125, 0.0, 1.0, 0.99995]}
    values = pa.table({"run": list("abcde"), **columns})
    official = ["0.1234", "1", "0.00", "0.5", "2.67", "0.333", "0.12", "0", "1.0000", "0.9999"]
    cells = {"run": list("abcde") * 2, "spec": ["map"] * 5 + ["P_10"] * 5, "official": official}
    expected = [f"{columns[m]['abcde'.index(r)]:.{len(o.partition('.')[2])}f}"
                for r, m, o in zip(cells["run"], cells["spec"], official)]
    assert printed(values, cells).tolist() == expected
    assert expected[:5] == ["0.1235", "0", "-0.00", "nan", "2.67"]


def test_the_long_and_the_wide_formats_read_alike(tmp_path):
    long = tmp_path / "long.csv"
    long.write_text("run,block,measure,value\nA,trec_eval,map,0.2500\nA,passages-eval,map,0.1000\n"
                    "B,trec_eval,map,0.3\n")
    wide = tmp_path / "wide.tsv"
    wide.write_text("run\tteam\ttrec_eval:map\tpassages-eval:map\nA\tx\t0.2500\t0.1000\nB\ty\t0.3\t\n")
    board = tmp_path / "board.csv"
    board.write_text("tag,team,report,ndcg@10,MAP\nA,x,a.pdf,0.5000,0.2500\n")
    key = [("run", "ascending"), ("block", "ascending"), ("measure", "ascending")]
    assert read_official(long).sort_by(key).equals(read_official(wide).sort_by(key))
    assert read_official(board).to_pylist() == [
        {"run": "A", "block": "official", "measure": "ndcg@10", "official": "0.5000"},
        {"run": "A", "block": "official", "measure": "MAP", "official": "0.2500"}]


def test_a_wide_file_stacks_its_number_columns_column_by_column_skipping_empty_cells(tmp_path):
    path = tmp_path / "leaderboard.csv"
    path.write_text("run,team,b1:map, P@5 ,notes\n r1 ,t,0.5,,x\nr2,t, 0.25 ,0.4,\nr3,t,,0.2,y\n")
    table = read_official(path)
    assert table.to_pydict() == {"run": ["r1", "r2", "r2", "r3"], "block": ["b1", "b1", "official", "official"],
                                 "measure": ["map", "map", "P@5", "P@5"],
                                 "official": ["0.5", "0.25", "0.4", "0.2"]}
    assert table.schema.types == [pa.string()] * 4


def test_a_byte_order_mark_quoted_names_and_blank_lines_are_read_as_a_csv_reader_reads_them(tmp_path):
    path = tmp_path / "board.csv"
    path.write_bytes('\ufeffrun,map\r\n"a,""b""\n c",0.5\r\n\r\nB,\r\n'.encode())
    assert read_official(path).to_pylist() == [{"run": 'a,"b"\n c', "block": "official", "measure": "map",
                                                "official": "0.5"}]


def test_the_ingested_tables_are_read_as_pq_read_table_reads_them_without_the_dataset_layer(track, tmp_path):
    """read_parquet: the same table (values, types, metadata), and pyarrow.dataset, which
    pq.read_table imports and sets up, never imported."""
    import pyarrow.parquet as pq

    from reeval.io.ingest import ingest_track
    from reeval.workflow.audit_step import read_parquet

    qrels, runs = track
    tables = ingest_track("t", str(qrels), [str(r) for r in runs], tune=False)
    pq.write_table(tables.runs, tmp_path / "runs.parquet", row_group_size=1000)
    for columns in (None, ["run", "qid", "pos"]):
        expected = pq.read_table(tmp_path / "runs.parquet", columns=columns)
        found = read_parquet(tmp_path / "runs.parquet", columns=columns)
        assert found.equals(expected, check_metadata=True) and found.schema.equals(expected.schema, check_metadata=True)
    code = ("import sys; from reeval.workflow.audit_step import read_parquet; "
            f"read_parquet({str(tmp_path / 'runs.parquet')!r}); print('pyarrow.dataset' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"


def test_the_runs_table_read_with_run_and_qid_as_dictionaries_gives_the_same_orderings(tied, tmp_path):
    """The audit reads ``run`` and ``qid`` of a runs table dictionary-encoded (decoded once per
    row group, half the CPU of the read): the same values, the same judged table in every
    other ordering."""
    import pyarrow.parquet as pq

    from reeval.analyses.audit.evaluate import judged_reordered
    from reeval.io.ingest import ingest_track
    from reeval.workflow.audit_step import RUNS_COLUMNS, RUNS_DICTIONARY, read_parquet

    qrels, runs, _ = tied
    tables = ingest_track("t", str(qrels), [str(r) for r in runs], precision="float32", tune=False)
    pq.write_table(tables.runs, tmp_path / "runs.parquet", row_group_size=60)
    plain = read_parquet(tmp_path / "runs.parquet", columns=RUNS_COLUMNS)
    encoded = read_parquet(tmp_path / "runs.parquet", columns=RUNS_COLUMNS, dictionary=RUNS_DICTIONARY)
    assert [str(encoded.schema.field(c).type) for c in RUNS_DICTIONARY] == ["dictionary<values=string, indices=int32, ordered=0>"] * 2
    for column in RUNS_COLUMNS:
        assert encoded.column(column).to_pylist() == plain.column(column).to_pylist()
    for precision, ties in (("float64", "trec_eval"), ("float32", "docno ascending"), ("float64", "docno ascending")):
        want = judged_reordered(plain, tables.judged, precision, ties, "float32")
        assert want is not None and judged_reordered(encoded, tables.judged, precision, ties, "float32").equals(want)


@pytest.mark.parametrize("text,message", [
    ("run,block,measure,value\nA,trec_eval,map,0.25\nA,trec_eval,map,0.26\n", "given twice with two values"),
    ("run,block,measure,value\nA,trec_eval,map,high\n", "line 2: expected a number for map of run A, not 'high'"),
    ("run\tmap\nA\t0.25\nB\t0.3x\n", "line 3: expected a number for map of run B, not '0.3x'"),
    ("run\n", "expected a header and one line per run"),
    ("run,block,measure,value\n\nA,trec_eval,map,x\n", "line 3: expected a number for map of run A, not 'x'"),
    ("run,map\nA,0.25\nB,0.1,0.2\n", "line 3: not a comma-separated table: 3 cells where the header names 2"),
    ("run,map\nA,0.25\n\udcffB,0.1\n", "official.csv: cannot read the official figures: .utf-8. codec"),
])
def test_a_bad_official_file_is_refused_naming_the_line(tmp_path, text, message):
    path = tmp_path / "official.csv"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        read_official(path)


def test_the_command_reads_qrels_from_a_pipe_once_and_prints_the_explained_figure(track, tmp_path):
    qrels, runs = track
    official = figures(qrels, runs, precision="float32")
    path = tmp_path / "official.csv"
    official.rename(columns={"official": "value"}).to_csv(path, index=False)
    done = subprocess.run([sys.executable, "-m", "reeval.cli", "audit", "-", *map(str, runs), "--official", str(path)],
                          input=qrels.read_bytes(), capture_output=True, check=True)
    lines = done.stdout.decode().splitlines()
    compared = len(official)
    explained = sum(1 for line in lines if "\texplained\t" in line)
    assert explained > 0
    assert lines[0] == (f"official figures: {compared} compared on 3 runs: {compared - explained} equal, "
                        f"{explained} explained, 0 unexplained")
    assert lines[1].startswith("block trec_eval (relevance >= 1, trec_eval 10 ordering, -c): 3 runs")
    assert lines[2] == "run\tblock\tmeasure\tofficial\tours\tstatus\tcause"


def test_the_csv_format_holds_every_figure(track, tmp_path):
    qrels, runs = track
    path = tmp_path / "official.csv"
    figures(qrels, runs).rename(columns={"official": "value"}).to_csv(path, index=False)
    done = subprocess.run([sys.executable, "-m", "reeval.cli", "audit", str(qrels), *map(str, runs),
                           "--official", str(path), "--format", "csv"], capture_output=True, check=True, text=True)
    lines = done.stdout.splitlines()
    assert lines[0] == ("run,block,measure,official,ours,status,cause,ours_under_cause,setting,reproduced_by,nearest,"
                        "difference,settings_tried")
    assert len(lines) == 1 + 3 * len(MEASURES) and all(",equal," in line for line in lines[1:])


# ---- the published figures of ../shared/data ----

def shared_audit(track: str, level: int, precision: str = "float64"):
    qrels, runs = track_files(track)
    return audit_files(qrels, runs, glob.glob(str(SHARED_DATA / track / "meta" / "*"))[0], rel_level=level,
                       precision=precision)


def test_deep_learning_2019_both_blocks_equal_but_tua1_1_map_explained_by_float32_ordering():
    table = shared_audit("trec2019-dl-passage", 1)
    assert table["run"].nunique() == 37 and set(table["block"]) == {"trec_eval", "passages-eval"}
    differ = table[table["status"] != "equal"]
    assert differ[["run", "block", "measure", "official", "ours", "status", "cause", "ours_under_cause"]].values.tolist() == [
        ["TUA1-1", "trec_eval", "map", "0.4723", "0.4724", "explained", "trec_eval 9.x ordering (scores as float32)",
         "0.4723"]]


def test_deep_learning_2020_at_the_defaults_its_trec_eval_block_needs_two_causes_at_once():
    """At -l 1 (the command's default) every figure of the trec_eval block differs; relevance
    >= 2 alone leaves its nDCG apart, grades below 2 gaining 0 alone acts only above level 1:
    the pair reproduces all 156, and each row names both."""
    table = shared_audit("trec2020-dl-passage", 1)
    compared = table[table["status"] != "not compared"]
    assert compared["run"].nunique() == 12 and table.loc[table["status"] == "not compared", "run"].nunique() == 47
    block = compared[compared["block"] == "trec_eval"]
    assert len(block) == 156 and set(block["status"]) == {"explained"}
    assert set(block["cause"]) == {"relevance >= 2 and grades below 2 gain 0 (nDCG's gains as the binary measures')"}
    assert reproduced_text(block["status"], block["reproduced_by"]) == (
        "relevance >= 2, grades below 2 gain 0, trec_eval 10 ordering, -c: 156/156")
    assert set(compared.loc[compared["block"] == "passages-eval", "status"]) == {"equal"}


def test_deep_learning_2020_at_level_2_only_ndcg_of_the_trec_eval_block_needs_grade_1_gaining_0():
    table = shared_audit("trec2020-dl-passage", 2)
    compared = table[table["status"] != "not compared"]
    assert set(compared["status"]) == {"equal", "explained"}
    explained = compared[compared["status"] == "explained"]
    assert set(explained["block"]) == {"trec_eval"} and set(explained["measure"]) == {"ndcg", "ndcg_cut_10",
                                                                                      "ndcg_cut_100", "ndcg_cut_1000"}


def test_deep_learning_2019_at_the_workflow_s_setting_every_figure_equal_or_explained():
    """The workflow's DL-2019 (relevance_level 2, trec_eval 9.x ordering): the trec_eval block
    is reproduced as a whole at relevance >= 1, TUA1-1's MAP included."""
    table = shared_audit("trec2019-dl-passage", 2, precision="float32")
    assert set(table["status"]) == {"equal", "explained"}
    block = table[table["block"] == "trec_eval"]
    assert reproduced_text(block["status"], block["reproduced_by"]) == (
        "relevance >= 1, trec_eval 9.x ordering (float32 scores), -c: 481/481")
    assert set(block.loc[block["status"] == "explained", "cause"]) == {"relevance >= 1"}


@pytest.mark.parametrize("track,runs", [("trec-covid-round1", 143), ("trec-covid-round2", 12),
                                        ("trec-covid-round4", 12), ("trec-covid-round5", 12)])
def test_trec_covid_leaderboards_every_figure_equal_or_explained(track, runs):
    table = shared_audit(track, 1)
    compared = table[table["status"] != "not compared"]
    assert compared["run"].nunique() == runs and set(compared["measure"].str.lower()) >= {"map", "bpref"}
    assert set(compared["status"]) <= {"equal", "explained"}
    assert set(table.loc[table["status"] == "not compared", "cause"]) <= {"the run is not in the track"}
    assert set(table.loc[table["status"] == "explained", "cause"]) <= {"trec_eval 9.x ordering (scores as float32)"}


def test_trec_covid_round_3_judged_figures_are_explained_by_another_program_s_ties():
    """Round 3's leaderboard prints J@5/J@10/J@1000 (Judged@k, which trec_eval lacks, so another
    program's): ties by docno ascending reproduce all 36 of them, two runs' J@10 and one's J@5
    only so; every figure trec_eval computes (and RBP) is equal in trec_eval's order."""
    table = shared_audit("trec-covid-round3", 1)
    compared = table[table["status"] != "not compared"]
    assert compared["run"].nunique() == 12 and len(compared) == 12 * 8
    flagged = compared[compared["status"] != "equal"]
    assert flagged[["run", "measure", "official", "ours", "status", "ours_under_cause"]].values.tolist() == [
        ["udel_fang_lambdarank", "J@10", "0.9725", "0.9700", "explained", "0.9725"],
        ["active_learning", "J@10", "0.9750", "0.9700", "explained", "0.9750"],
        ["udel_fang_lambdarank", "J@5", "0.9800", "0.9750", "explained", "0.9800"]]
    assert set(flagged["cause"]) == {"docno-ascending ties (another program's order)"}


@pytest.mark.parametrize("setting", [Setting(level=2, zero_below=True), Setting(level=2, zero_below=True, depth=1000),
                                     Setting(level=1, complete=False), Setting(level=3)])
def test_the_ingested_tables_give_the_values_the_files_give(track, tmp_path, setting):
    """The workflow's evaluator (the track's ingested tables, grades relabelled on them)
    equals the command's (the files read again with the setting's grade map)."""
    from reeval.io.ingest import ingest_track

    qrels, runs = track
    names = run_names(runs)
    tables = ingest_track("t", str(qrels), [str(r) for r in runs], keep_runs=False, tune=False)
    ingested = ("float64", (tables.judged, tables.depth, tables.qrels))
    from_tables = TrackEvaluator(str(qrels), [str(r) for r in runs], names, ingested=ingested)
    from_files = TrackEvaluator(str(qrels), [str(r) for r in runs], names, read_once=False)
    assert_same_values(from_tables(setting, MEASURES), from_files(setting, MEASURES))
    assert not from_tables._tables  # no file read again


def test_a_hostile_run_name_reaches_the_terminal_escaped(track, tmp_path):
    """A run file named with an OSC sequence and a bidi control: the command's lines (the
    figure lines name the run) hold neither raw."""
    import shutil

    qrels, runs = track
    hostile = tmp_path / "r\x1b]0;T\x07\u202eevil"
    shutil.copy(runs[0], hostile)
    path = tmp_path / "official.csv"
    path.write_text(f"run,block,measure,value\n{hostile.name},trec_eval,map,0.9999\n")
    done = subprocess.run([sys.executable, "-m", "reeval.cli", "audit", str(qrels), str(hostile), "--official", str(path)],
                          capture_output=True, check=True)
    out = done.stdout.decode() + done.stderr.decode()
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "r\\x1b]0;T\\x07\\u202eevil\ttrec_eval\tmap\t0.9999" in out


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Hand-made: three topics judged 0-2, three runs of 20 documents each over all topics."""
    folder = tmp_path_factory.mktemp("audit-graded")
    rng = np.random.default_rng(5)
    (folder / "qrels").write_text("".join(f"t{t} 0 d{d:02d} {rng.integers(0, 3)}\n"
                                          for t in range(3) for d in range(30)))
    runs = []
    for name in ("ra", "rb", "rc"):
        path = folder / name
        path.write_text("".join(f"t{t} Q0 d{d:02d} {i} {20.0 - i} {name}\n"
                                for t in range(3) for i, d in enumerate(rng.permutation(30)[:20])))
        runs.append(path)
    return folder, runs


def oracle_figures(trec_eval10, qrels, runs, *options) -> pd.DataFrame:
    """The official figures as trec_eval 10 prints them (``-m map -m P.10 -m ndcg_cut.10``
    and ``options``), one run at a time, in the long format."""
    rows = []
    for run in runs:
        out = subprocess.run([str(trec_eval10.binary), *options, "-m", "map", "-m", "P.10", "-m", "ndcg_cut.10",
                              str(qrels), str(run)], capture_output=True, text=True, check=True).stdout
        rows += [(run.name, "trec_eval", measure, value) for measure, _, value in map(str.split, out.splitlines())]
    return pd.DataFrame(rows, columns=["run", "block", "measure", "official"])


def test_trec_eval_s_own_figures_need_no_cause_and_its_l_2_with_grade_1_zeroed_needs_two(trec_eval10, graded,
                                                                                            tmp_path):
    """The oracle: trec_eval 10's figures at its defaults are equal at the command's default
    setting (one setting evaluated); its figures at -l 2 on the qrels with grade 1 made 0 (as
    DL-2020's trec_eval block computed nDCG) need both causes, named in every row."""
    folder, runs = graded
    names = run_names(runs)
    evaluate = TrackEvaluator(str(folder / "qrels"), [str(r) for r in runs], names)
    plain = audit(pa.Table.from_pandas(oracle_figures(trec_eval10, folder / "qrels", runs)), evaluate, Setting(),
                  names, *evaluate.limits())
    assert set(plain.column("status").to_pylist()) == {"equal"} and plain.schema.metadata[b"settings"] == b"1"
    zeroed = tmp_path / "qrels.zeroed"
    zeroed.write_text((folder / "qrels").read_text().replace(" 1\n", " 0\n"))
    official = oracle_figures(trec_eval10, zeroed, runs, "-l", "2")
    table = audit(pa.Table.from_pandas(official), evaluate, Setting(), names, *evaluate.limits()).to_pandas()
    assert set(table["status"]) == {"explained"} | ({"equal"} & set(table["status"]))
    assert set(table.loc[table["status"] == "explained", "cause"]) == {
        "relevance >= 2 and grades below 2 gain 0 (nDCG's gains as the binary measures')"}
    assert (table.loc[table["status"] == "explained", "ours_under_cause"] == table.loc[table["status"] == "explained",
                                                                                          "official"]).all()


def test_a_hostile_alternative_qrels_name_reaches_the_closing_line_escaped(track, tmp_path):
    """The closing line names the setting reproducing a block, an alternative qrels file's
    name included: escaped there as in the figure lines."""
    qrels, runs = track
    used = other_qrels(qrels, tmp_path, "q\x1b]0;T\x07\u202eevil", 2)
    path = tmp_path / "official.csv"
    figures(used, runs).rename(columns={"official": "value"}).to_csv(path, index=False)
    done = subprocess.run([sys.executable, "-m", "reeval.cli", "audit", str(qrels), *map(str, runs), "--official",
                           str(path), "--alternative-qrels", str(used)], capture_output=True, check=True)
    out = done.stdout.decode()
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    closing = out.splitlines()[-1]
    assert closing.startswith("searched ") and "qrels q\\x1b]0;T\\x07\\u202eevil: 15/15" in closing, closing


@pytest.mark.parametrize("ingested", ["float64", "float32"])
def test_an_alternative_qrels_file_is_read_once_for_every_ordering_ties_and_gains(track, tmp_path, monkeypatch,
                                                                                 ingested):
    """An alternative qrels file is read once, at the ingested ordering; the other orderings,
    ties and the grades below a level made 0 come from the runs table, as the track's own:
    the values those of the files read again under each setting."""
    from reeval.io import ingest

    qrels, runs = track
    paths, names = [str(r) for r in runs], run_names(runs)
    alt = str(other_qrels(qrels, tmp_path, "qrels.alt", 3))
    tables = ingest.ingest_track("t", str(qrels), paths, precision=ingested, tune=False)
    reads = []
    real = ingest.ingest_track
    monkeypatch.setattr(ingest, "ingest_track", lambda *a, **k: reads.append(a[1]) or real(*a, **k))
    evaluate = TrackEvaluator(str(qrels), paths, names, runs_table=lambda: tables.runs,
                              ingested=(ingested, (tables.judged, tables.depth, tables.qrels)))
    settings = [Setting(qrels=alt), Setting(qrels=alt, precision="float32", ties="docno ascending"),
                Setting(qrels=alt, level=2, zero_below=True, precision="float64"),
                Setting(qrels=alt, ties="docno ascending", depth=1000)]
    values = [evaluate(setting, MEASURES) for setting in settings]
    assert reads == [alt]
    for setting, found in zip(settings, values):
        assert_same_values(found, TrackEvaluator(str(qrels), paths, names, read_once=False)(setting, MEASURES))
