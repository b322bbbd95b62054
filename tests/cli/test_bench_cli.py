"""benchmarks/bench_cli.py reads what the tools print (no timing: the benchmark is run on demand).

reeval runs in process with the arguments the benchmark gives its console script; the
pytrec_eval and ir_measures scripts the benchmark writes run as processes (about 1 s).
"""

from __future__ import annotations

import subprocess

import pytest

from reeval.cli import main
from reeval.synth.tracks import TrackSpec, write_track

from conftest import load_file_module


def bench_cli():
    return load_file_module("benchmarks/bench_cli.py", register=True)


@pytest.fixture(scope="module")
def bc():
    return bench_cli()


def test_tools_print_means_the_benchmark_reads(bc, tmp_path, capsys):
    write_track(tmp_path / "track", TrackSpec(n_runs=3, n_topics=6, depth=40, relevant_per_topic=5,
                                              judged_nonrel_per_topic=10, max_rel=2, compress="none"), seed=3)
    inputs = bc.track_files(tmp_path / "track", "qrels.txt")
    shape = bc.Shape("t", "tiny", inputs, inputs)
    bc.write_scripts(tmp_path)
    ctx = bc.Context("reeval", None, tmp_path)
    [cmd] = bc.commands(bc.TOOLS["reeval"], shape, ctx)
    assert main(cmd[1:]) == 0
    reeval = bc.parse_means(capsys.readouterr().out)
    assert len(reeval) == 3 and all(set(v) == set(bc.MEASURES) for v in reeval)
    for tool in ("pytrec_eval", "ir_measures"):
        [cmd] = bc.commands(bc.TOOLS[tool], shape, ctx)
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        other = bc.parse_means(out)
        assert len(other) == 3
        for a, b in zip(reeval, other):
            for m in bc.MEASURES:
                assert a[m] == pytest.approx(b[m], abs=1e-12), (tool, m)


def test_trec_eval_lines_and_flags(bc):
    trec_eval = "".join(f"{m:<22}\tall\t{v}\n" for m, v in [("runid", "BERT"), ("map", "0.0652"), ("P_20", "0.2100"),
                                                             ("recip_rank", "0.3715"), ("num_q", "30")])
    assert bc.parse_means(trec_eval) == [{"map": 0.0652, "P_20": 0.21, "recip_rank": 0.3715}]
    shape = bc.Shape("t", "tiny", bc.Inputs("q", ["r1.gz", "r2"]), bc.Inputs("q", ["r1", "r2"]))
    ref = [{"map": 0.5, "P_20": 0.25, "recip_rank": 1.0}, {"map": 0.1, "P_20": 0.05, "recip_rank": 0.5}]
    off = [dict(ref[0]), dict(ref[1], P_20=0.0517)]
    timing = lambda means, wall=1.0: bc.Timing(wall, wall, 10.0, None, means)  # noqa: E731
    rows = {r.tool: r for r in bc.summarize(shape, {"reeval": [timing(ref)], "pytrec_eval": [timing(ref, 2.0)],
                                                    "trec_eval": [timing(off)], "ranx": [timing(ref[:1])]})}
    assert rows["pytrec_eval"].ratio == 2.0 and rows["reeval"].problem is None
    assert "P@20 of r2" in rows["trec_eval"].problem and not rows["trec_eval"].failed
    assert rows["ranx"].failed and "printed 1 runs' means, 2 expected" in rows["ranx"].problem


def test_the_one_run_benchmark_times_the_command_as_typed_and_checks_four_decimals(bc, tmp_path):
    """benchmarks/bench_one_run.py: reeval's command line is the one users type (no
    --float32 nor --decimals), the means agree when equal at trec_eval's 4 decimals and not
    otherwise, and the ratios are medians of per-round ratios (not a ratio of medians)."""
    one = load_file_module("benchmarks/bench_one_run.py")  # imports bench_cli, registered by bc
    cmds = one.commands("reeval", tmp_path / "pytrec_eval_means.py", bc.Inputs("Q", ["R"]))
    assert cmds["reeval"] == ["reeval", "score", "-m", "map", "-m", "P_20", "-m", "recip_rank", "Q", "R"]
    ref = [{"map": 0.300849, "P_20": 0.6, "recip_rank": 0.866667}]
    assert one.agree([{"map": 0.3008, "P_20": 0.6, "recip_rank": 0.8667}], ref) == []
    assert [d.split(":")[0] for d in one.agree([{"map": 0.3009, "P_20": 0.6, "recip_rank": 0.8667}], ref)] == ["map"]
    assert one.agree([], ref) != []
    s = one.summary({"reeval": [(1.0, 0.5), (2.0, 1.0), (3.0, 3.0)],
                     "pytrec_eval": [(2.0, 1.0), (2.0, 2.0), (3.0, 2.0)]})
    assert (s["reeval"], s["pytrec_eval"], s["ratio"]) == ((2.0, 1.0), (2.0, 2.0), (1.0, 0.5))
