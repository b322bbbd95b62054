"""What a workflow run prints: one line per finished job, then the run's closing lines.

A Snakemake logger plugin (``--logger reeval``; the workflow profile ``profiles/default``
sets it for every command run in the project folder). Snakemake's own output prints each
job's rule, its 20-40 input and output paths twice and a reason; this handler prints, per
finished job, one line with Snakemake's progress::

    [ 7/24] ingest syn-graded  2.1 s

and leaves everything else as Snakemake writes it: warnings and errors, "Nothing to be
done", the closing lines the Snakefile's ``onsuccess``/``onerror`` give
(:mod:`reeval.workflow.closing`), the path of the complete log. A failed job prints its
rule, wildcards and log path, and the log's last :data:`LOG_TAIL` lines. Dropped: the
banner, the resources, the scheduler's "Select jobs to execute...", each job's file lists
(all of them still in ``.snakemake/log/``, which Snakemake writes in full as before).

A dry run (``-n``), ``--verbose`` and ``--debug-dag`` print exactly what Snakemake prints
without the plugin; ``--quiet`` hides what it hides there.

Everything it prints goes through :func:`reeval.report.escape.console_text`: an ESC, BEL
or bidi control in a file name, a log line or a message shows as ``\\x1b``, ``\\x07``,
``\\u202e`` (lines and tabs kept).
"""

from __future__ import annotations

import logging
import re
import sys
from collections import deque

from snakemake_interface_logger_plugins.base import LogHandlerBase
from snakemake_interface_logger_plugins.common import LogEvent

from reeval.report.escape import console_text

#: lines of a failed job's log shown below its error
LOG_TAIL = 15

#: event-less INFO messages of Snakemake that say nothing a user acts on (prefixes)
CHATTER = ("Building DAG of jobs", "Using shell:", "Provided cores:", "Provided remote nodes:",
           "Provided resources:", "Rules claiming more threads", "Select jobs to execute",
           "Conda environments: ignored", "Singularity containers: ignored", "Group jobs: inactive",
           "DAG of jobs will be updated", "Assuming unrestricted shared filesystem",
           "Updating checkpoint dependencies", "Waiting for more resources",
           "Updating job ", "Updating job stats", "Retrieving input from storage",
           "Storing output in storage", "Removing temporary output")
#: events that never print (their content is in the complete log)
SILENT = {LogEvent.WORKFLOW_STARTED, LogEvent.RESOURCES_INFO, LogEvent.SHELLCMD, LogEvent.JOB_STARTED,
          LogEvent.RULEGRAPH, LogEvent.DEBUG_DAG}


def job_line(done: int, total: int, rule: str, wildcards: dict, seconds: float | None) -> str:
    """``[ 7/24] ingest syn-graded  2.1 s``: progress, rule, wildcard values, wall time."""
    width = len(str(total))
    what = " ".join([rule, *map(str, wildcards.values())])
    took = f"  {seconds:.1f} s" if seconds is not None else ""
    return f"[{done:>{width}}/{total}] {what}{took}"


def duration(seconds: float) -> str:
    """A duration as a person says it: ``0.4 s``, ``42 s``, ``12 min 20 s``, ``2 h 05 min``."""
    s = round(seconds, 1) if seconds < 10 else round(seconds)
    if s < 60:
        return f"{s:g} s"
    m, s = divmod(int(s), 60)
    if m < 60:
        return f"{m} min {s:02d} s" if s else f"{m} min"
    h, m = divmod(m, 60)
    return f"{h} h {m:02d} min"


#: Snakemake's closing "Elapsed time: 0:12:19.501701" (a datetime.timedelta printed raw)
ELAPSED = re.compile(r"^Elapsed time: (?:(\d+) days?, )?(\d+):(\d\d):(\d\d(?:\.\d+)?)$")


def humane(message: str) -> str:
    """``message`` with Snakemake's raw elapsed time (:data:`ELAPSED`) said in
    :func:`duration`'s words; any other message unchanged."""
    m = ELAPSED.match(message.strip())
    if not m:
        return message
    days, h, mins, sec = m.groups()
    return f"Elapsed time: {duration(((int(days or 0) * 24 + int(h)) * 60 + int(mins)) * 60 + float(sec))}"


def plan_line(stats: dict) -> str:
    """The jobs to run on one line, largest rules first: ``24 jobs: 3 ingest, 3 measures, ...``
    (Snakemake prints them as a table of one line per rule)."""
    counts = {rule: n for rule, n in stats.items() if rule != "total"}
    total = stats.get("total", sum(counts.values()))
    parts = [f"{n} {rule}" for rule, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    return f"{total} job{'' if total == 1 else 's'} to run: " + ", ".join(parts)


def log_tail(path, n: int = LOG_TAIL) -> list[str]:
    """The last ``n`` lines of a log file, or one line saying why there are none."""
    try:
        with open(path, errors="replace") as fh:
            lines = deque(fh, maxlen=n)
    except OSError as exc:
        return [f"(cannot read {path}: {exc.strerror or exc})"]
    return [line.rstrip("\n") for line in lines] or ["(the log is empty)"]


def error_lines(info: dict) -> list[str]:
    """A failed job: its rule, wildcards and job id, any message, each log's path and last lines."""
    wildcards = ", ".join(f"{k}={v}" for k, v in (info.get("wildcards") or {}).items())
    lines = [f"Error in rule {info['rule_name']}" + (f" ({wildcards})" if wildcards else "")
             + f", job {info['jobid']}:"]
    if info.get("rule_msg"):
        lines.append(f"    message: {info['rule_msg']}")
    for key, value in (info.get("aux") or {}).items():
        lines.append(f"    {key}: {value}")
    for log in info.get("log") or []:
        tail = log_tail(log)
        lines.append(f"    log: {log} (its last {len(tail)} lines:)")
        lines += [f"    | {line}" for line in tail]
    if not info.get("log"):
        lines.append("    (this rule has no log; the complete log is named below)")
    return lines


class LogHandler(LogHandlerBase):
    """The console handler (see the module docstring)."""

    def __post_init__(self) -> None:
        from snakemake.logging import DefaultFilter, DefaultFormatter

        cs = self.common_settings
        self.stream = sys.stdout if getattr(cs, "stdout", False) else sys.stderr
        self.as_snakemake = bool(cs.dryrun or cs.verbose or cs.debug_dag)
        self.default_filter = DefaultFilter(cs.quiet, cs.debug_dag, cs.verbose, cs.dryrun, cs.printshellcmds)
        self.default = DefaultFormatter(cs.quiet, cs.show_failed_logs)
        self.jobs: dict = {}  # jobid -> (rule, wildcards, started)
        self.finished: deque = deque()  # job ids finished, waiting for their progress record

    @property
    def writes_to_stream(self) -> bool:
        return True

    @property
    def writes_to_file(self) -> bool:
        return False

    @property
    def has_filter(self) -> bool:
        return True

    @property
    def has_formatter(self) -> bool:
        return True

    @property
    def needs_rulegraph(self) -> bool:
        return False

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = self.text(record)
            if text:  # a name in it (a run's file, a log line) sends the terminal no command
                self.stream.write(console_text(text) + "\n")
                self.stream.flush()
        except Exception:
            self.handleError(record)

    def text(self, record: logging.LogRecord) -> str | None:
        """What to print for a record (None: nothing). Snakemake's ``--quiet`` choices hide
        what they hide without the plugin."""
        event = getattr(record, "event", None)
        if event == LogEvent.JOB_INFO and not self.as_snakemake:
            self.jobs[record.jobid] = (record.rule_name, dict(record.wildcards or {}), record.created)
            return None
        if event == LogEvent.JOB_FINISHED and not self.as_snakemake:
            self.finished.append(record.job_id)
            return None
        if not self.default_filter.filter(record):
            return None
        if self.as_snakemake:
            return self.default.format(record)
        if event == LogEvent.PROGRESS:
            return self.progress(record)
        if event == LogEvent.JOB_ERROR:  # its wildcards: from the job's info, recorded when it started
            info = dict(record.__dict__)
            info.setdefault("wildcards", self.jobs.get(info.get("jobid"), (None, {}))[1])
            return "\n".join(error_lines(info))
        if event == LogEvent.RUN_INFO:
            stats = getattr(record, "stats", None)
            return plan_line(stats) if stats else None
        if event in SILENT:
            return None
        if record.levelno >= logging.WARNING or event is not None:
            return self.default.format(record)
        message = record.getMessage() if record.msg is not None else ""
        if not message.strip() or message.lstrip().startswith(CHATTER):
            return None
        return humane(message)

    def progress(self, record) -> str | None:
        """The line of the job that just finished, with Snakemake's count of jobs done."""
        if not self.finished:
            return None
        jobid = self.finished.popleft()
        rule, wildcards, started = self.jobs.pop(jobid, (f"job {jobid}", {}, None))
        seconds = record.created - started if started is not None else None
        return job_line(record.done, record.total, rule, wildcards, seconds)

