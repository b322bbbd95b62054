"""The fixed CPU cost of a workflow job, part by part, for each per-track rule script.

    PYTHONPATH=src .venv/bin/python benchmarks/job_fixed_cost.py [--repeat 9] [--scripts ingest measures]

A ``script:`` job of Snakemake is a new Python process that runs Snakemake's preamble (it
imports ``snakemake.logging`` and ``snakemake.iocontainers`` and unpickles the job's
``snakemake`` object, which imports ``snakemake.io``), then the rule script: its imports
(the lines before ``sm = snakemake``, as tests/workflow/test_workflow_imports.py reads them)
and its body. For each script this prints the user + system CPU seconds (median and minimum
of ``--repeat`` processes, run interleaved, each measured by ``os.wait4``) of:

  interpreter   ``python -c pass``
  preamble      the preamble's imports (``snakemake.logging``, ``snakemake.iocontainers``, ``snakemake.io``)
  imports       the script's imports, scripts/ and src/ on the path
  both          preamble + imports: what a job costs before its body runs
  third-party   numpy, pyarrow (parquet, compute), pandas and yaml alone (what the imports load
                besides reeval's own modules: most of "imports")

and, measured inside one process (``time.process_time``): ``reeval own``, the CPU of the
script's imports once the third-party libraries are loaded (reeval's modules, bytecode
cached), and ``compile``, what compiling those modules' sources takes, which every job pays
again where ``PYTHONDONTWRITEBYTECODE`` is set and no bytecode was written before (some
containers and sandboxes set it). The processes here run without that variable.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ("synthetic_track", "ingest", "measures", "analyses", "reusability")
PREAMBLE = "import pickle\nfrom snakemake.logging import logger\nfrom snakemake.iocontainers import Snakemake\nimport snakemake.io\n"
THIRD_PARTY = "import numpy, pyarrow, pyarrow.parquet, pyarrow.compute, pandas, yaml, logging, pathlib\n"
PATHS = f"import sys\nsys.path[:0] = [{str(ROOT / 'scripts')!r}, {str(ROOT / 'src')!r}]\n"

#: run inside one process: reeval's own import CPU and the compile CPU of its sources
SHARE = PATHS + THIRD_PARTY + r'''
import time
before = set(sys.modules)
t = time.process_time()
exec(compile(IMPORTS, "<imports>", "exec"))
own = time.process_time() - t
files = [m.__file__ for name, m in list(sys.modules.items()) if name not in before
         and (name.startswith("reeval") or name == "_log") and str(getattr(m, "__file__", "")).endswith(".py")]
t = time.process_time()
for f in files:
    compile(open(f).read(), f, "exec")
print(len(files), own, time.process_time() - t)
'''


def imports_of(script: str) -> str:
    """The lines of ``scripts/<script>.py`` before its body (``sm = snakemake``)."""
    text = (ROOT / "scripts" / f"{script}.py").read_text()
    return text[:text.index("sm = snakemake")]


def cpu_of(code: str, env: dict) -> float:
    """User + system CPU seconds of ``python -c code`` in a new process."""
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, env=env, cwd=ROOT)
    _, status, usage = os.wait4(proc.pid, 0)
    if status:
        raise SystemExit(f"the probe failed (status {status}):\n{code}")
    return usage.ru_utime + usage.ru_stime


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=9, help="processes per probe (median and minimum printed)")
    ap.add_argument("--scripts", nargs="+", default=list(SCRIPTS), choices=list(SCRIPTS))
    args = ap.parse_args(argv)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
    probes = {"interpreter": "pass", "preamble": PREAMBLE, "third-party": THIRD_PARTY}
    for script in args.scripts:
        probes[f"{script} imports"] = PATHS + imports_of(script)
        probes[f"{script} both"] = PATHS + PREAMBLE + imports_of(script)
    for code in probes.values():  # untimed: bytecode written where it is missing
        cpu_of(code, env)
    times = {name: [] for name in probes}
    for _ in range(args.repeat):
        for name, code in probes.items():
            times[name].append(cpu_of(code, env))
    print(f"CPU seconds per process, median (min) of {args.repeat}")
    for name, values in times.items():
        print(f"  {name:24s} {statistics.median(values):.3f} ({min(values):.3f})")
    print("reeval's own modules (one process, bytecode cached): modules, import CPU, compile CPU")
    for script in args.scripts:
        out = subprocess.run([sys.executable, "-c", f"IMPORTS = {imports_of(script)!r}\n" + SHARE], env=env,
                             cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
        print(f"  {script:24s} {int(out[0]):3d} modules  import {float(out[1]):.3f} s  compile {float(out[2]):.3f} s")


if __name__ == "__main__":
    main()
