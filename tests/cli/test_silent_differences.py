"""The two differences from trec_eval 10.0 that reeval scored without a word: each is now said
on stderr (API: a warning and ``attrs['notes']``), once per occurrence. trec_eval itself is
run on the same bytes, so the note is checked to be true."""

import subprocess
import warnings

import pytest

import reeval
from conftest import write_lines
from reeval.cli import main
from reeval.compute import MAX_NOTE_LINES


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def trec_eval(binary, *argv) -> str:
    return subprocess.run([str(binary), *map(str, argv)], capture_output=True, text=True, check=True).stdout


def test_an_all_negative_topic_after_a_graded_one_is_said_where_trec_eval_reuses_its_levels(capsys, tmp_path,
                                                                                             trec_eval10):
    q = write_lines(tmp_path / "qrels", ["1 0 a 2", "1 0 b 1", "2 0 c -1", "2 0 d -1"])
    r = write_lines(tmp_path / "run", ["1 Q0 a 1 2 r", "1 Q0 b 2 1 r", "2 Q0 c 1 2 r", "2 Q0 x 2 1 r"])
    theirs = trec_eval(trec_eval10.binary, "-q", "-m", "ideal_dcg", q, r)
    code, ours, err = run(capsys, "score", "-q", "-m", "ideal_dcg", q, r)
    assert "ideal_dcg             \t2\t2.6309" in theirs and "ideal_dcg             \t2\t0.0000" in ours
    assert code == 0 and err.count("every grade is negative") == 1, err
    assert ("qrels topic 2: every grade is negative (largest -1): scored as a topic with no relevant document; "
            "trec_eval 10.0 reuses the relevance levels an earlier topic left (ideal_dcg: that topic's, not 0)") in err


def test_a_topic_at_grade_minus_2_is_said_to_crash_trec_eval(capsys, tmp_path, trec_eval10):
    q = write_lines(tmp_path / "qrels", ["1 0 a 1", "2 0 c -2"])
    r = write_lines(tmp_path / "run", ["1 Q0 a 1 2 r", "2 Q0 c 1 2 r"])
    assert subprocess.run([str(trec_eval10.binary), "-m", "map", q, r], capture_output=True).returncode != 0
    code, _, err = run(capsys, "score", "-m", "map", q, r)
    assert code == 0 and "qrels topic 2: every grade is negative (largest -2)" in err and "crashes" in err


def test_the_placeholder_docno_of_a_missing_topic_under_c_is_said_per_run_and_topic(capsys, tmp_path, trec_eval10):
    q = write_lines(tmp_path / "qrels", ["1 0 a 1", "2 0 ceci_nest_pas_un_docno 1", "2 0 z 0",
                                         "3 0 ceci_nest_pas_un_docno 1"])
    r1 = write_lines(tmp_path / "r1", ["1 Q0 a 1 2 r1"])
    r2 = write_lines(tmp_path / "r2", ["1 Q0 a 1 2 r2", "3 Q0 z 1 2 r2"])
    assert "map                   \tall\t1.0000" in trec_eval(trec_eval10.binary, "-c", "-m", "map", q, r1)
    code, ours, err = run(capsys, "score", "-c", "-m", "map", q, r1, r2)
    assert code == 0 and "r1\tmap                   \tall\t0.3333" in ours
    said = [line for line in err.splitlines() if "ceci_nest_pas_un_docno" in line]
    assert [line.split(":")[1] for line in said] == [" run r1, qrels topic 2", " run r1, qrels topic 3",
                                                    " run r2, qrels topic 2"], err
    assert "trec_eval 10.0 scores the topic as retrieving it, reeval as retrieving nothing" in said[0]
    _, _, err = run(capsys, "score", "-m", "map", q, r1)  # without -c trec_eval has no placeholder
    assert "ceci_nest_pas_un_docno" not in err
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        frame = reeval.evaluate(str(q), [str(r1)], ["map"], complete=True)
    assert sum("ceci_nest_pas_un_docno" in n for n in frame.attrs["notes"]) == 2


def test_many_occurrences_are_said_up_to_a_bound_then_counted(capsys, tmp_path):
    n = MAX_NOTE_LINES + 5
    q = write_lines(tmp_path / "qrels", ["1 0 a 1", *(f"{t} 0 x -1" for t in range(2, n + 2))])
    r = write_lines(tmp_path / "run", ["1 Q0 a 1 2 r"])
    _, _, err = run(capsys, "score", "-m", "map", q, r)
    assert err.count("every grade is negative") == MAX_NOTE_LINES
    assert "... and 5 more topics with every grade negative" in err


@pytest.mark.parametrize("qrels", [["1 0 a 1", "2 0 b 0"], ["1 0 a 1", "2 0 ceci_nest_pas_un_docno 0"]])
def test_no_note_where_trec_eval_reads_the_same(capsys, tmp_path, qrels):
    q = write_lines(tmp_path / "qrels", qrels)
    r = write_lines(tmp_path / "run", ["1 Q0 a 1 2 r", "2 Q0 b 1 2 r"])
    _, _, err = run(capsys, "score", "-c", "-m", "map", q, r)
    assert "negative" not in err and "ceci" not in err, err


def test_compare_with_a_text_measure_says_it_is_text(capsys, tmp_path):
    q = write_lines(tmp_path / "qrels", ["1 0 a 1", "2 0 b 1"])
    r1 = write_lines(tmp_path / "r1", ["1 Q0 a 1 2 r1", "2 Q0 b 1 2 r1"])
    r2 = write_lines(tmp_path / "r2", ["1 Q0 b 1 2 r2", "2 Q0 a 1 2 r2"])
    code, _, err = run(capsys, "compare", "-m", "relstring", q, r1, r2)
    assert code != 0 and err.strip() == ("reeval: compare needs a number per topic: relstring is text (reeval score "
                                         "prints it); give a measure such as map or P.10"), err


def test_a_hash_inside_a_docno_or_tag_is_said_to_be_read_as_trec_eval_reads_it(capsys, tmp_path, trec_eval10):
    """The note claimed "trec_eval 10.0 miscounts such lines and may crash": its reader skips
    a line only when '#' starts it, and its output on these bytes is reeval's."""
    q = write_lines(tmp_path / "qrels", ["1 0 a#b 1", "1 0 c 0", "2 0 d#x 1"])
    r = write_lines(tmp_path / "run", ["1 Q0 a#b 1 2 t#1", "1 Q0 c 2 1 t#1", "2 Q0 z 1 3 t#1", "2 Q0 d#x 2 1 t#1"])
    theirs = trec_eval(trec_eval10.binary, "-q", "-m", "all_trec", q, r)
    code, ours, err = run(capsys, "score", "-q", "-m", "all_trec", q, r)
    assert code == 0 and ours == theirs
    assert "crash" not in err and "miscount" not in err, err
    _, _, err = run(capsys, "score", "--verbose", "-m", "map", q, r)  # what was read as trec_eval reads it
    assert f"{r}: 4 lines with a '#' inside a field, read as data (as trec_eval reads it" in err, err
