"""Normalizing one track (a qrels file and its run files) into the central tables.

Outputs (all Arrow tables, written as Parquet by :func:`write_track`):

- ``runs``: run, qid, docno, score (float64 as written), tag, pos. ``pos`` is the
  1-based position in trec_eval order: score descending, ties by docno descending
  (byte order). With ``precision="float32"`` the scores are rounded to float32 before
  ordering, as trec_eval 9.x and pytrec_eval do, so scores equal in float32 tie.
  Sorted by run, qid, pos.
- ``qrels``: qid, docno, rel (raw integer grade; the relevance level is applied by
  the measures).
- ``judged``: one row per judged document a run retrieved: run, qid, docno, pos, rel.
- ``depth``: run, qid, n_ret (documents the run retrieved for the topic).
- ``report``: one row per input file with the outcome of every line.

Track-level drops, counted per file: lines of topics that have no judgment in the
qrels (``unjudged_topic``) and repeated docnos within a run's topic (``duplicate``;
the first occurrence in trec_eval order is kept, so the best-scored copy). A docno
judged twice for a topic in the qrels keeps the last judgment (as dict-based tools
such as pytrec_eval do) and counts the others as ``duplicate``.
"""

from __future__ import annotations

import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .trecio import LineCounts, parse_qrels, parse_run, run_name_from_path

PRECISIONS = ("float64", "float32")


@dataclass
class TrackTables:
    runs: pa.Table
    qrels: pa.Table
    judged: pa.Table
    depth: pa.Table
    report: pd.DataFrame


def group_starts(keys: np.ndarray) -> np.ndarray:
    """Boolean mask, True where a sorted key array starts a new group."""
    starts = np.ones(len(keys), dtype=bool)
    if len(keys) > 1:
        starts[1:] = keys[1:] != keys[:-1]
    return starts


def position_in_group(starts: np.ndarray) -> np.ndarray:
    """1-based position of each row inside its group, given the group-start mask."""
    idx = np.arange(len(starts))
    first = np.maximum.accumulate(np.where(starts, idx, 0))
    return idx - first + 1


def dedupe_qrels(table: pa.Table) -> tuple[pa.Table, np.ndarray]:
    """Keep the last judgment of each (qid, docno); return (table, dropped-line mask)."""
    df = pd.DataFrame({"qid": table["qid"].to_numpy(zero_copy_only=False),
                       "docno": table["docno"].to_numpy(zero_copy_only=False)})
    dup = df.duplicated(["qid", "docno"], keep="last").to_numpy()
    if dup.any():
        table = table.filter(pa.array(~dup))
    return table, dup


def remap_grades(qrels: pa.Table, grade_map: dict | None) -> pa.Table:
    """Replace relevance grades by ``grade_map`` (e.g. {1: 0}); other grades unchanged.

    Reproduces evaluations run on relabelled qrels, such as the DL-2020 passage
    ``trec_eval`` block, whose nDCG treats grade 1 as 0.
    """
    if not grade_map:
        return qrels
    rel = qrels["rel"].to_numpy()
    new = rel.copy()
    for src, dst in grade_map.items():
        new[rel == int(src)] = int(dst)
    return qrels.set_column(qrels.schema.get_field_index("rel"), "rel", pa.array(new))


def sorted_codes(values) -> np.ndarray:
    """Integer codes of strings that sort as the strings do (byte order), via a dictionary."""
    enc = pc.dictionary_encode(values)
    if isinstance(enc, pa.ChunkedArray):
        enc = enc.combine_chunks()
    rank = np.empty(len(enc.dictionary), dtype=np.int64)
    rank[pc.sort_indices(enc.dictionary).to_numpy()] = np.arange(len(enc.dictionary))
    return rank[enc.indices.to_numpy(zero_copy_only=False)] if len(enc) else np.zeros(0, np.int64)


def descending_float_bits(key: np.ndarray) -> np.ndarray:
    """Unsigned integers whose ascending order is the descending order of ``key``.

    IEEE floats map to integers that sort like them (flip every bit of negatives, the
    sign bit of the rest); inverting those gives the descending order. -0.0 must have
    been turned into 0.0 first; NaN is not expected.
    """
    if key.dtype == np.float32:
        bits = key.view(np.uint32).astype(np.uint64)
        sign = np.uint64(1 << 31)
        ordered = np.where(bits & sign, ~bits & np.uint64(0xFFFFFFFF), bits | sign)
        return np.uint64(0xFFFFFFFF) - ordered
    bits = key.view(np.uint64)
    sign = np.uint64(1 << 63)
    return ~np.where(bits & sign, ~bits, bits | sign)


def topic_score_order(qcodes: np.ndarray, key: np.ndarray) -> np.ndarray:
    """Row order by topic code ascending, then score descending (ties in input order).

    float32 scores and topic codes fit one 64-bit key (one sort); float64 scores are
    sorted first and the topics then by a stable radix-friendly sort.
    """
    desc = descending_float_bits(key)
    if key.dtype == np.float32 and qcodes.max(initial=0) < 2**31:
        return np.argsort((qcodes.astype(np.uint64) << np.uint64(32)) | desc, kind="stable")
    by_score = np.argsort(desc, kind="stable")
    small = np.int16 if qcodes.max(initial=0) < 2**15 else np.int64
    return by_score[np.argsort(qcodes[by_score].astype(small), kind="stable")]


def rank_run(table: pa.Table, precision: str = "float64") -> tuple[pa.Table, int]:
    """Order one run's lines as trec_eval does and number them.

    Input columns qid, docno, score (float64), tag. Returns the table sorted by qid,
    then score descending, then docno descending, with duplicates of (qid, docno)
    after their first occurrence removed, and a 1-based ``pos`` per topic; plus the
    number of duplicates removed. ``-0.0`` ties with ``0.0``.
    """
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, not {precision!r}")
    score = table["score"].to_numpy() + 0.0
    key = score.astype(np.float32) if precision == "float32" else score
    qcodes = sorted_codes(table["qid"])
    order = topic_score_order(qcodes, key)
    # docno decides only among equal (topic, score): sort the docnos of tied rows only
    q_sorted, k_sorted = qcodes[order], key[order]
    same = (q_sorted[1:] == q_sorted[:-1]) & (k_sorted[1:] == k_sorted[:-1])
    tied = np.zeros(len(order), dtype=bool)
    tied[1:] |= same
    tied[:-1] |= same
    if tied.any():
        # tie groups are contiguous in ``order``: reorder their rows by docno descending
        slots = np.flatnonzero(tied)
        group = np.cumsum(np.r_[True, ~same][tied])  # a new group where the row is not tied to its predecessor
        rows = order[slots]
        dcode = sorted_codes(table["docno"].take(pa.array(rows)))
        order[slots] = rows[np.lexsort((-dcode, group))]
    doc_ids = pc.dictionary_encode(table["docno"])
    if isinstance(doc_ids, pa.ChunkedArray):
        doc_ids = doc_ids.combine_chunks()
    ranked = table.take(pa.array(order))
    qcodes = qcodes[order]
    dcodes = doc_ids.indices.to_numpy(zero_copy_only=False).astype(np.int64)[order]
    pair = qcodes * (int(dcodes.max(initial=0)) + 1) + dcodes
    dup = pd.Series(pair).duplicated(keep="first").to_numpy()
    n_dup = int(dup.sum())
    if n_dup:
        ranked = ranked.filter(pa.array(~dup))
        qcodes = qcodes[~dup]
    pos = position_in_group(group_starts(qcodes)).astype(np.int32)
    return ranked.append_column("pos", pa.array(pos)), n_dup


def _report_row(track, path, kind, run, counts: LineCounts, **extra) -> dict:
    row = {"track": track, "file": str(path), "kind": kind, "run": run}
    row.update(counts.as_dict())
    row.update(extra)
    return row


def ingest_track(track: str, qrels_path, run_paths, precision: str = "float64",
                 on_malformed: str = "error", grade_map: dict | None = None,
                 threads: int = 2) -> TrackTables:
    """Parse a track's qrels and runs once each and build the central tables.

    ``threads`` run files are read and ranked at once.

    ``grade_map`` relabels qrels grades before anything else (see :func:`remap_grades`).
    """
    qrels, qcounts = parse_qrels(qrels_path, on_malformed=on_malformed)
    qrels = remap_grades(qrels, grade_map)
    qrels, qdup = dedupe_qrels(qrels)
    qcounts.duplicate = int(qdup.sum())
    qcounts.kept -= qcounts.duplicate
    qrels = qrels.select(["qid", "docno", "rel"])
    order = pc.sort_indices(qrels, sort_keys=[("qid", "ascending"), ("docno", "ascending")])
    qrels = qrels.take(order)
    judged_topics = pc.unique(qrels["qid"])
    report = [_report_row(track, qrels_path, "qrels", None, qcounts)]

    names = [run_name_from_path(p) for p in run_paths]
    seen: dict[str, str] = {}
    for name, path in zip(names, run_paths):
        if name in seen:
            raise ValueError(f"{path}: run name {name!r} is also the name of {seen[name]}; "
                             "two files of a track must not name the same run")
        seen[name] = str(path)
    def load(name_path):
        name, path = name_path
        table, counts = parse_run(path, on_malformed=on_malformed)
        judged_topic = pc.is_in(table["qid"], value_set=judged_topics)
        counts.unjudged_topic = table.num_rows - pc.sum(judged_topic).as_py() if table.num_rows else 0
        tags = pc.unique(table["tag"]).to_pylist() if table.num_rows else []
        table = table.filter(judged_topic)
        ranked, n_dup = rank_run(table.select(["qid", "docno", "score", "tag"]), precision)
        counts.duplicate = n_dup
        counts.kept = ranked.num_rows
        row = _report_row(track, path, "run", name, counts, tag=tags[0] if tags else None,
                          n_tags=len(tags), n_topics=len(pc.unique(ranked["qid"])))
        counts_by_topic = pc.value_counts(ranked["qid"]) if ranked.num_rows else None
        depth = pa.table({
            "run": pa.array([name] * (len(counts_by_topic) if counts_by_topic else 0), type=pa.string()),
            "qid": counts_by_topic.field("values") if counts_by_topic else pa.array([], pa.string()),
            "n_ret": (counts_by_topic.field("counts").cast(pa.int32()) if counts_by_topic
                      else pa.array([], pa.int32())),
        })
        run_col = pa.array([name] * ranked.num_rows, type=pa.string())
        return row, ranked.add_column(0, "run", run_col), depth

    # files are independent: decompression and Arrow kernels release the GIL
    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        loaded = list(pool.map(load, sorted(zip(names, run_paths))))
    report.extend(row for row, _, _ in loaded)
    ranked_runs = [table for _, table, _ in loaded]
    schema = pa.schema([("run", pa.string()), ("qid", pa.string()), ("docno", pa.string()),
                        ("score", pa.float64()), ("tag", pa.string()), ("pos", pa.int32())])
    runs = pa.concat_tables([t.cast(schema) for t in ranked_runs]) if ranked_runs else schema.empty_table()
    # runs is sorted by run, qid, pos: carry its row number through the join to keep that order
    keyed = runs.select(["run", "qid", "docno", "pos"]).append_column(
        "_row", pa.array(np.arange(runs.num_rows, dtype=np.int64)))
    judged = keyed.join(qrels, keys=["qid", "docno"], join_type="inner")
    judged = judged.take(pc.sort_indices(judged["_row"]))
    judged = judged.select(["run", "qid", "docno", "pos", "rel"])
    depth_schema = pa.schema([("run", pa.string()), ("qid", pa.string()), ("n_ret", pa.int32())])
    depth = pa.concat_tables([d.cast(depth_schema) for _, _, d in loaded]) if loaded else depth_schema.empty_table()
    depth = depth.take(pc.sort_indices(depth, sort_keys=[("run", "ascending"), ("qid", "ascending")]))
    report_df = pd.DataFrame(report)
    return TrackTables(runs=runs, qrels=qrels, judged=judged, depth=depth, report=report_df)


def atomic_write(path, write) -> None:
    """Call ``write(tmp_path)`` then rename to ``path``: no partial file under the final name."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_parquet(table: pa.Table, path) -> None:
    """Write a table as zstd Parquet, atomically."""
    atomic_write(path, lambda tmp: pq.write_table(table, tmp, compression="zstd"))


def write_csv(df: pd.DataFrame, path) -> None:
    """Write a DataFrame as CSV, atomically."""
    atomic_write(path, lambda tmp: df.to_csv(tmp, index=False))


TRACK_FILES = ("runs.parquet", "qrels.parquet", "judged.parquet", "depth.parquet",
               "ingest_report.csv")


def write_track(tables: TrackTables, out_dir) -> None:
    """Write the tables of :func:`ingest_track` under ``out_dir`` (names: TRACK_FILES)."""
    out = Path(out_dir)
    write_parquet(tables.runs, out / "runs.parquet")
    write_parquet(tables.qrels, out / "qrels.parquet")
    write_parquet(tables.judged, out / "judged.parquet")
    write_parquet(tables.depth, out / "depth.parquet")
    write_csv(tables.report, out / "ingest_report.csv")
