"""Help texts are plain text and say why the defaults differ (issue 34 item 6)."""

import contextlib
import io

import pytest

from reeval.cli import main
from reeval.cli.app import COMMANDS


def help_text(*argv) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        main([*argv, "--help"])
    return out.getvalue()


@pytest.mark.parametrize("command", [(), *((name,) for name in COMMANDS)])
def test_help_has_no_markup(command):
    text = help_text(*command)
    for markup in ("``", "`", ":func:", ":mod:", "**"):
        assert markup not in text, (command, markup)


def test_reeval_help_lists_every_registered_command():
    text = help_text()
    assert all(name in text for name in COMMANDS) and text.count("\n") > 5


def test_the_c_default_is_explained_in_the_cli_and_the_api():
    """The CLI keeps trec_eval's default (no -c), the API and the workflow average over the
    qrels topics: both help texts say why."""
    import reeval

    assert "so that the lines are trec_eval's" in " ".join(help_text("score").split())
    assert "reeval score" in reeval.evaluate.__doc__ and "same topics" in " ".join(reeval.evaluate.__doc__.split())


def test_score_prints_one_name_per_measure_whatever_the_spelling(tmp_path, capsys):
    from conftest import write_lines

    q = write_lines(tmp_path / "qrels", [f"1 0 D{d} {d % 3}" for d in range(6)])
    r = write_lines(tmp_path / "run", [f"1 Q0 D{d} {d} {1 / (d + 1):.4f} t" for d in range(6)])
    printed = []
    for specs in (["AP", "MAP", "map"], ["MAP(rel=2)", "AP(rel=2)", "nDCG@10", "MRR@3", "RR@3"]):
        assert main(["score", *(a for s in specs for a in ("-m", s)), str(q), str(r)]) == 0
        printed.append([line.split("\t")[0].strip() for line in capsys.readouterr().out.splitlines()])
    assert printed == [["map"], ["ndcg_cut_10", "AP(rel=2)", "RR@3"]]
