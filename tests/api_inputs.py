"""Helpers of the API tests: TREC files read independently of reeval (pandas), the input
forms the API takes built from them, and ``reeval score`` output parsed to exact floats."""

from __future__ import annotations

import contextlib
import io
from collections import namedtuple

import numpy as np
import pandas as pd

from reeval.cli import main
from reeval.io.trecio import run_names

#: ir_datasets' record types (same attribute names; ir_datasets itself is not a dependency)
TrecQrel = namedtuple("TrecQrel", ["query_id", "doc_id", "relevance", "iteration"])
ScoredDoc = namedtuple("ScoredDoc", ["query_id", "doc_id", "score"])


def read_qrels_frame(path) -> pd.DataFrame:
    """query_id, doc_id, relevance of a qrels file, read by pandas (not by reeval)."""
    df = pd.read_csv(path, sep=r"\s+", header=None, comment="#", names=["query_id", "iter", "doc_id", "relevance"],
                     dtype={"query_id": str, "iter": str, "doc_id": str, "relevance": np.int64})
    return df[["query_id", "doc_id", "relevance"]]


def read_run_frame(path) -> pd.DataFrame:
    """query_id, doc_id, score of a run file, read by pandas (its default parser reads
    decimal scores to the nearest double, as the tests against ``reeval score`` check)."""
    df = pd.read_csv(path, sep=r"\s+", header=None, comment="#",
                     names=["query_id", "q0", "doc_id", "rank", "score", "tag"],
                     dtype={"query_id": str, "q0": str, "doc_id": str, "tag": str})
    return df[["query_id", "doc_id", "score"]]


def nested(frame: pd.DataFrame, value: str) -> dict:
    """{query_id: {doc_id: value}} (pytrec_eval's form). For runs the highest score of a
    repeated document wins, as ingest keeps the first copy in trec_eval order."""
    if value == "score":
        frame = frame.sort_values("score", kind="stable")
    out: dict = {}
    for q, d, v in zip(frame.query_id, frame.doc_id, frame[value]):
        out.setdefault(q, {})[d] = v.item() if hasattr(v, "item") else v
    return out


def qrels_forms(path) -> dict:
    """The qrels in every form the API takes."""
    df = read_qrels_frame(path)
    return {"path": str(path), "frame": df,
            "frame_trec_names": df.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "rel"}),
            "dict": nested(df, "relevance"),
            "records": [TrecQrel(q, d, int(r), "0") for q, d, r in zip(df.query_id, df.doc_id, df.relevance)]}


def run_forms(paths, forms=None) -> dict:
    """The runs in every form the API takes (each a whole set of runs, same names), or in ``forms``."""
    names = run_names(paths)
    frames = [read_run_frame(p) for p in paths]
    make = {"paths": lambda: [str(p) for p in paths],
            "frame_with_run": lambda: pd.concat([f.assign(run=n) for n, f in zip(names, frames)], ignore_index=True),
            "dict_of_frames": lambda: {n: f.rename(columns={"query_id": "qid", "doc_id": "docno"})
                                       for n, f in zip(names, frames)},
            "dict_of_dicts": lambda: {n: nested(f, "score") for n, f in zip(names, frames)},
            "dict_of_records": lambda: {n: [ScoredDoc(*row) for row in f.itertuples(index=False)]
                                        for n, f in zip(names, frames)},
            "dict_of_paths": lambda: dict(zip(names, map(str, paths)))}
    return {form: make[form]() for form in (forms or make)}


def cli_values(qrels, runs, specs, *options) -> dict:
    """{(run, measure, qid): value} printed by ``reeval score -m spec`` for each spec (30
    decimals: exact floats; one command per spec, as ``-m official -m P@20`` would print
    only P_20 of the P family, as trec_eval does)."""
    printed = io.StringIO()
    for spec in specs:
        with contextlib.redirect_stdout(printed):
            assert main(["score", "--decimals", "30", "--quiet", *options, "-m", spec, str(qrels),
                         *map(str, runs)]) == 0
    out = {}
    for line in printed.getvalue().splitlines():
        fields = line.split("\t")
        run, measure, qid, value = fields if len(runs) > 1 else [run_names(runs)[0], *fields]
        if measure.strip() != "runid":
            out[(run, measure.strip(), qid)] = float(value)
    return out
