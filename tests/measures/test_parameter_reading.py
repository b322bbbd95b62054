"""Measure parameters read as trec_eval 10.0 reads them: C's ``atof`` (glibc ``strtod``:
hex, hex floats, inf, nan) and ``atol`` after the spaces C's ``isspace`` skips, names padded
to 22 bytes, trec_eval's comparators where a difference overflows a C int (cutoffs refused,
gains sorted as x86-64 sorts them), ``relstring``'s length as ``(long)``, rbp's gain
rescaling as the default build does it, and a note on stderr for every lenient read.

The readers are checked against the C library itself (ctypes ``strtod``/``strtol``, seeded
random texts) and every spelling against the trec_eval 10.0 binary (conftest.trec_eval10),
byte for byte; tests/measures/test_differential.py draws such spellings on its random tracks.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
import struct
import subprocess
import sys
import warnings

import numpy as np
import pytest

from reeval.measures import parse_measure
from reeval.measures.params import c_strtod, c_strtol, misordered_pair

QRELS = "1 0 a 2\n1 0 b 1\n1 0 c 0\n1 0 d 3\n2 0 a 1\n2 0 e 2\n"
RUN = "1 Q0 a 1 3 A\n1 Q0 c 2 2.5 A\n1 Q0 x 3 2 A\n1 Q0 b 3 1.9 A\n1 Q0 d 4 1.2 A\n2 Q0 c 1 1 A\n2 Q0 e 1 0.5 A\n"

#: the pieces the seeded texts are drawn from: what strtod and strtol could stop on
PIECES = ("0", "1", "5", "9", "a", "f", "x", "X", "p", "P", "e", "E", ".", "+", "-", " ", "\t", "\n", "\v",
          "\x1c", "\x1f", "\x85", "\xa0", "inf", "INFINITY", "nan", "nan(", "x)", "0x", "1p", "_", "O", "é")
SEED, TEXTS = 53, 20000


def _libc():
    return ctypes.CDLL(ctypes.util.find_library("c"))


def _bits(value: float) -> bytes:
    """A double's bytes, NaN sign and all (strtod's ``-nan`` has its sign bit set)."""
    return struct.pack("<d", value)


def test_c_strtod_and_strtol_are_the_c_library_s_on_seeded_texts():
    """20,000 texts of seed 53 drawn from :data:`PIECES`: value (to the bit) and characters
    read equal glibc's strtod and strtol(..., 10) on the texts' UTF-8 bytes."""
    libc = _libc()
    libc.strtod.restype, libc.strtod.argtypes = ctypes.c_double, [ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p)]
    libc.strtol.restype = ctypes.c_long
    libc.strtol.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_int]
    rng = np.random.default_rng(SEED)
    texts = ["0x10", "0x1p-1", "0X.8", "0x", "0xg", "\x1c5", "\xa00.5", "1e", "-nan", "nan(ab_1)", "0x1p99999",
             "-0x1p-1075", "4e-324", "1e400", "99999999999999999999", "-9223372036854775809"]
    texts += ["".join(rng.choice(PIECES, size=rng.integers(1, 8))) for _ in range(TEXTS)]
    for text in texts:
        raw = text.encode()
        buffer = ctypes.create_string_buffer(raw)
        end = ctypes.c_char_p()
        value = libc.strtod(buffer, ctypes.byref(end))
        read = ctypes.cast(end, ctypes.c_void_p).value - ctypes.addressof(buffer)
        ours, chars = c_strtod(text)
        assert (_bits(ours), len(text[:chars].encode())) == (_bits(value), read), text
        value = libc.strtol(buffer, ctypes.byref(end), 10)
        read = ctypes.cast(end, ctypes.c_void_p).value - ctypes.addressof(buffer)
        ours, chars = c_strtol(text)
        assert (ours, len(text[:chars].encode()) if chars else 0) == (value, read if read else 0), text


def _comp_long(a: int, b: int) -> int:
    """trec_eval's comp_long, as gcc computes it: the long difference (wrapping) cut to an int."""
    diff = ctypes.c_long(a - b if -2**63 <= a - b < 2**63 else (a - b + 2**63) % 2**64 - 2**63).value
    return ctypes.c_int(diff).value


@pytest.mark.parametrize("cuts", [[2, 9223372036854775807], [5, 3000000000], [1, 2147483648], [3, 4294967299],
                                  [1, 2147483649], [0, 2**32 + 1], [7, 8, 2**62]])
def test_a_pair_of_cutoffs_is_refused_exactly_when_trec_eval_s_comparator_misorders_it(cuts):
    wrong = [(a, b) for i, a in enumerate(cuts) for b in cuts[i + 1:] if _comp_long(a, b) >= 0 or _comp_long(b, a) <= 0]
    assert misordered_pair(cuts) == (wrong[0] if wrong else None)


#: every -m spelling checked against the binary: trec_eval prints (and reeval the same
#: bytes), or trec_eval refuses (and reeval too); never another value
SPELLINGS = [
    "set_F.0x10", "utility.0x2,-1,0,0", "ndcg.2=0x10", "iprec_at_recall.0x1p-1", "P.\x1c5", "set_F.\xa00.5",
    "set_F.0.5\xa0", "set_F.0.5é", "utility.0x1.8p1,-0X.8,0,0", "Rprec_mult.0x1p-2,0x1p-1", "11pt_avg.0x.8,0x1p0",
    "ndcg_cut.1O", "P.5x", "P.1e1", "recall.1O0", "map_cut. 5,\t10", "P.0x10", "success.\x0b3", "relative_P.2\xa0",
    "set_F.inf", "utility.nan,1,0,0", "rbp.p=0x1.ccccccccccccdp-1", "G.1=0x10,2=-0x1p1",
    "relstring.inf", "relstring.nan", "relstring.1e19", "relstring.-inf", "relstring.9.2e18", "relstring.0x3",
    "map_cut.9223372036854775807", "P.1,2147483648", "ndcg_cut.2147483648,1",
    "ndcg.2=3000000000", "ndcg.1=-3000000000,2=3000000000", "ndcg.0=2147483648", "ndcg.1=-2147483648.5",
    "ndcg_rel.3=1e300,1=-1e300", "rbp.2=3e9", "Rndcg.2=0x1p40",
    "rbp.0=0.5", "rbp.0=2,1=3,2=4,3=5", "rbp.0=-2,1=-1,2=-0.5,3=-0.2", "rbp.0=0.1,1=0.2,2=0.3,3=0.4",
    "utility.0.5,0.5,0.5,0.5 ", "utility.0.5,0.5,0.5,0.5\t", "Rndcg.1=0.5,2=0.25\xa0", "P.5\n",
]
#: spellings reeval refuses though trec_eval prints values: cutoffs 2^31 or more apart, which
#: trec_eval's comp_long may sort wrongly (the first two: both measures at one cutoff; the
#: third right only because the input was in order)
REFUSED = ("map_cut.2,9223372036854775807", "P.5,3000000000", "P.3,4294967299")


def _score(binary, tmp_path, argv):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    theirs = subprocess.run([str(binary), *argv, str(qrels), str(run)], capture_output=True)
    ours = subprocess.run([sys.executable, "-m", "reeval.cli", "score", *argv, str(qrels), str(run)],
                          capture_output=True)
    return theirs, ours


@pytest.mark.parametrize("spec", SPELLINGS, ids=[ascii(s) for s in SPELLINGS])
def test_every_spelling_prints_trec_eval_s_bytes_or_is_refused_by_both(trec_eval10, tmp_path, spec):
    theirs, ours = _score(trec_eval10.binary, tmp_path, ["-q", "-m", spec])
    if theirs.returncode != 0:
        assert ours.returncode == 2 and ours.stdout == b"", ours.stderr
        return
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == theirs.stdout


@pytest.mark.parametrize("spec", REFUSED)
def test_cutoffs_trec_eval_may_sort_wrongly_are_refused_in_one_line(trec_eval10, tmp_path, spec):
    theirs, ours = _score(trec_eval10.binary, tmp_path, ["-m", spec])
    assert theirs.returncode == 0
    assert ours.returncode == 2 and ours.stdout == b""
    error = ours.stderr.decode().splitlines()[-1]
    assert error.startswith(f"reeval score: error: measure {spec!r}: cutoffs") and "sorts wrongly" in error


@pytest.mark.parametrize("spec, note", [
    ("ndcg_cut.1O", "ndcg_cut.1O read as cutoff 1, as trec_eval does"),
    ("P.5x,10", "P.5x,10 read as cutoffs 5, 10, as trec_eval does"),
    ("P.1e1", "P.1e1 read as cutoff 1, as trec_eval does"),
    ("recall.1O0", "recall.1O0 read as cutoff 1, as trec_eval does"),
    ("set_F.0x10", "set_F.0x10 read as 16, as trec_eval does"),
    ("ndcg.2=0x10", "ndcg.2=0x10 read as 2=16, as trec_eval does"),
    ("set_F.\xa00.5", "'set_F.\\xa00.5' read as 0, as trec_eval does"),
])
def test_a_lenient_read_is_said_on_stderr_and_names_the_column_in_evaluate(tmp_path, spec, note):
    import reeval
    from reeval.cli import main

    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    measure = parse_measure(spec)[0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = reeval.evaluate(tmp_path / "qrels", [tmp_path / "run"], measures=[spec])
    assert frame.columns[0] == measure.name != spec
    assert note in frame.attrs["notes"] and any(note in str(w.message) for w in caught)
    plain = reeval.evaluate(tmp_path / "qrels", [tmp_path / "run"], measures=["P.5"])
    assert list(plain.columns) == ["P.5"] and not plain.attrs["notes"]


def test_a_lenient_read_is_one_line_on_the_command_line(tmp_path, capsys):
    from reeval.cli import main

    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    assert main(["score", "-m", "ndcg_cut.1O", "-m", "P. 5", str(tmp_path / "qrels"), str(tmp_path / "run")]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err == ["reeval: ndcg_cut.1O read as cutoff 1, as trec_eval does"]  # P. 5 is plain: no word


def test_a_name_with_non_ascii_characters_is_padded_to_22_bytes():
    from reeval.cli.score import format_line

    assert format_line("set_F_0.5é", "all", "0.5962").encode() == "set_F_0.5é".encode() + b" " * 11 + b"\tall\t0.5962"
    assert format_line("P_5", "1", "0.4000") == "P_5" + " " * 19 + "\t1\t0.4000"


@pytest.mark.parametrize("spec", ["relstring.inf", "relstring.nan", "relstring.1e19", "relstring.-1"])
def test_relstring_beyond_a_long_prints_an_empty_string_as_x86_64_trec_eval(tmp_path, capsys, spec):
    from reeval.cli import main

    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    assert main(["score", "-q", "-c", "-m", spec, str(tmp_path / "qrels"), str(tmp_path / "run")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[2] for line in lines] == ["''", "''"]


RBP_MAPS = ["rbp.0=0.5", "rbp.0=2,1=3,2=4,3=5", "rbp.0=-2,1=-1,2=-0.5,3=-0.2", "rbp.3=0.5,2=0.4,1=0.2,0=0.1"]


@pytest.mark.parametrize("spec", RBP_MAPS)
def test_rbp_with_a_gain_map_alone_is_the_default_build_s_on_two_dl_runs(trec_eval10, plain_tracks, spec):
    """trec_eval's m_rbp.c leaves min and max unset; its default build starts both at 0,
    which a gain map with every gain above 0 (or below) shows: reeval rescales the same,
    every per-topic value equal to trec_eval's printed with %.17g (its full-precision build)."""
    qrels, runs = plain_tracks("trec2020-dl-passage")
    for _, run in runs[:2]:
        theirs = subprocess.run([str(trec_eval10.full), "-q", "-m", spec, str(qrels), str(run)], capture_output=True)
        ours = subprocess.run([sys.executable, "-m", "reeval.cli", "score", "--quiet", "--decimals", "20", "-q",
                               "-m", spec, str(qrels), str(run)], capture_output=True)
        assert theirs.returncode == 0 and ours.returncode == 0
        mine, want = (dict(((m.strip(), q), float(v)) for m, q, v in (line.split("\t") for line in out.splitlines()))
                      for out in (ours.stdout.decode(), theirs.stdout.decode()))
        assert mine.keys() == want.keys()
        assert all(math.isclose(mine[k], want[k], rel_tol=1e-13) for k in want), run.name


@pytest.mark.parametrize("spec", ["utility_\xa01,-1,0,0", "set_F_1_0", "relstring_\u0663", "utility_0x2,-1,0,0"])
def test_a_printed_name_whose_numbers_atof_would_read_otherwise_is_no_name(spec):
    """reeval also takes a measure's printed name (``utility_1,-1,0,0``); one whose numbers
    are not plain would name values other than those computed, so it names nothing."""
    with pytest.raises(ValueError, match="unknown measure"):
        parse_measure(spec)
    assert [m.name for m in parse_measure("utility_1,-1,0,0")] == ["utility_1,-1,0,0"]
    assert [m.name for m in parse_measure("relstring_5")] == ["relstring_5"]
