"""Fuzzing the Python API's inputs (issue 27): DataFrames, dicts, records and lists of runs
holding odd dtypes and values (NUL bytes, bytes, floats and booleans as ids, complex,
Decimal, Fraction, huge and unsigned integers as scores and grades, missing values, two
names of one column ...).

Every call must either raise ``reeval.InputError`` (one line) or return exactly what a small
independent model of the documented reading rules (docs/semantics.md) gives: ids are
strings or integers in decimal, scores real numbers read as the nearest float64 (NaN and
missing dropped and counted), grades integers of int64's range (booleans 1 and 0, whole
numbers accepted); the first copy of a document in trec_eval order counts, the last
judgment of a pair. Nothing else is accepted, nothing is coerced silently: no other
exception, no warning but ReevalWarning.
"""

from __future__ import annotations

import decimal
import fractions
import math
import numbers
import warnings
from collections import namedtuple

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, event, given, settings, strategies as st

import reeval

Record = namedtuple("Record", ["query_id", "doc_id", "score"])
Judgment = namedtuple("Judgment", ["query_id", "doc_id", "relevance"])


class Invalid(Exception):
    """The model's verdict: this input must be refused."""


# ---- the model: how each value must be read (or refused) -------------------------------

def model_id(v) -> str:
    if isinstance(v, str):
        if not v or "\x00" in v:
            raise Invalid
        try:
            v.encode("utf-8")
        except UnicodeEncodeError:
            raise Invalid from None
        return v
    if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
        return str(int(v))
    raise Invalid


def model_score(v) -> float:
    if v is None or v is pd.NA:
        return math.nan
    if isinstance(v, decimal.Decimal):
        return math.nan if v.is_nan() else float(v)
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
        raise Invalid
    try:
        return float(v)
    except OverflowError:
        return math.inf if v > 0 else -math.inf


def model_grade(v) -> int:
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    if not isinstance(v, (numbers.Real, decimal.Decimal)):
        raise Invalid
    try:
        whole = int(v)
    except (ValueError, OverflowError, ArithmeticError):
        raise Invalid from None
    if whole != v or not -(2**63) <= whole < 2**63:
        raise Invalid
    return whole


def text(id_: str) -> str:
    """reeval's text form of an id (a backslash doubled)."""
    return id_.replace("\\", "\\\\")


def expected(qrels_rows, runs) -> dict:
    """{(run, query_id): (num_ret, num_rel, num_rel_ret, recip_rank)} and the lines read and
    NaN scores per run, or Invalid."""
    judgments: dict = {}
    for q, d, g in qrels_rows:
        judgments[(model_id(q), model_id(d))] = model_grade(g)  # the last judgment counts
    if not judgments:
        raise Invalid
    topics = sorted({q for q, _ in judgments})
    out, counts = {}, {}
    for name, rows in runs.items():
        best: dict = {}
        nan = 0
        for q, d, s in rows:
            q, d, s = model_id(q), model_id(d), model_score(s)
            if math.isnan(s):
                nan += 1
            elif q in topics:
                best[(q, d)] = max(best.get((q, d), -math.inf), s)
        if not best:  # nothing to evaluate
            raise Invalid
        counts[name] = (len(rows), nan)
        for q in topics:
            docs = sorted(((s, d.encode("utf-8")) for (t, d), s in best.items() if t == q), reverse=True)
            relevant = {d.encode("utf-8") for (t, d), g in judgments.items() if t == q and g >= 1}
            ranks = [i + 1 for i, (_, d) in enumerate(docs) if d in relevant]
            out[(name, text(q))] = (len(docs), len(relevant), len(ranks), 1 / ranks[0] if ranks else 0.0)
    return {"topics": out, "counts": counts}


# ---- the inputs ------------------------------------------------------------------------

QIDS = st.sampled_from(["1", "2", 1, np.int64(2), np.uint8(1), "é"])
DOCNOS = st.one_of(st.sampled_from(["d1", "d2", "d3", "a\\b", "q 1", "é"]), st.integers(0, 3),
                   st.sampled_from([np.int64(2), np.uint64(3), np.int8(1), 2**64 - 1]))
BAD_IDS = st.sampled_from(["", "d\x001", b"d1", 1.0, math.nan, None, True, complex(1, 0), decimal.Decimal(1),
                           "\ud800", pd.Timestamp("2020-01-01")])
GOOD_SCORES = st.one_of(st.floats(width=64, allow_nan=False), st.floats(width=64), st.integers(-(2**70), 2**70),
                        st.sampled_from([np.float32(0.1), np.float16(2.5), decimal.Decimal("0.1"), None, pd.NA,
                                         fractions.Fraction(1, 3), 10**400, np.uint64(2**64 - 1), -0.0]))
BAD_SCORES = st.sampled_from([True, np.True_, "1.5", b"1", complex(1, 2), np.complex64(1), [1.0], pd.Timestamp(0)])
GOOD_GRADES = st.one_of(st.integers(-2, 3), st.booleans(), st.sampled_from([2.0, np.int8(1), np.uint8(2),
                                                                             decimal.Decimal("2"), -(2**63)]))
BAD_GRADES = st.sampled_from([1.5, "1", None, math.nan, math.inf, complex(1, 0), 2**63, np.uint64(2**63),
                              decimal.Decimal("1.5"), b"1"])


def values(good, bad, clean: bool):
    """Good values only (a clean input), or now and then a bad one."""
    return good if clean else st.one_of(good, good, good, good, bad)


def rows_of(value_good, value_bad, clean: bool, min_size: int):
    return st.lists(st.tuples(values(QIDS, BAD_IDS, clean), values(DOCNOS, BAD_IDS, clean),
                              values(value_good, value_bad, clean)), min_size=min_size, max_size=12)


DTYPES = [None, None, object, "category", "string"]


def column(values_, dtype):
    """A column as a user might hold it: pandas' own inference, or a cast (when it works;
    pandas refuses some, such as a category of float16 or a string dtype of lone surrogates)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            series = pd.Series(values_, dtype=object if dtype is object or not values_ else None)
        except Exception:  # noqa: BLE001 - pandas cannot infer a type: the objects as they are
            series = pd.Series(values_, dtype=object)
        if dtype in ("category", "string"):
            try:
                series = series.astype(dtype)
            except Exception:  # noqa: BLE001 - not castable: the values as they are
                pass
    return series


def cells(series: pd.Series) -> list:
    """The values a column holds, as Python objects (what the model reads)."""
    return [None if (v is pd.NA) else v for v in series.astype(object).tolist()]


@st.composite
def frame(draw, rows, names, shape_bad: bool):
    cols = list(zip(*rows)) if rows else [[], [], []]
    data = {name: column(list(c), draw(st.sampled_from(DTYPES))) for name, c in zip(names, cols)}
    df = pd.DataFrame(data)
    bad = False
    if shape_bad and draw(st.integers(0, 9)) == 0:  # two names of one field
        df["qid" if names[0] == "query_id" else "query_id"] = df[names[0]]
        bad = True
    triples = list(zip(*(cells(df[n]) for n in names))) if len(df) else []
    return df, triples, bad


@st.composite
def run_input(draw, clean: bool):
    """(what evaluate gets as runs, {run name: rows the model reads}, refused for its shape)."""
    ROWS_RUN = rows_of(GOOD_SCORES, BAD_SCORES, clean, 1)
    form = draw(st.sampled_from(["frame", "frame_run_column", "dict", "records", "list", "named"]))
    names = draw(st.sampled_from([("query_id", "doc_id", "score"), ("qid", "docno", "score")]))
    if form in ("frame", "frame_run_column"):
        df, triples, bad = draw(frame(draw(ROWS_RUN), names, not clean))
        if form == "frame":
            return df, {"run": triples}, bad
        which = draw(st.lists(st.sampled_from(["a", "b"]), min_size=len(df), max_size=len(df)))
        df.insert(0, "run", which)
        runs: dict = {}
        for name, t in zip(which, triples):
            runs.setdefault(name, []).append(t)
        return df, runs, bad
    if form == "dict":
        d: dict = {}
        try:
            for q, doc, s in draw(ROWS_RUN):
                d.setdefault(q, {})[doc] = s
        except TypeError:  # an unhashable key
            return None, {}, True
        return d, {"run": [(q, doc, s) for q, docs in d.items() for doc, s in docs.items()]}, False
    if form == "records":
        rows = draw(ROWS_RUN)
        return [Record(*r) for r in rows], {"run": rows}, False
    n = draw(st.integers(1, 3))
    built = [draw(frame(draw(ROWS_RUN), names, not clean)) for _ in range(n)]
    if form == "list":
        return [df for df, _, _ in built], {f"run{i}": t for i, (_, t, _) in enumerate(built)}, \
            any(b for _, _, b in built)
    return {f"r{i}": df for i, (df, _, _) in enumerate(built)}, {f"r{i}": t for i, (_, t, _) in enumerate(built)}, \
        any(b for _, _, b in built)


@st.composite
def qrels_input(draw, clean: bool):
    form = draw(st.sampled_from(["frame", "dict", "records"]))
    rows = draw(rows_of(GOOD_GRADES, BAD_GRADES, clean, 1 if clean else 0))
    if form == "frame":
        names = draw(st.sampled_from([("query_id", "doc_id", "relevance"), ("qid", "docno", "rel")]))
        df, triples, bad = draw(frame(rows, names, not clean))
        return df, triples, bad
    if form == "records":
        return [Judgment(*r) for r in rows], rows, False
    d: dict = {}
    try:
        for q, doc, g in rows:
            d.setdefault(q, {})[doc] = g
    except TypeError:
        return None, [], True
    return d, [(q, doc, g) for q, docs in d.items() for doc, g in docs.items()], False


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
          phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink])
@given(data=st.data(), clean=st.booleans())
def test_the_api_refuses_or_reads_exactly_as_documented(data, clean):
    q_obj, q_rows, q_bad = data.draw(qrels_input(clean))
    r_obj, r_rows, r_bad = data.draw(run_input(clean))
    if q_obj is None or r_obj is None:  # an unhashable dict key: not an input anyone can build
        return
    try:
        want = None if (q_bad or r_bad) else expected(q_rows, r_rows)
    except Invalid:
        want = None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", reeval.ReevalWarning)
        try:
            got = reeval.evaluate(q_obj, r_obj, ["num_ret", "num_rel", "num_rel_ret", "recip_rank"], per_topic=True)
        except reeval.InputError as error:
            assert "\n" not in str(error), str(error)
            assert want is None, f"refused what the rules accept: {error}"
            event("refused")
            return
    assert want is not None, f"accepted what the rules refuse: {q_rows} {r_rows}"
    event("read")
    values_ = {key: (int(r.num_ret), int(r.num_rel), int(r.num_rel_ret), float(r.recip_rank))
               for key, r in zip(got.index, got.itertuples())}
    assert values_ == want["topics"]
    report = {row["run"]: (row["lines_read"], row["nan_score"]) for row in got.attrs["ingest_report"]
              if row["kind"] == "run"}
    assert report == want["counts"]


def test_the_model_refuses_what_the_semantics_refuse():
    for bad in ("", "a\x00", b"a", 1.0, None, True):
        with pytest.raises(Invalid):
            model_id(bad)
    for bad in (True, "1", complex(1, 0)):
        with pytest.raises(Invalid):
            model_score(bad)
    for bad in (1.5, "1", None, 2**63, complex(1, 0)):
        with pytest.raises(Invalid):
            model_grade(bad)
    assert (model_id(np.uint64(2**64 - 1)), model_score(10**400), model_grade(True)) == ("18446744073709551615",
                                                                                          math.inf, 1)
