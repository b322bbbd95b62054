"""Every shell command of README.md and docs/*.md runs as written (dry runs for the long
workflows, placeholders replaced by real files): a wrong order or a renamed option fails
here. How each kind of command runs, and the mapping of placeholders: tests/doc_commands.py."""

import re
import shlex

import pytest

import doc_commands as docs
from conftest import SHARED_DATA

PAGES = [page for page in docs.documented_pages() if docs.page_commands(page)]


def needs_shared_data():
    if not (SHARED_DATA / docs.TRACK).is_dir():
        pytest.skip(f"the documented commands use the real tracks: {SHARED_DATA / docs.TRACK} not found")


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(docs.ROOT)) for p in PAGES])
def test_every_documented_command_runs_as_written(page, tmp_path):
    needs_shared_data()
    failures = docs.run_page(docs.page_commands(page), tmp_path)
    assert not failures, "\n".join(failures)


def test_the_readme_and_the_docs_hold_the_commands_a_user_types():
    found = {(c.page, c.words[0]) for page in PAGES for c in docs.page_commands(page)}
    assert {("README.md", "make"), ("README.md", "snakemake"), ("README.md", "reeval"),
            ("docs/cli.md", "reeval"), ("docs/index.md", "snakemake")} <= found
    assert not any(c.page.startswith("docs/api") for page in PAGES for c in docs.page_commands(page))  # python only


def test_commands_not_run_are_few_each_with_a_reason_and_each_still_documented():
    commands = [c for page in PAGES for c in docs.page_commands(page)]
    assert len(docs.NOT_RUN) <= 4
    for pattern, reason in docs.NOT_RUN.items():
        assert len(reason) > 20, pattern
        assert any(re.search(pattern, " ".join(docs.command_words(c.words))) for c in commands), pattern


def test_usage_lines_become_commands_and_placeholders_real_files(tmp_path):
    line = "reeval prefer qrels.txt runA.gz runB.gz [RUN ...] [-l LEVEL] [--float32] [--decimals N]"
    words = shlex.split(docs.optional_parts(line))
    assert words == ["reeval", "prefer", "qrels.txt", "runA.gz", "runB.gz", "-l", "LEVEL", "--float32",
                     "--decimals", "N"]
    files = {"qrels.txt": "/data/q", "runA.gz": "/data/a", "runB.gz": "/data/b"}
    assert docs.substitute(words, files, tmp_path)[2:8] == ["/data/q", "/data/a", "/data/b", "-l", "1", "--float32"]
    assert docs.substitute(["--config", "results=/tmp/sim"], files, tmp_path) == ["--config", f"results={tmp_path}/sim"]
    assert docs.segments(["rm", "-rf", "/x", "&&", "/usr/bin/time", "-v", "snakemake", "-n"]) == [["snakemake", "-n"]]
    assert docs.check_pip(["pip", "install", ".[slurm]"]) is None
    assert "no extra nope" in docs.check_pip(["pip", "install", ".[nope]"])


def test_a_target_after_configfile_and_a_renamed_option_fail_the_check(tmp_path):
    """The README's lexiprecision command as it was (Snakemake 9's --configfile takes several
    values and swallows the target) and an option reeval does not have both fail."""
    needs_shared_data()
    page = tmp_path / "page.md"
    page.write_text("Two commands:\n\n"
                    "    snakemake --cores 2 --configfile config/lexiprecision-paper.yaml \\\n"
                    "        results/lexiprecision-paper/lexiprecision/paper_comparison.csv  # the tables\n"
                    "    reeval score QRELS RUN --no-such-option\n")
    commands = docs.page_commands(page)
    assert len(commands) == 2
    failures = docs.run_page(commands, tmp_path / "copy")
    assert len(failures) == 2, failures
    assert "paper_comparison.csv" in failures[0] and "--no-such-option" in failures[1]
