"""``reeval compare --test t --test wilcoxon`` shows each test's table (issue 39 item 6): one
table per test asked for, in the order asked, in every format of the command, the same as
``reeval.compare_runs(...).report()``; ``--table-test`` keeps one of them."""

import pytest

import reeval
from conftest import write_lines
from reeval.cli import main

CAPTIONS = {"t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test", "sign": "sign test"}


@pytest.fixture
def track(tmp_path):
    """Three runs over 6 topics x 6 documents, "good" ranking relevant documents highest."""
    q = write_lines(tmp_path / "q", [f"{t} 0 D{d} {int(d < 2)}" for t in range(1, 7) for d in range(6)])
    paths = []
    for k, name in enumerate(["good", "mid", "bad"]):
        lines = [f"{t} Q0 D{d} 0 {(3 - k) * (d < 2) + ((t * 7 + d * 3 + k) % 5) / 2:.3f} {name}"
                 for t in range(1, 7) for d in range(6)]
        paths.append(write_lines(tmp_path / name, lines))
    return q, paths


def printed(capsys, *argv) -> list[str]:
    assert main([str(a) for a in argv]) == 0
    return capsys.readouterr().out.splitlines()


def caption_lines(lines, fmt):
    """The lines naming a table's test: Markdown's and text's captions, LaTeX's \\caption."""
    return [line for line in lines if line.startswith("\\caption{" if fmt == "latex" else "Markers:")]


@pytest.mark.parametrize("fmt", ["text", "markdown", "latex"])
def test_each_test_asked_for_has_its_table_in_order_in_every_format(capsys, track, fmt):
    q, paths = track
    lines = printed(capsys, "compare", q, *paths, "-m", "map", "-m", "P@2", "--test", "wilcoxon", "--test", "t",
                    "--test", "sign", "--format", fmt, "--quiet")
    captions = caption_lines(lines, fmt)
    assert len(captions) == 3, lines
    for caption, test in zip(captions, ["wilcoxon", "t", "sign"]):
        assert CAPTIONS[test] in caption
    comparison = reeval.compare_runs(q, paths, ["map", "P@2"], tests=["wilcoxon", "t", "sign"])
    each = [comparison.report(test=test, format=fmt) for test in ["wilcoxon", "t", "sign"]]
    assert lines == "\n".join(each).splitlines() == comparison.report(format=fmt).splitlines()
    if fmt == "latex":
        assert lines.count("\\begin{table}") == lines.count("\\end{table}") == 3


def test_table_test_keeps_one_table_and_pairs_lists_every_test(capsys, track):
    q, paths = track
    one = printed(capsys, "compare", q, *paths, "--test", "t", "--test", "wilcoxon", "--table-test", "wilcoxon")
    assert [CAPTIONS["wilcoxon"] in c for c in caption_lines(one, "text")] == [True]
    pairs = printed(capsys, "compare", q, *paths, "--test", "t", "--test", "wilcoxon", "--format", "pairs")
    assert [line.split("\t")[1] for line in pairs[1:]] == ["t"] * 3 + ["wilcoxon"] * 3


def test_with_a_baseline_each_test_has_its_baseline_table(capsys, track):
    q, paths = track
    lines = printed(capsys, "compare", q, *paths, "--baseline", "bad", "--test", "t", "--test", "wilcoxon",
                    "--quiet")
    captions = [line for line in lines if line.startswith("Each run against the baseline bad")]
    assert len(captions) == 2 and CAPTIONS["t"] in captions[0] and CAPTIONS["wilcoxon"] in captions[1]
    assert sum(line.split()[:2] == ["bad", "(baseline)"] for line in lines) == 2


def test_statsmodels_fdr_bh_on_the_command_line_is_bh(capsys, track):
    """``--correction fdr_bh`` (statsmodels' name, accepted by reeval.compare_runs) prints
    what ``--correction bh`` prints."""
    q, paths = track
    args = ("compare", q, *paths, "--test", "t", "--format", "pairs", "--quiet", "--correction")
    assert printed(capsys, *args, "fdr_bh") == printed(capsys, *args, "bh")
    assert printed(capsys, *args, "fdr_bh") != printed(capsys, *args, "none")
