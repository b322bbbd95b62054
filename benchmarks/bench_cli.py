"""Whole processes as a user types them: reeval's console script against pytrec_eval, ir_measures, ranx, trec_eval.

Interpreter start and imports included.

    .venv/bin/python benchmarks/bench_cli.py [--repeat 3] [--shapes a,b,c,d,e,help,score-help]
        [--tools reeval,pytrec_eval,ir_measures,ranx,trec_eval[,reeval-f64,reeval-numpy]]
        [--trec-eval PATH] [--markdown]
    .venv/bin/python benchmarks/bench_cli.py --quick          # 1 round, shapes a and d

Every tool runs in its own process, started the way a user starts it, stdout to a file:

  reeval        ``.venv/bin/reeval score --float32 --decimals 20 -m map -m P.20 -m recip_rank
                QRELS RUN...`` (the console script; --float32 orders scores as pytrec_eval and
                trec_eval 9.x do, --decimals 20 prints every double exactly for the comparison)
  reeval-f64    the same without --float32 (reeval's default: documents ordered by their double
                score, as trec_eval 10 does); only with --tools ...,reeval-f64
  reeval-numpy  the same command line with ``REEVAL_KERNELS=0`` in its environment (reeval's
                numpy/pyarrow path, without its compiled kernels); only with --tools ...,reeval-numpy
  pytrec_eval   ``python pytrec_eval_means.py QRELS RUN...``: parse_qrel once, then per run
                parse_run + RelevanceEvaluator.evaluate, means over the topics in sorted order
                (trec_eval's order), files opened with gzip.open when they end in .gz
  ir_measures   ``python ir_measures_means.py QRELS RUN...``: read_trec_qrels, one
                ir_measures.evaluator([AP, P@20, RR]), calc_aggregate(read_trec_run(RUN)) per
                run (ir_measures opens .gz itself)
  ranx          ``python ranx_means.py QRELS RUN...``: Qrels.from_file, per run Run.from_file +
                evaluate(["map", "precision@20", "mrr"], make_comparable=True) (ranx refuses a
                run whose topics differ from the qrels' without it; it then scores a judged topic
                the run misses as 0, as trec_eval -c); kind "gz" or "trec" from the suffix
  trec_eval     ``trec_eval -m map -m P.20 -m recip_rank QRELS RUN`` (with --trec-eval PATH,
                else skipped): one process per run file, as trec_eval reads one run; its time
                and CPU are the sums over those processes, its peak the largest. It cannot read
                gzip, so it always gets decompressed copies

The three script files are written to a temporary folder by this benchmark (see SCRIPTS);
each is python + import + parse the files + evaluate + print the means, nothing else.

Shapes (inputs written or decompressed once under benchmarks/.data/, reused later):

  a           one real run: TREC-COVID round 1 BBGhelani1 and its qrels, decompressed
  b           all 143 runs of TREC-COVID round 1 in one process (trec_eval: 143), decompressed
  c           DL-2019 passages, 37 runs, gzip as shipped; trec_eval alone reads decompressed
              copies (every other tool reads gzip)
  d           ../shared/bench/gen_track.py --runs 20: 20 runs x 250 topics x 1000
  e           the project's benchmark track (python -m reeval.synth.tracks OUT --benchmark
              --seed 1): 50 runs x 250 topics x 1000, about 100 relevant per topic
  help        ``reeval --help`` (reeval only)
  score-help  ``reeval score --help`` (reeval only)

Method: every input file is read once first (page cache), each tool runs once untimed on one
run of the first shape (byte-compiled files, numba's cache), then --repeat rounds: in each
round every tool runs once, in an order rotated by one each round, so that drift of the
machine hits all tools alike. Per shape and tool: median wall time, x reeval (the median of
the per-round ratios to reeval's time in the same round), median CPU time (user + system,
all threads, from os.wait4 on the child), cpu x reeval (the same ratio of CPU times, steadier
than wall time on a busy machine), peak RSS (largest ru_maxrss) and the largest
|difference| of each tool's run means (MAP, P@20, RR) from pytrec_eval's. A difference
above 1e-4 is flagged with the run where it is largest; the exit status is 1 when reeval
disagrees or a tool fails. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import math
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parent
CACHE = HERE / ".data"
SHARED = PROJECT.parent / "shared"
MEASURES = ("map", "P_20", "recip_rank")
LABELS = {"map": "MAP", "P_20": "P@20", "recip_rank": "RR"}
TOLERANCE = 1e-4
ONE_RUN = "BBGhelani1"
REFERENCE = "pytrec_eval"

SCRIPTS = {
    "pytrec_eval": '''\
"""pytrec_eval-terrier on files: MAP, P@20 and RR means of each run, as trec_eval prints them."""
import gzip
import sys

import pytrec_eval


def open_text(path):
    return gzip.open(path, "rt") if path.endswith(".gz") else open(path)


qrels_path, *run_paths = sys.argv[1:]
with open_text(qrels_path) as f:
    qrels = pytrec_eval.parse_qrel(f)
evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_20", "recip_rank"})
for path in run_paths:
    with open_text(path) as f:
        per_topic = evaluator.evaluate(pytrec_eval.parse_run(f))
    topics = sorted(per_topic)  # trec_eval adds the topics in this order
    for m in ("map", "P_20", "recip_rank"):
        print(f"{path}\\t{m}\\tall\\t{sum(per_topic[q][m] for q in topics) / len(topics)!r}")
''',
    "ir_measures": '''\
"""ir_measures on files: MAP, P@20 and RR means of each run."""
import sys

import ir_measures
from ir_measures import AP, P, RR

qrels_path, *run_paths = sys.argv[1:]
evaluator = ir_measures.evaluator([AP, P @ 20, RR], list(ir_measures.read_trec_qrels(qrels_path)))
for path in run_paths:
    means = evaluator.calc_aggregate(ir_measures.read_trec_run(path))
    for m, measure in (("map", AP), ("P_20", P @ 20), ("recip_rank", RR)):
        print(f"{path}\\t{m}\\tall\\t{float(means[measure])!r}")
''',
    "ranx": '''\
"""ranx on files: MAP, P@20 and RR means of each run."""
import sys

from ranx import Qrels, Run, evaluate


def kind(path):
    return "gz" if path.endswith(".gz") else "trec"


qrels_path, *run_paths = sys.argv[1:]
qrels = Qrels.from_file(qrels_path, kind=kind(qrels_path))
for path in run_paths:
    run = Run.from_file(path, kind=kind(path))
    means = evaluate(qrels, run, ["map", "precision@20", "mrr"], make_comparable=True)
    for m, key in (("map", "map"), ("P_20", "precision@20"), ("recip_rank", "mrr")):
        print(f"{path}\\t{m}\\tall\\t{float(means[key])!r}")
''',
}


# ---------------------------------------------------------------- inputs


@dataclasses.dataclass
class Inputs:
    qrels: str
    runs: list


@dataclasses.dataclass
class Shape:
    key: str
    title: str
    native: Inputs | None = None  # as shipped (gzip in shape c); None for the help shapes
    plain: Inputs | None = None   # decompressed, for tools that cannot read gzip
    argv: list | None = None      # the reeval arguments of a help shape


def build_once(out: Path, make) -> Path:
    """``make(tmp)`` fills a fresh folder that is renamed to ``out`` when complete; reused if present."""
    if out.is_dir():
        return out
    tmp = out.with_name(out.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    t = time.perf_counter()
    make(tmp)
    tmp.rename(out)
    print(f"wrote {out.relative_to(PROJECT)} in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    return out


def track_files(d: Path, qrels_glob: str) -> Inputs:
    qrels = sorted(d.glob(qrels_glob))
    runs = sorted(str(p) for p in (d / "runs").iterdir())
    if len(qrels) != 1 or not runs:
        raise SystemExit(f"{d}: expected one qrels file and a runs/ folder")
    return Inputs(str(qrels[0]), runs)


def strip_gz(name: str) -> str:
    return name[:-3] if name.endswith(".gz") else name


def decompressed(track: Path) -> Inputs:
    """Plain copies of a shipped track's qrels and runs under .data/cli/TRACK/ (written once)."""
    def make(tmp: Path):
        for sub in ("qrels", "runs"):
            (tmp / sub).mkdir()
            for src in sorted((track / sub).iterdir()):
                opener = gzip.open if src.name.endswith(".gz") else open
                with opener(src, "rb") as fin, open(tmp / sub / strip_gz(src.name), "wb") as fout:
                    shutil.copyfileobj(fin, fout, 1 << 20)

    return track_files(build_once(CACHE / "cli" / track.name, make), "qrels/*")


def gen_track(gen: Path, runs: int) -> Inputs:
    """../shared/bench/gen_track.py OUT --runs N, run from here (never copied into the project)."""
    def make(tmp: Path):
        subprocess.run([sys.executable, str(gen), str(tmp), "--runs", str(runs)], check=True, stdout=sys.stderr)

    return track_files(build_once(CACHE / "cli" / f"gen_track-{runs}x250x1000", make), "qrels.txt")


def synthetic_track() -> Inputs:
    """``python -m reeval.synth.tracks OUT --benchmark --seed 1`` (the project's benchmark track)."""
    def make(tmp: Path):
        subprocess.run([sys.executable, "-m", "reeval.synth.tracks", str(tmp), "--benchmark", "--seed", "1"],
                       check=True)

    return track_files(build_once(CACHE / "bench-50x250x1000-s1", make), "qrels.txt")


def make_shape(key: str, data: Path, gen: Path) -> Shape | None:
    """The inputs of one shape, prepared on first use; None (with a message) when data are missing."""
    if key == "help":
        return Shape(key, "reeval --help", argv=["--help"])
    if key == "score-help":
        return Shape(key, "reeval score --help", argv=["score", "--help"])
    need = {"a": data / "trec-covid-round1", "b": data / "trec-covid-round1",
            "c": data / "trec2019-dl-passage", "d": gen, "e": PROJECT}[key]
    if not need.exists():
        print(f"shape {key}: skipped, {need} is absent")
        return None
    if key == "a":
        full = decompressed(need)
        one = [p for p in full.runs if Path(p).name == ONE_RUN]
        return Shape(key, f"one TREC-COVID round 1 run ({ONE_RUN}), decompressed",
                     Inputs(full.qrels, one), Inputs(full.qrels, one))
    if key == "b":
        full = decompressed(need)
        return Shape(key, f"TREC-COVID round 1, all {len(full.runs)} runs, decompressed", full, full)
    if key == "c":
        shipped = track_files(need, "qrels/*")
        return Shape(key, f"DL-2019 passages, {len(shipped.runs)} runs, gzip as shipped "
                          "(trec_eval: decompressed copies)", shipped, decompressed(need))
    if key == "d":
        track = gen_track(gen, 20)
        return Shape(key, f"gen_track.py --runs 20: {len(track.runs)} runs x 250 topics x 1000", track, track)
    track = synthetic_track()
    return Shape(key, f"reeval.synth.tracks --benchmark: {len(track.runs)} runs x 250 topics x 1000", track, track)


def warm(shapes) -> None:
    """Read every input once, so that the page cache holds them and no tool pays for the disk."""
    for shape in shapes:
        for inputs in (shape.native, shape.plain):
            for path in [inputs.qrels] + inputs.runs if inputs else []:
                with open(path, "rb") as f:
                    while f.read(1 << 20):
                        pass


def describe(inputs: Inputs) -> str:
    """Runs and size on disk."""
    paths = [inputs.qrels] + inputs.runs
    mb = sum(os.path.getsize(p) for p in paths) / 1e6
    return f"{len(inputs.runs)} run{'s' if len(inputs.runs) > 1 else ''}, {mb:.0f} MB"


# ---------------------------------------------------------------- tools


@dataclasses.dataclass
class Tool:
    name: str
    reads_gzip: bool = True
    must_agree: bool = False  # a difference from pytrec_eval above TOLERANCE makes the exit status 1


TOOLS = {t.name: t for t in (
    Tool("reeval", must_agree=True), Tool("reeval-numpy", must_agree=True), Tool("reeval-f64"),
    Tool("pytrec_eval"), Tool("ir_measures"), Tool("ranx"), Tool("trec_eval", reads_gzip=False))}
DEFAULT_TOOLS = "reeval,pytrec_eval,ir_measures,ranx,trec_eval"
TREC_MEASURES = ["-m", "map", "-m", "P.20", "-m", "recip_rank"]


@dataclasses.dataclass
class Context:
    reeval: str
    trec_eval: str | None
    scripts: Path


def commands(tool: Tool, shape: Shape, ctx: Context) -> list:
    """The command lines that make one timed invocation of ``tool`` on ``shape``."""
    if shape.argv is not None:
        return [[ctx.reeval] + shape.argv]
    inputs = shape.native if tool.reads_gzip else shape.plain
    if tool.name == "trec_eval":
        return [[ctx.trec_eval] + TREC_MEASURES + [inputs.qrels, run] for run in inputs.runs]
    args = ["score", "--float32", "--decimals", "20"] + TREC_MEASURES + [inputs.qrels] + inputs.runs
    if tool.name in ("reeval", "reeval-numpy"):
        return [[ctx.reeval] + args]
    if tool.name == "reeval-f64":
        return [[ctx.reeval] + [a for a in args if a != "--float32"]]
    script = str(ctx.scripts / f"{tool.name.replace('-', '_')}_means.py")
    return [[sys.executable, script, inputs.qrels] + inputs.runs]


def write_scripts(folder: Path) -> None:
    for name, text in SCRIPTS.items():
        (folder / f"{name.replace('-', '_')}_means.py").write_text(text)


# ---------------------------------------------------------------- timing


@dataclasses.dataclass
class Timing:
    wall: float
    cpu: float
    peak_mb: float
    error: str | None
    means: list  # one {measure: value} per run, in the order the runs were given


#: environment variables of a tool's process (added to this process's)
ENVIRONMENT = {"reeval-numpy": {"REEVAL_KERNELS": "0"}}


def run_process(cmd, out_path: Path, err_path: Path, env: dict | None = None):
    """Wall seconds, rusage and exit status of one child; stdout and stderr go to files."""
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        t = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env={**os.environ, **env} if env else None)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage, proc.returncode


def parse_means(text: str) -> list:
    """Run means from trec_eval-style lines: ``[RUN<TAB>]measure<TAB>all<TAB>value``, one dict
    per run in order of appearance (the run is the first field when there are four)."""
    runs: dict = {}
    for line in text.splitlines():
        fields = line.split("\t")
        if len(fields) == 3:
            fields = [""] + fields
        if len(fields) != 4 or fields[2].strip() != "all" or fields[1].strip() not in MEASURES:
            continue
        runs.setdefault(fields[0], {})[fields[1].strip()] = float(fields[3])
    return list(runs.values())


def time_tool(tool: Tool, shape: Shape, ctx: Context, tmp: Path) -> Timing:
    """One timed invocation (for trec_eval: one process per run, summed)."""
    wall = cpu = peak = 0.0
    means: list = []
    for cmd in commands(tool, shape, ctx):
        seconds, usage, status = run_process(cmd, tmp / "stdout", tmp / "stderr", ENVIRONMENT.get(tool.name))
        wall += seconds
        cpu += usage.ru_utime + usage.ru_stime
        peak = max(peak, usage.ru_maxrss / 1024)
        if status != 0:
            tail = (tmp / "stderr").read_text(errors="replace").strip().splitlines()
            return Timing(wall, cpu, peak, f"exit {status}: {tail[-1] if tail else ''}", [])
        means += parse_means((tmp / "stdout").read_text(errors="replace"))
    return Timing(wall, cpu, peak, None, means)


def warm_up(tools, shape: Shape, ctx: Context, tmp: Path) -> None:
    """One untimed run of each tool on one run of ``shape`` (pyc files, numba's cache)."""
    one = dataclasses.replace(shape, native=Inputs(shape.native.qrels, shape.native.runs[:1]),
                              plain=Inputs(shape.plain.qrels, shape.plain.runs[:1]))
    for tool in tools:
        timing = time_tool(tool, one, ctx, tmp)
        if timing.error:
            print(f"warm-up: {tool.name} failed ({timing.error})")


def bench_shape(shape: Shape, tools, ctx: Context, repeat: int, tmp: Path) -> dict:
    """``repeat`` rounds; each round runs every tool once, the order rotated by one each round."""
    timings: dict = {tool.name: [] for tool in tools}
    for r in range(repeat):
        for tool in tools[r % len(tools):] + tools[:r % len(tools)]:
            timings[tool.name].append(time_tool(tool, shape, ctx, tmp))
    return timings


# ---------------------------------------------------------------- report


@dataclasses.dataclass
class Row:
    tool: str
    wall: float
    ratio: float
    cpu: float
    peak_mb: float
    walls: list
    ratios: list
    diffs: dict | None      # measure -> max |diff| from the reference, None without one
    problem: str | None     # failure or disagreement, None when fine
    failed: bool = False    # a round failed, or the means printed are not one per run
    cpu_ratio: float = float("nan")  # median per-round CPU time / reeval's (steadier than wall on a busy machine)


def gap(a: float, b: float) -> float:
    """|a - b|; infinite when one of them is nan (or infinite) and the other is not."""
    if a == b or (math.isnan(a) and math.isnan(b)):
        return 0.0
    d = abs(a - b)
    return math.inf if math.isnan(d) else d


def max_diffs(values: list, reference: list, names: list):
    """Largest |difference| per measure and, for the largest overall, the run and both values."""
    diffs = {}
    worst = (0.0, "")
    for m in MEASURES:
        gaps = [(gap(v[m], r[m]), i) for i, (v, r) in enumerate(zip(values, reference))]
        diffs[m], i = max(gaps)
        if diffs[m] > worst[0]:
            worst = (diffs[m], f"{LABELS[m]} of {names[i]}: {values[i][m]:.6f} vs {reference[i][m]:.6f}")
    return diffs, worst[1]


def summarize(shape: Shape, timings: dict) -> list:
    base = timings.get("reeval", [])
    names = [Path(strip_gz(p)).name for p in shape.native.runs] if shape.native else []
    ref = next((t.means for t in timings.get(REFERENCE, []) if not t.error), None)
    if ref is not None and len(ref) != len(names):
        ref = None  # its own row says what it printed
    rows = []
    for tool, runs in timings.items():
        ok = [t for t in runs if not t.error]
        if not ok:
            rows.append(Row(tool, *[float("nan")] * 4, [], [], None, runs[0].error, True))
            continue
        ratios = [t.wall / b.wall for t, b in zip(runs, base) if not t.error and not b.error]
        cpu_ratios = [t.cpu / b.cpu for t, b in zip(runs, base) if not t.error and not b.error and b.cpu > 0]
        diffs, problem = None, next((t.error for t in runs if t.error), None)
        failed = problem is not None
        if shape.native is not None and (len(ok[0].means) != len(names)
                                         or any(set(v) != set(MEASURES) for v in ok[0].means)):
            problem, failed = problem or f"printed {len(ok[0].means)} runs' means, {len(names)} expected", True
        elif ref is not None and shape.native is not None:
            diffs, worst = max_diffs(ok[0].means, ref, names)
            if max(diffs.values()) > TOLERANCE:
                problem = problem or f"DISAGREES with {REFERENCE} by more than {TOLERANCE:g}: {worst}"
        rows.append(Row(tool, statistics.median(t.wall for t in ok),
                        statistics.median(ratios) if ratios else float("nan"),
                        statistics.median(t.cpu for t in ok), max(t.peak_mb for t in ok),
                        [t.wall for t in runs], ratios, diffs, problem, failed,
                        statistics.median(cpu_ratios) if cpu_ratios else float("nan")))
    return rows


def fmt_diff(x: float) -> str:
    return "0" if x == 0 else f"{x:.1e}"


def fmt_ratio(x: float) -> str:
    return f"{x:.1f}" if x >= 10 else f"{x:.2f}"


#: Why a tool's means may differ from pytrec_eval's (printed under the tables for the tools run).
NOTES = {
    "trec_eval": "prints 4 decimals (differences up to 5e-5 are that rounding); trec_eval 10 "
                 "orders documents by their double score, pytrec_eval and reeval --float32 by the float32 "
                 "one (trec_eval 9.x), which differ where scores differ beyond float32 precision",
    "ranx": "orders tied scores by an unstable argsort, not by docno descending as trec_eval, "
            "and with make_comparable=True it averages over every qrels topic (a judged topic the run "
            "misses counts 0, as trec_eval -c); part of its functions are compiled by numba in every process",
    "reeval-f64": "orders documents by their double score (reeval's default, trec_eval 10), "
                  "pytrec_eval by the float32 one: it differs from pytrec_eval where trec_eval 10 does",
    "reeval-numpy": "reeval's console script with REEVAL_KERNELS=0: its numpy/pyarrow path",
}


def diff_text(row: Row, shape: Shape) -> str:
    if shape.native is None:
        return "-"
    if row.diffs is None:
        return "n/a" if row.problem else f"n/a ({REFERENCE} not run)"
    return ", ".join(fmt_diff(row.diffs[m]) for m in MEASURES)


def print_shape(shape: Shape, rows: list, load: tuple) -> None:
    print(f"\nshape {shape.key}: {shape.title}"
          + (f"; {describe(shape.native)} as read by reeval" if shape.native else ""))
    print(f"load average before / after: {load[0]:.2f} / {load[1]:.2f}")
    print(f"{'tool':<13} {'wall s':>8} {'x reeval':>9} {'cpu s':>8} {'cpu x reeval':>13} {'peak MB':>8}  "
          f"max |diff| from {REFERENCE} ({', '.join(LABELS.values())})")
    for row in rows:
        print(f"{row.tool:<13} {row.wall:>8.3f} {row.ratio:>9.2f} {row.cpu:>8.3f} {row.cpu_ratio:>13.2f} "
              f"{row.peak_mb:>8.0f}  {diff_text(row, shape)}")
    print("  per round: wall s  [x reeval in the same round]")
    for row in rows:
        ratios = f"  [{', '.join(f'{x:.2f}' for x in row.ratios)}]" if row.tool != "reeval" and row.ratios else ""
        print(f"  {row.tool:<13} {', '.join(f'{w:.3f}' for w in row.walls)}{ratios}")
    for row in rows:
        if row.problem:
            print(f"  !! {row.tool}: {row.problem}")


def print_markdown(results: list, command: str, notes: list) -> None:
    print(f"\n`{command}`\n")
    print(f"| shape | tool | median wall s | x reeval | cpu s | cpu x reeval | peak MB | max diff from {REFERENCE} "
          f"({', '.join(LABELS.values())}) |")
    print("|---|---|---|---|---|---|---|---|")
    for shape, rows in results:
        for row in rows:
            diff = diff_text(row, shape) + (" (!)" if row.problem else "")
            print(f"| {shape.key} | {row.tool} | {row.wall:.2f} | {fmt_ratio(row.ratio)} | {row.cpu:.2f} "
                  f"| {fmt_ratio(row.cpu_ratio)} | {row.peak_mb:.0f} | {diff} |")
    print()
    for shape, _ in results:
        print(f"{shape.key}: {shape.title}" + (f" ({describe(shape.native)})" if shape.native else "") + "  ")
    if any(row.problem for _, rows in results for row in rows):
        print(f"(!): more than {TOLERANCE:g} from {REFERENCE}, or failed  ")
    for note in notes:
        print(f"{note}  ")


# ---------------------------------------------------------------- main


def versions(ctx: Context) -> str:
    parts = [f"python {platform.python_version()}", f"{os.cpu_count()} CPUs"]
    for dist in ("reeval", "pytrec-eval-terrier", "ir-measures", "ranx"):
        try:
            parts.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            parts.append(f"{dist} not installed")
    kernels = subprocess.run([sys.executable, "-c", "import reeval.io.compiled as c; print(c.kernels() is not None)"],
                             capture_output=True, text=True).stdout.strip()
    parts.append("compiled kernels " + ("built" if kernels == "True" else "NOT built"))
    if ctx.trec_eval:
        out = subprocess.run([ctx.trec_eval, "-v"], capture_output=True, text=True)
        parts.append((out.stdout + out.stderr).strip())
    return "; ".join(parts)


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=None, help="rounds (default 3; 1 with --quick)")
    ap.add_argument("--shapes", default=None, help="comma-separated, of a,b,c,d,e,help,score-help "
                                                   "(default all; a,d with --quick)")
    ap.add_argument("--tools", default=DEFAULT_TOOLS,
                    help=f"comma-separated, of {','.join(TOOLS)} (default {DEFAULT_TOOLS})")
    ap.add_argument("--trec-eval", metavar="PATH", help="a trec_eval binary (trec_eval is skipped without it)")
    ap.add_argument("--quick", action="store_true", help="1 round, shapes a and d, unless given")
    ap.add_argument("--markdown", action="store_true", help="also print one README-ready table")
    ap.add_argument("--data", type=Path, default=SHARED / "data", help="the real tracks (default ../shared/data)")
    ap.add_argument("--gen-track", type=Path, default=SHARED / "bench" / "gen_track.py",
                    help="the generator of shape d (default ../shared/bench/gen_track.py)")
    ap.add_argument("--reeval", default=str(Path(sys.executable).parent / "reeval"),
                    help="reeval's console script (default: beside this interpreter)")
    args = ap.parse_args(argv)
    args.repeat = args.repeat or (1 if args.quick else 3)
    args.shapes = (args.shapes or ("a,d" if args.quick else "a,b,c,d,e,help,score-help")).split(",")
    args.tools = args.tools.split(",")
    for name in args.tools:
        if name not in TOOLS:
            ap.error(f"unknown tool {name!r}: choose from {', '.join(TOOLS)}")
    for key in args.shapes:
        if key not in ("a", "b", "c", "d", "e", "help", "score-help"):
            ap.error(f"unknown shape {key!r}")
    if "trec_eval" in args.tools and not args.trec_eval:
        print("trec_eval: skipped (give --trec-eval PATH to a trec_eval binary)")
        args.tools.remove("trec_eval")
    if args.trec_eval and not os.access(args.trec_eval, os.X_OK):
        ap.error(f"--trec-eval {args.trec_eval}: not an executable file")
    if not os.access(args.reeval, os.X_OK):
        ap.error(f"--reeval {args.reeval}: not an executable file (run `make install` first)")
    return args


def command_line() -> str:
    python = os.path.relpath(sys.executable) if sys.executable.startswith(os.getcwd()) else sys.executable
    return shlex.join([python] + sys.argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    # children write byte-compiled files, as a user's interpreter does (the warm-up run
    # writes them; some sandboxes set PYTHONDONTWRITEBYTECODE, recompiling every import)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory(prefix="bench_cli-") as folder:
        tmp = Path(folder)
        write_scripts(tmp)
        ctx = Context(args.reeval, args.trec_eval, tmp)
        print(versions(ctx))
        shapes = [s for s in (make_shape(k, args.data, args.gen_track) for k in args.shapes) if s]
        tools = [TOOLS[name] for name in args.tools]
        warm(shapes)
        data_shapes = [s for s in shapes if s.native]
        if data_shapes:
            warm_up(tools, data_shapes[0], ctx, tmp)
        results = []
        for shape in shapes:
            chosen = tools if shape.native else [TOOLS["reeval"]]
            load = os.getloadavg()[0]
            rows = summarize(shape, bench_shape(shape, chosen, ctx, args.repeat, tmp))
            print_shape(shape, rows, (load, os.getloadavg()[0]))
            sys.stdout.flush()
            results.append((shape, rows))
    notes = [f"{name}: {NOTES[name]}" for name in args.tools if name in NOTES]
    print("\n" + "\n".join(notes))
    if args.markdown:
        print_markdown(results, command_line(), notes)
    failed = [f"shape {s.key} {r.tool}: {r.problem}" for s, rows in results for r in rows
              if r.failed or (r.problem and TOOLS[r.tool].must_agree)]
    if failed:
        print("\n" + "\n".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
