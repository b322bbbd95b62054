"""The shell commands of README.md and docs/*.md, extracted from their code blocks and run as
written (tests/test_documented_commands.py).

Extraction: every line of a fenced (```bash, ```sh, ```console, ```shell) or indented
(4 spaces) code block whose first word, after ``NAME=value`` assignments and timing
wrappers, is a command a user types (``COMMANDS``); lines ending in ``\\`` continue; a
``# comment`` ends a command; in a usage line, ``[RUN ...]`` repetitions are dropped and
other optional parts (``[-l LEVEL]``) given. Output lines, YAML and Python blocks are not commands.

How each command runs, in a copy of the project with ``../shared`` beside it (a fresh
clone's layout), the commands of one page in order (``export`` carries over, ``cd`` within
a code block: each block starts in the project folder; a pipeline runs through bash):

- ``snakemake ...``: as written plus ``-n`` (a dry run: config, schema, DAG and targets
  checked; ``--lint`` and ``--unlock`` run as written);
- ``make TARGET``: ``make -n TARGET`` (``make run`` and ``make test`` install and run for
  minutes; ``make test`` would run this suite inside itself);
- ``benchmarks/*.py``: timing runs of minutes: the script compiles, and every ``--option``
  the command gives appears in its ``--help``;
- ``pip install ".[EXTRA]"``: not run (it installs from the network): EXTRA must be an
  extra of pyproject.toml;
- everything else (``reeval ...``, ``python -m reeval...``, ``cp``, ``mkdocs build``)
  runs as written, after the placeholders of files (``QRELS_PLACEHOLDERS``,
  ``RUN_PLACEHOLDERS``) are replaced by real files of ../shared/data and the others by
  ``PLACEHOLDERS``' values; ``/tmp/...`` becomes a folder of the test's own, ``rm -rf X &&``
  and ``/usr/bin/time -v`` are dropped, ``.venv/bin/X`` is the X of the running
  interpreter's environment.

``NOT_RUN`` lists the few commands that cannot run here, each with its reason.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from conftest import ROOT, SHARED_DATA

#: first words of the lines that are commands (after NAME=value assignments)
COMMANDS = {"make", "snakemake", "reeval", "mkdocs", "pip", "cp", "python", "python3", "cd", "export",
            "source", "rm"}

#: the placeholders of files stand for DL-19 passage's (a small real track): its qrels, and
#: its runs in name order (the index of each placeholder's run)
TRACK = "trec2019-dl-passage"
QRELS_PLACEHOLDERS = ("QRELS", "qrels.txt")
RUN_PLACEHOLDERS = {"RUN": 0, "run.gz": 0, "run1.gz": 0, "runA.gz": 0, "runA": 0,
                    "run2.gz": 1, "runB.gz": 1, "runB": 1, "runC.gz": 2, "runC": 2}
#: the placeholder of an official figures file stands for the track's trec-browser scores
OFFICIAL_PLACEHOLDERS = ("OFFICIAL",)
#: the other placeholders and the values the test gives them
PLACEHOLDERS = {"LEVEL": "1", "N": "2", "your-study.yaml": "config/config.yaml"}

#: commands that cannot run here (matched by a regular expression), with the reason
NOT_RUN = {
    r"^tests/workflow/slurm_cluster\.sh\b": "brings up a SLURM cluster as root with apt-get: make test-slurm runs it",
    r"\s-m pytest\b": "runs files of this test suite, which make test runs (and this test is part of)",
}


@dataclass
class Command:
    """One documented command: its page, line, text as written and words (comments removed)."""

    page: str
    line: int
    text: str
    words: list[str]
    block: int = 0


def code_lines(text: str):
    """(line number, line, block) of every line inside a shell-like fenced block or an
    indented block (4 spaces after a blank line, outside fences); ``block`` counts the
    blocks of the page (a reader copies one block at a time, from the project folder)."""
    lines, fence, indented, blank, block = text.split("\n"), None, False, True, 0
    for number, line in enumerate(lines, 1):
        if line.startswith("```"):
            fence = None if fence is not None else line[3:].strip()
            block += fence is not None
            indented = False
            continue
        if fence is not None:
            if fence in ("bash", "sh", "shell", "console"):
                yield number, line, block
        elif line.startswith("    ") and (blank or indented):
            block += not indented
            indented = True
            yield number, line[4:], block
        elif line.strip():
            indented = False
        blank = not line.strip()


def command_words(words: list[str]) -> list[str]:
    """The words after leading NAME=value assignments and timing wrappers."""
    i = 0
    while i < len(words) and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", words[i]):
        i += 1
    return words[i:]


def is_command(words: list[str]) -> bool:
    """Whether a code line's words start with a command a user types."""
    rest = command_words(words)
    if not rest:
        return False
    first = rest[0].removeprefix(".venv/bin/")
    return first in COMMANDS or bool(re.fullmatch(r"(benchmarks|tests/workflow|scripts)/[\w./-]+", first))


def page_commands(page: Path) -> list[Command]:
    """Every command of a markdown page's code blocks, continuation lines joined."""
    found, pending, start = [], "", 0
    for number, line, block in code_lines(page.read_text()):
        if not pending:
            start = number
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        text, pending = (pending + line).strip(), ""
        try:
            words = shlex.split(optional_parts(text), comments=True)
        except ValueError:
            continue
        if words and is_command(words):
            name = str(page.relative_to(ROOT)) if page.is_relative_to(ROOT) else page.name
            found.append(Command(name, start, text.split(" #")[0].strip(), words, block))
    return found


def documented_pages() -> list[Path]:
    """README.md and every page of docs/."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def not_run_reason(words: list[str]) -> str | None:
    """Why a command is not run here (NOT_RUN), or None."""
    text = shlex.join(command_words(words))
    return next((reason for pattern, reason in NOT_RUN.items() if re.search(pattern, text)), None)


def track_files() -> dict[str, str]:
    """The placeholders' real files: DL-19 passage's qrels, its first three runs and its
    official scores."""
    qrels = sorted((SHARED_DATA / TRACK / "qrels").iterdir())[0]
    runs = sorted((SHARED_DATA / TRACK / "runs").iterdir())
    official = sorted((SHARED_DATA / TRACK / "meta").iterdir())[0]
    return {**{name: str(qrels) for name in QRELS_PLACEHOLDERS},
            **{name: str(official) for name in OFFICIAL_PLACEHOLDERS},
            **{name: str(runs[i]) for name, i in RUN_PLACEHOLDERS.items()}}


def optional_parts(text: str) -> str:
    """A usage line made a command: ``[X ...]`` repetitions dropped, the brackets of other
    optional parts (``[-l LEVEL]``) removed (their contents kept), ``.[extra]`` untouched."""
    text = re.sub(r"(?<=\s)\[[^\[\]]*\.\.\.\]", "", text)
    return re.sub(r"(?<=\s)\[([^\[\]]*)\]", r"\1", text)


def substitute(words: list[str], files: dict[str, str], tmp: Path) -> list[str]:
    """Placeholders replaced (``files``, then PLACEHOLDERS' values that are not files),
    ``/tmp/`` moved to ``tmp``, ``.venv/bin/X`` made the running environment's X."""
    out = []
    for word in words:
        word = files.get(word) or PLACEHOLDERS.get(word, word)
        word = re.sub(r"(^|=)/tmp/", lambda m: f"{m.group(1)}{tmp}/", word)
        out.append(re.sub(r"^\.venv/bin/", f"{Path(sys.executable).parent}/", word))
    return out


def segments(words: list[str]) -> list[list[str]]:
    """A command's parts joined by ``&&``, without ``rm -rf`` parts and timing wrappers."""
    parts, part = [], []
    for word in [*words, "&&"]:
        if word != "&&":
            part.append(word)
            continue
        if part[:2] != ["rm", "-rf"]:
            head = command_words(part)
            lead = part[:len(part) - len(head)]
            if head[:1] == ["/usr/bin/time"]:
                head = head[2:] if head[1:2] == ["-v"] else head[1:]
            parts.append(lead + head)
        part = []
    return parts


def project_copy(base: Path) -> Path:
    """A copy of the project (sources, config, docs, benchmarks; no results, caches or
    environments) at ``base/project`` with ``base/shared`` linked to ../shared."""
    ignore = shutil.ignore_patterns(".git", ".snakemake", ".venv", "results", "results-*", "site", "__pycache__",
                                    ".pytest_cache", ".data", "*.egg-info", ".hypothesis")
    project = base / "project"
    shutil.copytree(ROOT, project, ignore=ignore, symlinks=True)
    (base / "shared").symlink_to(SHARED_DATA.parent)
    return project


def environment(project: Path) -> dict[str, str]:
    """The environment of the commands: the running interpreter's bin/ first on PATH,
    reeval imported from the copy's src/."""
    env = dict(os.environ, PYTHONPATH=str(project / "src"), NO_MKDOCS_2_WARNING="1")
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def run_one(words: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    """Run one command's words (assignments as environment) in the way its kind asks."""
    head = command_words(words)
    env = dict(env, **dict(w.split("=", 1) for w in words[:len(words) - len(head)]))
    name = Path(head[0]).name
    if name == "snakemake" and not {"--lint", "--unlock", "-n", "--dry-run"} & set(head):
        head = [*head, "-n"]
    elif name == "make":
        head = ["make", "-n", *head[1:]]
    elif any(re.search(r"(^|/)benchmarks/[\w-]+\.py$", word) for word in head[:2]):
        return check_benchmark(head, cwd, env)
    head = [*head[:1], *(expanded for word in head[1:] for expanded in globbed(word, cwd))]
    if "|" in head:  # a pipeline: through bash, failing when any of its commands fails
        line = " ".join(w if w == "|" else shlex.quote(w) for w in head)
        return subprocess.run(["bash", "-o", "pipefail", "-c", line], cwd=cwd, env=env, capture_output=True, text=True)
    try:
        return subprocess.run(head, cwd=cwd, env=env, capture_output=True, text=True)
    except OSError as error:  # not a program (a shell builtin, a missing script)
        return subprocess.CompletedProcess(head, 127, "", str(error))


def globbed(word: str, cwd: Path) -> list[str]:
    """A word as the shell expands it: a pattern with ``*`` or ``?`` that names files of
    ``cwd`` becomes those files (sorted), anything else stays as written."""
    import glob

    if not any(c in word for c in "*?"):
        return [word]
    found = sorted(glob.glob(word, root_dir=cwd))
    return found or [word]


def check_benchmark(words: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    """A benchmark command: its script compiles and every ``--option`` it gives is in its ``--help``."""
    script = next(w for w in words if w.endswith(".py"))
    done = subprocess.run([sys.executable, "-m", "py_compile", script], cwd=cwd, env=env, capture_output=True, text=True)
    options = [w.split("=")[0] for w in words if w.startswith("--")]
    if done.returncode or not options:
        return done
    helped = subprocess.run([sys.executable, script, "--help"], cwd=cwd, env=env, capture_output=True, text=True)
    missing = [o for o in options if not re.search(rf"{re.escape(o)}\b", helped.stdout)]
    if missing and not helped.returncode:
        helped.returncode, helped.stderr = 1, f"{script} --help does not offer {', '.join(missing)}\n" + helped.stderr
    return helped


def check_pip(words: list[str]) -> str | None:
    """``pip install ".[extra,...]"``: None when every extra is in pyproject.toml, else why not."""
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    named = [e for w in words for m in re.finditer(r"\.\[([\w,-]+)\]", w) for e in m.group(1).split(",")]
    unknown = [e for e in named if e not in extras]
    return f"pyproject.toml has no extra {', '.join(unknown)}" if unknown else None


def run_page(commands: list[Command], base: Path) -> list[str]:
    """Run a page's commands in order in a fresh project copy; a line per failure."""
    project = project_copy(base)
    files, cwd, env, failures, block = track_files(), project, environment(project), [], None
    for command in commands:
        if not_run_reason(command.words):
            continue
        if command.block != block:  # each code block starts in the project folder
            cwd, block = project, command.block
        words = substitute(command.words, files, base)
        for part in segments(words):
            head = command_words(part)
            if head[0] == "cd":
                cwd = (cwd / head[1]).resolve()
                continue
            if head[0] == "export":
                env.update(w.split("=", 1) for w in head[1:])
                continue
            if head[0] == "pip":
                problem = check_pip(head)
                done = subprocess.CompletedProcess(head, int(bool(problem)), "", problem or "")
            else:
                done = run_one(part, cwd, env)
            if done.returncode != 0:
                output = (done.stderr + done.stdout).strip()[-1500:]
                failures.append(f"{command.page}:{command.line}: `{' '.join(command.text.split())}` exited "
                                f"{done.returncode}: {output}")
                break
    return failures
