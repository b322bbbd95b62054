"""Figures drawn by forked workers, step by step (reeval.report.figure_workers): the same
bytes as drawn in the caller, at most n at once, every error raised when the pool ends."""

import os
import re
from pathlib import Path

import pytest

from pdffigures import figure_facts

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the workers are forked (POSIX only)")


def _draw(k: int, path_stem, small: bool = False) -> None:
    from reeval.report.figures import figure_style, new_figure, save_figure_pair

    with figure_style():
        fig, ax = new_figure("column")
        ax.plot(range(k + 3), [(i * 7 + k) % 5 for i in range(k + 3)], label=f"run {k}")
        ax.set_title(f"figure {k}", fontsize=6 if small else None)  # 6 pt: refused by the saver
        ax.set_xlabel(r"recall level $i$ of $\Delta RR_i$")
        ax.legend()
        save_figure_pair(fig, path_stem)


def test_figures_drawn_by_workers_are_the_bytes_the_caller_writes(tmp_path):
    from reeval.report.figure_workers import hand_off, in_worker, worker_pool

    def step(k, folder):  # a step of two figures
        _draw(k, tmp_path / folder / f"f{k}")
        _draw(k + 4, tmp_path / folder / f"f{k + 4}")

    for k in range(3):
        in_worker(lambda k=k: step(k, "serial"), f"step {k}")  # no pool: drawn here
    parent = os.getpid()
    with worker_pool(2):
        for k in range(3):
            in_worker(lambda k=k: step(k, "workers"), f"step {k}")
            assert os.getpid() == parent  # the caller goes on; the worker drew the step
    assert hand_off(lambda: None, "x") is False  # the pool is closed: a step runs in the caller again
    serial = sorted(p.name for p in (tmp_path / "serial").iterdir())
    assert serial == sorted(p.name for p in (tmp_path / "workers").iterdir()) and len(serial) == 12
    for name in serial:  # PNG and PDF, byte for byte: every file written when the pool ends
        assert (tmp_path / "serial" / name).read_bytes() == (tmp_path / "workers" / name).read_bytes(), name


def test_at_most_n_workers_save_at_once_and_each_is_a_child_process(tmp_path):
    from reeval.report import figure_workers

    def task(k):
        Path(tmp_path / f"{k}.pid").write_text(str(os.getpid()))

    running = []
    submit = figure_workers._Pool.submit

    def counting_submit(pool, *args):
        submit(pool, *args)
        running.append(len(pool.running))

    figure_workers._Pool.submit = counting_submit
    try:
        with figure_workers.worker_pool(2):
            for k in range(5):
                assert figure_workers.hand_off(lambda k=k: task(k), f"t{k}")
    finally:
        figure_workers._Pool.submit = submit
    pids = {int((tmp_path / f"{k}.pid").read_text()) for k in range(5)}
    assert os.getpid() not in pids and len(pids) == 5
    assert max(running) == 2  # the caller waited for one to end before forking a third
    with figure_workers.worker_pool(1):  # one worker: no pool, the caller saves
        assert figure_workers.hand_off(lambda: None, "x") is False


def test_a_refused_figure_in_a_worker_fails_the_pool_naming_its_step_after_the_others_are_drawn(tmp_path):
    from reeval.report.figure_workers import FigureWorkerError, in_worker, worker_pool

    message = re.escape(f"the bad step: FigureError: {tmp_path / 'bad.png'}: ") + ".*under 7 pt"
    with pytest.raises(FigureWorkerError, match=message):
        with worker_pool(2):  # the test suite's STRICT switch: a refused figure raises
            in_worker(lambda: _draw(0, tmp_path / "bad", small=True), "the bad step")
            in_worker(lambda: _draw(1, tmp_path / "good"), "the good step")
    assert (tmp_path / "good.png").is_file() and (tmp_path / "good.pdf").is_file()
    assert not (tmp_path / "bad.png").exists() and not (tmp_path / "bad.pdf").exists()


def test_outside_the_tests_a_workers_refused_figure_is_told_as_in_the_caller(tmp_path, monkeypatch):
    from reeval.report.figure_workers import in_worker, worker_pool
    from reeval.report.figures import STRICT

    monkeypatch.delenv(STRICT)
    with worker_pool(2):
        in_worker(lambda: _draw(0, tmp_path / "bad", small=True), "the bad step")
    text = "".join(t for t, _ in figure_facts(tmp_path / "bad.pdf")["texts"]).replace(" ", "")
    assert "Thisfigurecouldnotbedrawn:textunder7pt" in text and (tmp_path / "bad.png").is_file()


def test_a_worker_that_dies_is_an_error_of_the_pool(tmp_path):
    import signal

    from reeval.report.figure_workers import FigureWorkerError, hand_off, worker_pool

    with pytest.raises(FigureWorkerError, match="^killed: the worker ended by signal 9$"):
        with worker_pool(2):
            hand_off(lambda: os.kill(os.getpid(), signal.SIGKILL), "killed")
            hand_off(lambda: Path(tmp_path / "after").write_text("saved"), "after")
    assert (tmp_path / "after").read_text() == "saved"


def test_the_rule_draws_a_tracks_figures_in_two_threads():
    text = (Path(__file__).resolve().parents[2] / "workflow/rules/track_figures.smk").read_text()
    rule = text[text.index("rule track_figures:"):]
    assert re.search(r"^    threads: 2$", rule, re.M)
    script = (Path(__file__).resolve().parents[2] / "scripts/track_figures.py").read_text()
    assert "worker_pool(sm.threads)" in script and script.count("in_worker(lambda: track_") == 4


def test_the_pool_waits_for_its_own_workers_only(tmp_path):
    """Another child of the process (a subprocess still running) is left to its owner."""
    import subprocess
    import sys

    from reeval.report.figure_workers import hand_off, worker_pool

    import time

    other = subprocess.Popen([sys.executable, "-c", "pass"])  # ends while the workers still run

    def slow_save(k):
        time.sleep(0.5)
        Path(tmp_path / f"{k}").write_text("saved")

    with worker_pool(2):
        for k in range(4):
            hand_off(lambda k=k: slow_save(k), f"t{k}")
    assert other.wait(timeout=30) == 0  # still the Popen's to wait for
    assert sorted(p.name for p in tmp_path.iterdir()) == ["0", "1", "2", "3"]
