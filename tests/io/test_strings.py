"""reeval.io.strings.Strings.take: strings of one length gathered whole, the same strings as byte by byte."""
import numpy as np
import pytest

from reeval.io.strings import Strings


def _bytewise(strings: Strings, rows) -> list[str]:
    raw = strings.tolist()
    return [raw[i] for i in rows]


@pytest.mark.parametrize("texts", [
    ["D0001", "D0002", "D0003", "D0004"],               # one length: gathered as items of 5 bytes
    ["a", "bb", "", "dddd", "e"],                      # lengths differ: byte by byte
    ["x", "y"],
    ["", "", ""],                                      # no byte at all
])
def test_take_gives_the_strings_at_the_rows_in_their_order(texts):
    s = Strings.from_list(texts)
    rows = np.array([len(texts) - 1, 0, 0, 1])
    taken = s.take(rows)
    assert taken.tolist() == _bytewise(s, rows)
    assert np.array_equal(taken.lengths(), [len(texts[i]) for i in rows])
    assert taken.take([0]).tolist() == [texts[-1]]


def test_take_of_one_length_strings_that_start_inside_their_data():
    data = np.frombuffer(b"junkAB12CD34EF56tail", dtype=np.uint8)[::1]
    s = Strings(np.array([4, 8, 12, 16]), data)  # AB12, CD34, EF56 after 4 bytes not theirs
    assert s.width() == 4
    assert s.take([2, 0]).tolist() == ["EF56", "AB12"]
    assert s.take([2, 0]).offsets.tolist() == [0, 4, 8]


def test_take_of_one_length_strings_in_strided_data():
    data = np.frombuffer(b"A-B-C-D-", dtype=np.uint8)[::2]  # "ABCD", not contiguous
    s = Strings(np.array([0, 2, 4]), data)
    assert s.take([1, 0, 1]).tolist() == ["CD", "AB", "CD"]


def test_take_of_no_row_and_of_no_string():
    one_length = Strings.from_list(["ab", "cd"])
    assert len(one_length.take(np.zeros(0, dtype=np.int64))) == 0
    assert one_length.take([]).width() == 0
    assert len(Strings.from_list([]).take([])) == 0
    with pytest.raises(IndexError):
        one_length.take([2])


def test_width_is_zero_unless_every_string_has_one_positive_length():
    assert Strings.from_list(["abc", "def"]).width() == 3
    assert Strings.from_list(["abc", "de"]).width() == 0
    assert Strings.from_list(["", ""]).width() == 0
    assert Strings.from_list([]).width() == 0


def test_take_keeps_what_is_known_of_backslashes():
    s = Strings.from_list(["a\\5Cb", "cccc", "dddd"][1:])  # no backslash, known to have none
    s._backslash = False
    assert s.take([1]).has_backslash() is False
    escaped = Strings.from_list(["a\\5C", "bbbb"])
    assert escaped.take([0]).has_backslash() is True
