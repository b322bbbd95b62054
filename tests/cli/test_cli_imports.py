"""A command imports only what it needs (issue 15): the modules each one loads.

Counted in a fresh interpreter (a subprocess), because this test process has imported
everything already. No timing: what is checked is which modules were loaded.
"""

import json
import os
import subprocess
import sys

import pytest

from conftest import write_lines
from reeval.io import compiled

HEAVY = ("scipy", "matplotlib", "snakemake", "pandas", "pyarrow", "yaml", "requests")


def loaded_after(code: str) -> set:
    """The heavy top-level modules loaded by running ``code`` in a new interpreter."""
    probe = (f"{code}\nimport json, sys\n"
             f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY)!r})))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return set(json.loads(out.splitlines()[-1]))


def test_importing_the_cli_and_asking_for_help_loads_nothing_heavy():
    assert loaded_after("import reeval.cli") == set()
    code = ("from reeval.cli import main\n"
            "for argv in (['--help'], ['score', '--help'], ['compare', '--help'], ['prefer', '--help']):\n"
            "    try:\n        main(argv)\n    except SystemExit:\n        pass")
    assert loaded_after(code) == set()


@pytest.mark.skipif(compiled.kernels() is None or not hasattr(compiled.kernels(), "parse_qrels"),
                    reason="the compiled readers keep pyarrow and pandas out of `score` (not built here)")
def test_score_on_clean_files_loads_neither_pandas_nor_pyarrow_nor_scipy(tmp_path):
    q = write_lines(tmp_path / "qrels", [f"{t} 0 D{d} {d % 3}" for t in (1, 2) for d in range(9)])
    r = write_lines(tmp_path / "run", [f"{t} Q0 D{d} {d} {1 / (d + 1):.4f} tag" for t in (1, 2, 3) for d in range(12)])
    code = (f"from reeval.cli import main\n"
            f"assert main(['score', '-q', '-c', '-m', 'official', '-m', 'ndcg_cut.10', '-m', 'ASL@g1-10', "
            f"{str(q)!r}, {str(r)!r}]) == 0")
    assert loaded_after(code) == set()


def test_compare_loads_scipy_but_not_matplotlib_or_snakemake(tmp_path):
    q = write_lines(tmp_path / "qrels", [f"{t} 0 D{d} {d % 2}" for t in range(1, 6) for d in range(6)])
    a = write_lines(tmp_path / "a", [f"{t} Q0 D{d} {d} {d}.5 a" for t in range(1, 6) for d in range(6)])
    b = write_lines(tmp_path / "b", [f"{t} Q0 D{d} {d} {6 - d}.5 b" for t in range(1, 6) for d in range(6)])
    loaded = loaded_after(f"from reeval.cli import main\nmain(['compare', {str(q)!r}, {str(a)!r}, {str(b)!r}])")
    assert "scipy" in loaded and not loaded & {"matplotlib", "snakemake", "yaml", "requests"}


def test_the_console_script_keeps_openblas_to_one_thread_and_the_collector_off(monkeypatch):
    """``reeval`` (cli.run) sets OPENBLAS_NUM_THREADS=1 unless the user chose a value, and
    switches the cycle collector off; cli.main, which tests and programs call, changes neither."""
    import gc

    from reeval import cli
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    monkeypatch.setattr(sys, "argv", ["reeval", "--version"])
    try:
        with pytest.raises(SystemExit):
            cli.run()
        assert (gc.isenabled(), os.environ["OPENBLAS_NUM_THREADS"]) == (False, "1")
        gc.enable()
        monkeypatch.setenv("OPENBLAS_NUM_THREADS", "4")
        cli.process_settings()
        assert os.environ["OPENBLAS_NUM_THREADS"] == "4"
        gc.enable()
        monkeypatch.delenv("OPENBLAS_NUM_THREADS")
        with pytest.raises(SystemExit):
            cli.main(["--version"])
        assert gc.isenabled() and "OPENBLAS_NUM_THREADS" not in os.environ
    finally:
        gc.enable()


def reeval_modules_after(code: str) -> set:
    """The reeval.cli and reeval.measures submodules loaded by running ``code`` in a new interpreter."""
    probe = (f"{code}\nimport json, sys\n"
             "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('reeval.cli.', 'reeval.measures.')))))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return set(json.loads(out.splitlines()[-1]))


FAMILY_MODULES = {f"reeval.measures.{m}" for m in
                  ("classic", "interpolated", "graded", "setbased", "judgments", "asl", "rareness", "textbook",
                   "vocabulary")}


def test_score_m_map_imports_one_command_and_one_measure_family_module(tmp_path):
    """Issue 34 item 11: ``reeval score -m map`` imports the score command and classic.py
    (where map is defined), not the other commands nor graded, setbased ... vocabulary."""
    q = write_lines(tmp_path / "qrels", [f"{t} 0 D{d} {d % 3}" for t in (1, 2) for d in range(9)])
    r = write_lines(tmp_path / "run", [f"{t} Q0 D{d} {d} {1 / (d + 1):.4f} tag" for t in (1, 2) for d in range(12)])
    loaded = reeval_modules_after(f"from reeval.cli import main\nassert main(['score', '-m', 'map', {str(q)!r}, "
                                  f"{str(r)!r}]) == 0")
    assert loaded & FAMILY_MODULES == {"reeval.measures.classic"}
    assert {m for m in loaded if m.startswith("reeval.cli.")} == {"reeval.cli.app", "reeval.cli.options",
                                                                  "reeval.cli.score"}
    graded = reeval_modules_after(f"from reeval.cli import main\nmain(['score', '-m', 'ndcg_cut.10', {str(q)!r}, "
                                  f"{str(r)!r}])")
    assert graded & FAMILY_MODULES == {f"reeval.measures.{m}" for m in ("classic", "interpolated", "graded")}


def test_the_registry_s_order_does_not_depend_on_which_family_module_is_imported_first():
    """Importing asl.py first imports the modules before it first: the registry lists the
    families in the same order as when everything is imported in order."""
    code = ("import reeval.measures.{first}\nfrom reeval.measures import REGISTRY\n"
            "print(','.join(REGISTRY))")
    orders = {first: subprocess.run([sys.executable, "-c", code.format(first=first)], capture_output=True,
                                    text=True, check=True).stdout.strip()
              for first in ("classic", "asl", "vocabulary", "graded")}
    assert len(set(orders.values())) == 1, orders
    families = orders["classic"].split(",")
    assert families.index("ndcg") < families.index("ASL") < families.index("P_rareness")


def test_an_unknown_name_is_answered_from_every_family_even_when_few_are_imported():
    """The accepted-names message and the suggestions see the whole registry, in its
    order, though parsing `map` imported classic.py alone."""
    code = ("from reeval.measures import parse_measure, accepted_names\nparse_measure('map')\n"
            "try:\n    parse_measure('ndcg_cutt')\nexcept ValueError as e:\n    print(e)\nprint(accepted_names())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    message, names = out.splitlines()
    assert "'ndcg_cut'" in message
    order = [names.split(", ").index(n) for n in ("map", "ndcg", "ASL", "P_rareness", "fallout", "AP(rel=n)")]
    assert order == sorted(order)


#: modules `reeval score` on one run file does without: the thread pool (and logging, which
#: it imports), pathlib, hashlib (OpenSSL), html, difflib, and the ir_measures names' module
#: (with every measure family) for a trec_eval name with a capital (P_20)
NOT_FOR_ONE_RUN = {"concurrent.futures", "logging", "pathlib", "hashlib", "html", "difflib",
                   "reeval.measures.vocabulary", "reeval.measures.graded", "reeval.measures.asl"}


def test_score_on_one_run_imports_no_thread_pool_pathlib_hashlib_html_difflib_nor_vocabulary(tmp_path):
    """`reeval score -m map -m P_20 -m recip_rank QRELS RUN` (the comparison with pytrec_eval
    in docs/benchmarks.md) imports none of :data:`NOT_FOR_ONE_RUN`; two runs, read in
    threads, import the pool."""
    q = write_lines(tmp_path / "qrels", [f"{t} 0 D{d} {d % 3}" for t in (1, 2) for d in range(9)])
    r = write_lines(tmp_path / "run", [f"{t} Q0 D{d} {d} {1 / (d + 1):.4f} tag" for t in (1, 2) for d in range(12)])
    s = write_lines(tmp_path / "other", [f"{t} Q0 D{d} {d} {d:.4f} tag" for t in (1, 2) for d in range(12)])

    def loaded(*runs) -> set:
        argv = ["score", "-m", "map", "-m", "P_20", "-m", "recip_rank", str(q), *map(str, runs)]
        code = (f"from reeval.cli import main\nimport json, sys\nassert main({argv!r}) == 0\n"
                f"print(json.dumps(sorted(set(sys.modules) & {NOT_FOR_ONE_RUN!r})))")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        return set(json.loads(out.splitlines()[-1]))

    assert loaded(r) == set()
    assert {"concurrent.futures", "logging"} <= loaded(r, s)  # the probe sees them where they are used


def test_the_console_script_ends_score_without_teardown_its_output_and_status_whole(tmp_path):
    """`reeval score` (cli.run) flushes its output and ends the process at once: an atexit
    function does not run (the interpreter's teardown is skipped), the lines and the exit
    status are those of main; another command ends as usual."""
    q = write_lines(tmp_path / "qrels", [f"1 0 D{d} {d % 2}" for d in range(6)])
    r = write_lines(tmp_path / "run", [f"1 Q0 D{d} {d} {6 - d} tag" for d in range(6)])
    code = ("import atexit, sys\nfrom reeval.cli import run\n"
            "atexit.register(lambda: print('teardown', file=sys.stderr))\n"
            "sys.argv = ['reeval'] + sys.argv[1:]\nsys.exit(run())")

    def console(*argv):
        return subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True)

    done = console("score", "-m", "map", "-m", "P_20", str(q), str(r))
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "map                   \tall\t0.5000\nP_20                  \tall\t0.1500\n"
    failed = console("score", "-m", "map", str(q), str(tmp_path / "missing"))
    assert failed.returncode == 1 and failed.stdout == "" and "teardown" not in failed.stderr
    assert failed.stderr.startswith("reeval: ") and "missing" in failed.stderr
    listed = console("measures", "--help")
    assert listed.returncode == 0 and listed.stderr == "teardown\n"
