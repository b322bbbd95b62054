"""The tests' Snakemake runs share the project folder, so they take no Snakemake lock
(tests/snakemake_command.py says why); only the folder-lock tests run it as a user does."""
import re
from pathlib import Path

TESTS = Path(__file__).parent
AS_A_USER = {"snakemake_command.py", "test_folder_lock.py", "test_tests_snakemake_runs.py"}


def test_every_test_runs_snakemake_through_the_one_command_without_its_lock():
    own = [path.relative_to(TESTS).as_posix() for path in sorted(TESTS.rglob("*.py"))
           if path.name not in AS_A_USER and re.search(r'"-m",\s*"snakemake"', path.read_text())]
    assert own == []
    assert "--nolock" in (TESTS / "snakemake_command.py").read_text()
