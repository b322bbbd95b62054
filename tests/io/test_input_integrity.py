"""Input integrity (issue 14): every input read once as a stream, bad input named in one
line, every drop and every difference from trec_eval said on stderr."""

import bz2
import gzip
import os
import shutil
import subprocess
import sys
import re
import threading
from pathlib import Path

import numpy as np
import pytest

from conftest import track_files, write_lines
from reeval.cli import main
from reeval.errors import InputError
from reeval.io.ingest import ingest_track
from reeval.io.sources import read_source
from reeval.io.trecio import parse_qrels, parse_run, run_names

CLI = [sys.executable, "-m", "reeval.cli"]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out.splitlines(), out.err


def cli(*argv, **kwargs):
    """The command as a user runs it: its own process."""
    return subprocess.run([*CLI, *map(str, argv)], capture_output=True, **kwargs)


@pytest.fixture
def track(tmp_path):
    """Qrels of 3 topics and a 300-line run (100 documents each) whose byte 4096 ends a line."""
    q = write_lines(tmp_path / "qrels", [f"{t} 0 D{t}-{d} {int(d % 3 == 0)}" for t in (1, 2, 3) for d in range(40)])
    lines = [f"{t} Q0 D{t}-{d} {d} {1 - d / 100:.4f} tag" for t in (1, 2, 3) for d in range(100)]
    text = "".join(line + "\n" for line in lines)
    pad = 4095 - len(text.encode()[:4096].rsplit(b"\n", 1)[0])  # longer docno 1: a line ends at byte 4096
    lines[0] = lines[0].replace("D1-0 ", "D1-0" + "x" * pad + " ")
    data = "".join(line + "\n" for line in lines).encode()
    assert data[4095:4096] == b"\n"
    r = tmp_path / "run"
    r.write_bytes(data)
    return q, r


# ---- 1. read once: pipes, stdin, FIFOs, process substitution ----------------------------

def test_a_run_on_stdin_scores_exactly_as_the_file_plain_gzip_and_bzip2(track):
    q, r = track
    want = cli("score", "-q", q, r).stdout
    assert want.count(b"\n") > 30
    data = r.read_bytes()
    for packed in (data, gzip.compress(data), bz2.compress(data)):
        got = cli("score", "-q", q, "/dev/stdin", input=packed)
        assert (got.returncode, got.stdout, got.stderr) == (0, want, b"")


@pytest.mark.parametrize("stdin", ["/dev/stdin", "-"])
def test_qrels_on_stdin_read_whole(track, stdin):
    q, r = track
    want = cli("score", "-q", q, r).stdout
    got = cli("score", "-q", stdin, r, input=gzip.compress(q.read_bytes()))
    assert (got.returncode, got.stdout) == (0, want)


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash for process substitution")
def test_process_substitution_of_a_real_run_loses_nothing():
    qrels, runs = track_files("trec-covid-round4")
    run_path = [r for r in runs if r.endswith("CincyMedIR-7.gz")][0]
    cmd = " ".join([*CLI, "score", "-m", "runid", "-m", "num_ret", "-m", "map", qrels, f"<(zcat {run_path})"])
    got = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True)
    assert got.returncode == 0, got.stderr
    assert got.stdout.splitlines()[1:] == ["num_ret               \tall\t44981",
                                           "map                   \tall\t0.2037"]


def test_a_named_fifo_is_read_once_and_does_not_hang(tmp_path, track):
    q, r = track
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(gzip.compress(r.read_bytes())))
    writer.start()
    got = cli("score", "-q", q, fifo, timeout=300)  # a guard against a hang, not a measurement
    writer.join()
    assert (got.returncode, got.stdout) == (0, cli("score", "-q", q, r).stdout)


def test_read_source_reads_a_pipe_to_its_end_once():
    rd, wr = os.pipe()
    data = b"".join(b"1 Q0 D%d 1 1.0 t\n" % i for i in range(5000))  # 80 KB: more than a pipe holds
    writer = threading.Thread(target=lambda: (os.write(wr, gzip.compress(data)), os.close(wr)))
    writer.start()
    src = read_source(f"/dev/fd/{rd}")
    writer.join()
    os.close(rd)
    assert (bytes(src.data), src.compression) == (data, "gzip")


# ---- 2. broken compressed files: one line naming the file ------------------------------

def _broken(data: bytes) -> dict:
    """Broken compressed copies of ``data``, by the message they must give."""
    gz = gzip.compress(data)
    crc = bytearray(gz)
    crc[-8] ^= 0xFF
    return {"truncated gzip stream": gz[: len(gz) // 2], "truncated bzip2 stream": bz2.compress(data)[:-10],
            "corrupt gzip stream": bytes(crc)}


@pytest.mark.parametrize("command", ["score", "compare", "prefer"])
def test_broken_compressed_runs_and_qrels_are_one_line_naming_the_file(capsys, tmp_path, track, command):
    q, r = track
    for what, data in _broken(r.read_bytes()).items():
        bad = tmp_path / f"bad-{what[:9]}"
        bad.write_bytes(data)
        code, out, err = run(capsys, command, q, r, bad)
        assert (code, out) == (1, []) and err.startswith(f"reeval: {bad}: {what} (") and err.count("\n") == 1
    for what, data in _broken(q.read_bytes()).items():
        bad = tmp_path / f"badq-{what[:9]}"
        bad.write_bytes(data)
        runs = [r] if command == "score" else [r, _copy(r, tmp_path / "run2")]
        code, out, err = run(capsys, command, bad, *runs)
        assert (code, out) == (1, []) and err.startswith(f"reeval: {bad}: {what} (") and err.count("\n") == 1


def _copy(src, dst):
    dst.write_bytes(src.read_bytes())
    return dst


def test_broken_gzip_in_ingest_names_the_file(tmp_path, track):
    q, r = track
    bad = tmp_path / "r.gz"
    bad.write_bytes(gzip.compress(r.read_bytes())[:-3])
    with pytest.raises(InputError, match=f"^{bad}: truncated gzip stream"):
        ingest_track("t", q, [r, bad])


def test_whole_process_prints_no_traceback_for_a_truncated_run(tmp_path, track):
    q, r = track
    bad = tmp_path / "r.gz"
    bad.write_bytes(gzip.compress(r.read_bytes())[:100])
    got = cli("score", q, bad)
    assert got.returncode == 1 and got.stdout == b""
    assert got.stderr.decode().startswith(f"reeval: {bad}: truncated gzip stream (") and got.stderr.count(b"\n") == 1


# ---- 3. what is dropped or read differently is said; empty input is an error ------------

def test_every_drop_and_difference_is_one_note_per_file(capsys, tmp_path):
    q = write_lines(tmp_path / "q", ["1 0 A 1", "1 0 B 0", "1 0 A 2", "", "2 0 C 1"])
    r = tmp_path / "run.gz"
    r.write_bytes(gzip.compress("\ufeff".encode() + b"".join([
        b"1 Q0 A 1 3 first\n", b"1 Q0 A 2 2 first\n", b"1 Q0 B 3 nan first\n",
        b"9 Q0 A 1 1 first\n", b"9 Q0 B 2 1 first\n", b"2 Q0 C 1 1 last\n"])))
    code, out, err = run(capsys, "score", q, r, "-m", "runid", "-m", "num_ret")
    assert code == 0 and out[0] == "runid                 \tall\tlast"  # trec_eval's runid: the last line's tag
    differences = [
        f"reeval: {q}: 1 blank line skipped (trec_eval stops at a blank qrels line); 1 repeated judgment "
        "dropped (the last one kept; trec_eval stops with 'duplicate docs')",
        f"reeval: {r}: a UTF-8 byte-order mark at the start ignored (trec_eval would read it as part of "
        "the first topic id); 1 line with a NaN score dropped (trec_eval would put NaN scores in an "
        "arbitrary place of the ranking); 1 duplicate line dropped (the first in trec_eval order kept; "
        "trec_eval stops with 'duplicate docs')"]
    assert err.splitlines() == differences + [  # what trec_eval reads alike: one line for every file
        "reeval: read as trec_eval reads them: 1 file with lines on topics without judgments (2 lines "
        "dropped); 1 file with several tags (runid shows the last line's)"]
    code, out_verbose, err = run(capsys, "score", "--verbose", q, r, "-m", "runid", "-m", "num_ret")
    assert out_verbose == out and err.splitlines() == differences + [
        f"reeval: {r}: 2 lines on 1 topic without judgments dropped (trec_eval skips those topics too); "
        "2 different tags ('first' first, 'last' last): runid shows the last line's, as trec_eval does"]
    code, out2, err = run(capsys, "score", "--quiet", q, r, "-m", "runid", "-m", "num_ret")
    assert (code, out2, err) == (0, out, "")
    clean_q = write_lines(tmp_path / "clean_q", ["1 0 A 1"])
    code, out, err = run(capsys, "score", clean_q, write_lines(tmp_path / "clean", ["1 Q0 A 1 1 t"]))
    assert code == 0 and err == ""  # nothing to say about a clean file


@pytest.mark.parametrize("content,why", [
    (b"", "empty file"),
    (b"1 Q0 A 1 nan t\n1 Q0 B 2 NaN t\n", "2 lines read: 2 with a NaN score"),
    (b"# only a comment\n\n", "2 lines read: 1 blank, 1 comment"),
])
def test_a_run_that_keeps_nothing_is_an_error(capsys, tmp_path, content, why):
    q = write_lines(tmp_path / "q", ["1 0 A 1"])
    r = tmp_path / "r"
    r.write_bytes(content)
    for command in ("score", "compare", "prefer"):
        other = write_lines(tmp_path / "ok", ["1 Q0 A 1 1 t"])
        code, out, err = run(capsys, command, q, other, r)
        assert (code, out, err) == (1, [], f"reeval: {r}: nothing to evaluate ({why})\n")


def test_dev_null_as_a_run_or_qrels_is_an_error(capsys, tmp_path):
    q = write_lines(tmp_path / "q", ["1 0 A 1"])
    r = write_lines(tmp_path / "r", ["1 Q0 A 1 1 t"])
    assert run(capsys, "score", q, "/dev/null") == (1, [], "reeval: /dev/null: nothing to evaluate (empty file)\n")
    for command, runs in (("score", [r]), ("compare", [r, _copy(r, tmp_path / "r2")]),
                          ("prefer", [r, tmp_path / "r2"])):
        assert run(capsys, command, "/dev/null", *runs) == (
            1, [], "reeval: /dev/null: no judgment to evaluate with (empty file)\n")


def test_infinite_and_overflowing_scores_are_kept_and_ordered_as_trec_eval(capsys, tmp_path):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(7)
    scores = ["inf", "-inf", "1e400", "-1e400", "Infinity", "2.5", "0", "-1"]
    lines, run_dict = [], {}
    for t in range(1, 5):
        for d in range(50):
            s = scores[rng.integers(len(scores))]
            lines.append(f"{t} Q0 D{d:02d} {d} {s} t")
            run_dict.setdefault(str(t), {})[f"D{d:02d}"] = float(s)
    r = write_lines(tmp_path / "r", lines)
    qrels = {str(t): {f"D{d:02d}": int(rng.integers(0, 3)) for d in range(0, 60, 2)} for t in range(1, 5)}
    q = write_lines(tmp_path / "q", [f"{t} 0 {d} {g}" for t, docs in qrels.items() for d, g in docs.items()])
    code, out, err = run(capsys, "score", "-q", "--float32", q, r, "-m", "num_ret", "-m", "map",
                         "-m", "P.5", "-m", "recip_rank", "--decimals", "12")
    assert code == 0 and err == ""
    got = {(m.strip(), t): float(v) for m, t, v in (l.split("\t") for l in out) if m.strip() != "runid"}
    assert got[("num_ret", "all")] == 200  # trec_eval keeps all 200 lines
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_5", "recip_rank"}).evaluate(run_dict)
    for t, values in ref.items():
        for m, v in values.items():
            assert got[(m, t)] == pytest.approx(v, abs=1e-12), (m, t)


# ---- 5. runs with the same file name ----------------------------------------------------

def test_run_names_take_the_shortest_distinguishing_suffix(tmp_path):
    for folder in ("exp1", "exp2", "x/exp1"):
        (tmp_path / folder).mkdir(parents=True)
    paths = [tmp_path / "exp1/run.txt", tmp_path / "exp2/run.txt", tmp_path / "x/exp1/run.txt",
             tmp_path / "exp2/input.other.gz", tmp_path / "exp2/run.txt.gz", tmp_path / "solo"]
    for p in paths:
        p.write_text("1 Q0 A 1 1 t\n")
    assert run_names(paths) == [f"{tmp_path.name}/exp1/run.txt", "exp2/run.txt", "x/exp1/run.txt",
                                "other", "run.txt.gz", "solo"]
    with pytest.raises(InputError, match="given twice"):
        run_names([paths[0], tmp_path / "exp1" / ".." / "exp1" / "run.txt"])


def test_same_file_names_in_two_folders_score_side_by_side(capsys, tmp_path):
    q = write_lines(tmp_path / "q", ["1 0 A 1"])
    for folder, doc in (("exp1", "A"), ("exp2", "B")):
        (tmp_path / folder).mkdir()
        write_lines(tmp_path / folder / "run.txt", [f"1 Q0 {doc} 1 1 t"])
    code, out, _ = run(capsys, "score", q, tmp_path / "exp1/run.txt", tmp_path / "exp2/run.txt", "-m", "map")
    assert code == 0 and [l for l in out if "map" in l] == ["exp1/run.txt\tmap                   \tall\t1.0000",
                                                           "exp2/run.txt\tmap                   \tall\t0.0000"]


# ---- 7. ids are bytes ---------------------------------------------------------------------

def test_raw_bytes_never_match_their_escaped_text(capsys, tmp_path):
    q = tmp_path / "q"
    q.write_bytes(b"1 0 d\\xe9j 1\n1 0 raw\xe9 1\n")  # the text d\xe9j, and the bytes r a w E9
    r = tmp_path / "r"
    r.write_bytes(b"1 Q0 d\xe9j 1 2 t\n1 Q0 raw\\xe9 2 1 t\n1 Q0 raw\xe9 3 0 t\n")
    code, out, err = run(capsys, "score", q, r, "-m", "num_rel_ret", "-m", "recip_rank")
    assert code == 0
    assert out == ["num_rel_ret           \tall\t1", "recip_rank            \tall\t0.3333"]
    assert "shown as \\xNN" in err and "with a backslash, shown doubled" in err


def test_ties_and_topics_are_ordered_by_raw_bytes(capsys, tmp_path):
    q = tmp_path / "q"
    q.write_bytes(b"z 0 D\xe9 1\n\xe9 0 A 1\n")
    r = tmp_path / "r"
    # tie at 1.0: trec_eval puts D\xe9 (byte E9) before Dz (7A); escaped text would not
    r.write_bytes(b"z Q0 Dz 1 1.0 t\nz Q0 D\xe9 2 1.0 t\n\xe9 Q0 A 1 1 t\n")
    code, out, _ = run(capsys, "score", "-q", q, r, "-m", "recip_rank")
    assert code == 0
    assert out[:2] == ["recip_rank            \tz\t1.0000",  # topics in byte order: z (7A) before E9
                       "recip_rank            \t\\xe9\t1.0000"]


def test_ingest_keeps_the_escaped_form_identically_in_runs_and_qrels(tmp_path):
    q = tmp_path / "q"
    q.write_bytes(b"1 0 a\\b 1\n1 0 c\xffd 1\n")
    r = tmp_path / "r"
    r.write_bytes(b"1 Q0 a\\b 1 2 t\n1 Q0 c\xffd 2 1 t\n")
    t = ingest_track("t", q, [r])
    assert sorted(t.judged.to_pandas().docno) == ["a\\\\b", "c\\xffd"]
    assert t.report_rows[1]["backslash_lines"] == 1 and t.report_rows[1]["non_utf8_lines"] == 1


# ---- 8. errors name the file and line; options are checked first ---------------------------

def test_a_grade_beyond_int64_names_file_and_line(capsys, tmp_path):
    q = write_lines(tmp_path / "q", ["1 0 A 1", "1 0 B 99999999999999999999"])
    r = write_lines(tmp_path / "r", ["1 Q0 A 1 1 t"])
    code, out, err = run(capsys, "score", q, r)
    assert (code, out) == (1, [])
    assert err == (f"reeval: {q}:2: expected an integer relevance in field 4 between -2^63 and 2^63 - 1; "
                   'got "1 0 B 99999999999999999999"\n')
    table, _ = parse_qrels(write_lines(tmp_path / "q2", ["1 0 A 9223372036854775807", "1 0 B -9223372036854775808"]))
    assert table["rel"].to_pylist() == [2**63 - 1, -2**63]


def test_bad_options_stop_before_anything_is_printed(tmp_path):
    q = write_lines(tmp_path / "q", ["1 0 A 1"])
    r = write_lines(tmp_path / "r", ["1 Q0 A 1 1 t"])
    for args in (["--decimals", "-3"], ["-M", "0"]):
        got = cli("score", q, r, *args)
        assert got.returncode == 2 and got.stdout == b"" and b"Traceback" not in got.stderr
    got = cli("compare", q, r, r, "--resamples", "0")
    assert got.returncode == 2 and got.stdout == b"" and b"must be at least 1" in got.stderr


def test_a_directory_and_a_missing_file_are_one_line(capsys, tmp_path):
    r = write_lines(tmp_path / "r", ["1 Q0 A 1 1 t"])
    assert run(capsys, "score", tmp_path, r) == (1, [], f"reeval: {tmp_path}: is a directory; expected a file\n")
    assert run(capsys, "score", tmp_path / "nope", r) == (1, [], f"reeval: {tmp_path / 'nope'}: no such file\n")


def test_bytes_in_an_error_message_are_escaped_once(capsys, tmp_path):
    q = write_lines(tmp_path / "q", ["1 0 A 1"])
    r = tmp_path / "r"
    r.write_bytes(b"1 Q0 D\xff 1 x\tt\n")
    code, _, err = run(capsys, "score", q, r)
    assert code == 1 and err == f'reeval: {r}:1: expected a number in the score column (field 5); got "1 Q0 D\\xff 1 x\\tt"\n'


@pytest.mark.parametrize("token", ["NA", "NULL", "n/a", "#N/A", "-1.#IND", "1.5f", "0x10", "1,5"])
def test_a_score_that_is_not_a_number_is_malformed_not_a_missing_value(tmp_path, token):
    r = write_lines(tmp_path / "r", ["1\tQ0\tA\t1\t1\tt", f"1\tQ0\tB\t2\t{token}\tt"])
    with pytest.raises(InputError, match=r":2: expected a number in the score column"):
        parse_run(r)


@pytest.mark.parametrize("head,what", [
    (b"PK\x03\x04rest", "a zip archive"), (b"\xfd7zXZ\x00rest", "an xz stream"),
    (b"\xff\xfe1\x00 \x00", "UTF-16 text"), (b"PAR1rest", "a Parquet file"),
])
def test_other_formats_are_refused_by_name(tmp_path, head, what):
    p = tmp_path / "f"
    p.write_bytes(head)
    with pytest.raises(InputError, match=f"^{p}: {what}"):
        parse_run(p)


def test_a_nul_byte_is_a_malformed_line(tmp_path):
    r = tmp_path / "r"
    r.write_bytes(b"1 Q0 A 1 1 t\n1 Q0 B\x00 2 1 t\n")
    with pytest.raises(InputError, match=r":2: expected text without NUL bytes"):
        parse_run(r)
    table, counts = parse_run(r, on_malformed="drop")
    assert table["docno"].to_pylist() == ["A"] and counts.malformed == 1 and counts.balanced()


def test_lone_cr_line_ends_are_counted_and_said(capsys, tmp_path):
    q = write_lines(tmp_path / "q", ["1 0 A 1"])
    r = tmp_path / "r"
    r.write_bytes(b"1 Q0 A 1 2 t\r1 Q0 B 2 1 t\r\n")
    code, out, err = run(capsys, "score", q, r, "-m", "num_ret")
    assert code == 0 and out[-1] == "num_ret               \tall\t2"
    assert "1 line end that is a lone CR read as line ends" in err


# ---- issue 27: path errors, standard input twice, what messages show ---------------------

def _real_run(tmp_path, name="covidex.t5.gz"):
    """TREC-COVID round 2's qrels and one of its runs."""
    qrels, runs = track_files("trec-covid-round2")
    return qrels, [r for r in runs if r.endswith(name)][0]


@pytest.mark.parametrize("command", ["score", "compare", "prefer"])
def test_a_symlink_loop_as_a_run_is_one_line_from_every_command(tmp_path, command):
    qrels, real = _real_run(tmp_path)
    os.symlink(tmp_path / "loop2", tmp_path / "loop1")
    os.symlink(tmp_path / "loop1", tmp_path / "loop2")
    got = cli(command, qrels, real, tmp_path / "loop1")
    assert got.returncode == 1 and got.stdout == b"", got.stderr
    assert got.stderr.decode() == (f"reeval: {tmp_path / 'loop1'}: too many levels of symbolic links "
                                   "(a link loop, or a chain of more than 40 links)\n")


def test_path_errors_of_runs_and_qrels_are_one_line_naming_the_path(capsys, tmp_path):
    qrels, real = _real_run(tmp_path)
    os.symlink("loop", tmp_path / "loop")
    os.symlink("missing", tmp_path / "dangling")
    chain = tmp_path / "c0"
    chain.write_bytes(open(real, "rb").read())
    for i in range(1, 45):  # more links in a chain than the system follows
        os.symlink(f"c{i - 1}", tmp_path / f"c{i}")
    long_name = tmp_path / ("x" * 300)
    cases = {tmp_path / "loop": "too many levels of symbolic links", tmp_path / "c44": "too many levels of symbolic links",
             tmp_path / "dangling": "a symbolic link to a missing file (missing)",
             long_name: "name too long", Path(real) / "x": "a part of the path is not a folder"}
    for path, words in cases.items():
        for argv in (["score", qrels, path], ["score", path, real]):
            code, out, err = run(capsys, *argv)
            assert (code, out) == (1, []) and err.startswith(f"reeval: {path}: {words}"), err
            assert err.count("\n") == 1 and "Traceback" not in err, err


def test_path_error_words_for_each_errno():
    import errno as e

    from reeval.io.sources import path_error

    words = {e.ENOENT: "no such file", e.EISDIR: "is a directory; expected a file",
             e.EACCES: "permission denied (on the file or a folder above it)",
             e.EPERM: "permission denied (on the file or a folder above it)",
             e.ELOOP: "too many levels of symbolic links (a link loop, or a chain of more than 40 links)",
             e.ENAMETOOLONG: "name too long (the path or one of its names is longer than the system allows)",
             e.ENOTDIR: "a part of the path is not a folder", e.EIO: "cannot open (Input/output error)"}
    for number, text in words.items():
        error = path_error("/no/such/run", OSError(number, os.strerror(number)))
        assert isinstance(error, InputError) and str(error) == f"/no/such/run: {text}"


def test_permission_denied_on_a_run_is_one_line_simulated(capsys, monkeypatch, tmp_path):
    """Tests run as root, who may read anything: the denial is simulated where the file is
    examined (its identity) and where it is opened."""
    import errno as e

    from reeval.io import sources, trecio

    qrels, real = _real_run(tmp_path)
    denied = str(tmp_path / "secret" / "run")
    real_stat = os.stat

    def stat(path, *args, **kwargs):
        if str(path) == denied:
            raise PermissionError(e.EACCES, "Permission denied", path)
        return real_stat(path, *args, **kwargs)

    assert trecio.os is sources.os is os
    monkeypatch.setattr(os, "stat", stat)
    code, out, err = run(capsys, "score", qrels, real, denied)
    assert (code, out, err) == (1, [], f"reeval: {denied}: permission denied (on the file or a folder above it)\n")
    monkeypatch.setattr(sources, "open", lambda path, mode: stat(path), raising=False)  # the reader's open
    with pytest.raises(InputError, match=f"^{denied}: permission denied"):
        read_source(denied)


@pytest.mark.skipif(os.geteuid() == 0, reason="root may read anything: the simulated test above covers it")
def test_permission_denied_on_a_folder_above_the_run(capsys, tmp_path):
    qrels, real = _real_run(tmp_path)
    (tmp_path / "locked").mkdir()
    shutil.copy(real, tmp_path / "locked" / "run.gz")
    (tmp_path / "locked").chmod(0)
    try:
        code, out, err = run(capsys, "score", qrels, tmp_path / "locked" / "run.gz")
    finally:
        (tmp_path / "locked").chmod(0o700)
    assert (code, err) == (1, f"reeval: {tmp_path / 'locked' / 'run.gz'}: permission denied (on the file or a folder "
                              "above it)\n")


@pytest.mark.parametrize("argv", [["score", "QRELS", "-", "-"], ["score", "-", "-"], ["score", "-", "/dev/stdin"],
                                  ["score", "QRELS", "/dev/stdin", "-"], ["prefer", "QRELS", "-", "-"],
                                  ["compare", "-", "RUN", "/dev/stdin"]])
def test_standard_input_given_twice_is_said_before_anything_is_read(tmp_path, argv):
    qrels, real = _real_run(tmp_path)
    argv = [qrels if a == "QRELS" else real if a == "RUN" else a for a in argv]
    got = cli(*argv, input=open(real, "rb").read())
    assert got.returncode == 1 and got.stdout == b""
    err = got.stderr.decode()
    assert err.startswith("reeval: standard input given twice") and err.endswith(": it can be read only once\n"), err
    if "/dev/stdin" in argv:
        assert ("(as - and /dev/stdin)" in err) or ("(as /dev/stdin and -)" in err)


def test_a_fifo_given_twice_is_refused_before_it_is_opened(tmp_path):
    qrels, real = _real_run(tmp_path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = cli("score", qrels, fifo, fifo, timeout=60)
    assert (got.returncode, got.stderr.decode()) == (1, f"reeval: {fifo}: given twice: a stream can be read only once\n")


@pytest.mark.parametrize("bom, encoding", [(b"\xff\xfe\x00\x00", "utf-32-le"), (b"\x00\x00\xfe\xff", "utf-32-be")])
def test_utf32_text_is_called_utf32(tmp_path, bom, encoding):
    qrels, real = _real_run(tmp_path)
    text = gzip.decompress(open(real, "rb").read())[:2000].decode()
    path = tmp_path / "run.utf32"
    path.write_bytes(bom + text.encode(encoding))
    with pytest.raises(InputError, match=rf"^{path}: UTF-32 text: convert it to UTF-8 first \(iconv -f UTF-32"):
        parse_run(path)


def test_a_bad_line_with_a_no_break_space_is_echoed_so_that_it_shows(capsys, tmp_path):
    qrels, real = _real_run(tmp_path)
    lines = gzip.decompress(open(real, "rb").read()).decode().splitlines()[:5]
    lines[3] = re.sub(r"\s", "\u00a0", lines[3], count=1)  # one field separator a no-break space: 5 fields
    bad = write_lines(tmp_path / "run", lines)
    code, out, err = run(capsys, "score", qrels, bad)
    assert code == 1 and "\\u00a0" in err and "\u00a0" not in err and err.count("\n") == 1, err
    assert err.startswith(f"reeval: {bad}:4: expected 6 or more whitespace-separated fields")


def test_the_tag_note_never_shows_two_different_tags_alike(capsys, tmp_path):
    qrels, real = _real_run(tmp_path)
    lines = gzip.decompress(open(real, "rb").read()).decode().splitlines()[:4]
    long_tag = "covidex.t5" + "x" * 10_000_000  # two tags of 10 MB that differ in their last character
    lines = [" ".join(line.split()[:5] + [long_tag + ("A" if i < 2 else "B")]) for i, line in enumerate(lines)]
    code, out, err = run(capsys, "score", "--verbose", "-c", "-m", "num_ret", qrels, write_lines(tmp_path / "long", lines))
    assert code == 0 and len(err) < 400, len(err)
    assert "2 different tags (...'xxxxxxxxxxxxxxxxxxxxA' (10,000,011 characters) first, " \
           "...'xxxxxxxxxxxxxxxxxxxxB' (10,000,011 characters) last)" in err
    lines = gzip.decompress(open(real, "rb").read()).decode().splitlines()[:3]
    lines[1] = " ".join(lines[1].split()[:5] + ["other"])  # covidex.t5, other, covidex.t5
    code, out, err = run(capsys, "score", "--verbose", "-c", "-m", "num_ret", qrels, write_lines(tmp_path / "aba", lines))
    assert "2 different tags ('covidex.t5' on the first and last lines, another between them)" in err
