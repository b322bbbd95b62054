"""A seeded generator of synthetic TREC campaigns with the shapes real files have.

Each track has topics with graded judgments and runs of varying quality that rank a
shared per-topic pool of documents, so runs overlap: some relevant documents are found
by most runs, some by none. Per document d of topic t and run s,

    latent(s, d) = quality_s * ease_d * [d relevant] + N(0, 1)

where ``ease_d`` ~ U(-0.5, 1.5) is shared by every run (hard relevant documents stay
low for everyone); a run retrieves its ``depth`` highest latents, scored by the latent
rounded to ``score_decimals`` (or to 1 decimal for "tied" runs, which makes most of
their scores equal). The oddities of real files are switched on per track (see
:class:`TrackSpec`). Same spec and seed -> byte-identical files.

    python -m reeval.synth.tracks OUT_DIR [--track NAME | --benchmark] [--seed N]

A whole study with the shape of the real one (tracks x runs from the TREC catalog):
:mod:`reeval.synth.campaign`. :func:`write_track` holds one run in memory at a time.
"""

from __future__ import annotations

import argparse
import hashlib
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from reeval.io.atomic import atomic_write
from reeval.io.compiled import kernels
from reeval.io.sources import Digest, zlib_module

from .pooltop import row_take, top_depth


@dataclass(frozen=True)
class TrackSpec:
    """Shape of a synthetic track.

    n_runs, n_topics, depth: runs, judged topics, documents per topic per run.
    relevant_per_topic: mean relevant documents (Poisson, at least 1) per judged topic;
    judged_nonrel_per_topic: judged non-relevant documents per topic; max_rel: highest
    grade (1 = binary). pool_factor: pool size = depth * pool_factor + relevant.
    tie_fraction: share of runs whose scores are rounded to 1 decimal (mostly tied).
    shallow_fraction / shallow_depths: share of runs that retrieve fewer documents.
    missing_topic_fraction: share of runs that skip one or two judged topics.
    n_unjudged_topics: topics every run answers that the qrels do not judge.
    duplicate_docs: runs that repeat one document of a topic (with a lower score).
    negative_judgments: judged non-relevant lines rewritten with grade -1.
    zero_relevant_topics: judged topics whose judgments are all non-relevant.
    mixed_format: vary column 2 (Q0, 0, q0), separators (tab, space), rank start
    (0, 1), qrels column 2 (0 or a judging round such as 0.5), write one run as
    ``input.<name>``, give one run a tag that differs from its file name, and put a
    comment line and a blank line in one run.
    compress: "gz" or "none".
    """

    n_runs: int = 8
    n_topics: int = 10
    depth: int = 100
    relevant_per_topic: float = 10.0
    judged_nonrel_per_topic: int = 30
    max_rel: int = 2
    pool_factor: float = 1.5
    score_decimals: int = 4
    tie_fraction: float = 0.0
    shallow_fraction: float = 0.0
    shallow_depths: tuple = (10, 20, 50)
    missing_topic_fraction: float = 0.0
    n_unjudged_topics: int = 0
    duplicate_docs: int = 0
    negative_judgments: int = 0
    zero_relevant_topics: int = 0
    mixed_format: bool = False
    compress: str = "gz"


DEFAULT_CAMPAIGN = {
    "syn-graded": TrackSpec(n_runs=8, n_topics=12, depth=100, relevant_per_topic=12, max_rel=3,
                            tie_fraction=0.25, duplicate_docs=1, negative_judgments=2,
                            n_unjudged_topics=3),
    "syn-shallow": TrackSpec(n_runs=10, n_topics=15, depth=50, relevant_per_topic=8, max_rel=1,
                             shallow_fraction=0.4, shallow_depths=(10, 20),
                             missing_topic_fraction=0.3, zero_relevant_topics=1),
    "syn-mixed": TrackSpec(n_runs=6, n_topics=10, depth=200, relevant_per_topic=15, max_rel=2,
                           mixed_format=True, n_unjudged_topics=1, duplicate_docs=1),
}

BENCHMARK_TRACK = TrackSpec(n_runs=50, n_topics=250, depth=1000, relevant_per_topic=100,
                            judged_nonrel_per_topic=200, max_rel=2, score_decimals=4,
                            compress="none")


def spec_from_config(value) -> TrackSpec:
    """A config's ``synthetic:`` value: a built-in track's name or a dict of TrackSpec fields."""
    if isinstance(value, str):
        return DEFAULT_CAMPAIGN[value]
    fields = dict(value)
    if "shallow_depths" in fields:
        fields["shallow_depths"] = tuple(fields["shallow_depths"])
    return TrackSpec(**fields)


def _topic_ids(spec: TrackSpec) -> tuple[np.ndarray, np.ndarray]:
    judged = np.array([str(101 + i) for i in range(spec.n_topics)], dtype="S")
    unjudged = np.array([str(101 + spec.n_topics + i) for i in range(spec.n_unjudged_topics)], dtype="S")
    return judged, unjudged


def _docnos(t: np.ndarray, p: np.ndarray, width: int) -> np.ndarray:
    """``D<t:04d><p:0{width}d>`` as fixed-width bytes, vectorized (no Python string per row)."""
    digits = 4 + width
    n = t.astype(np.int64) * 10 ** width + p
    powers = 10 ** np.arange(digits - 1, -1, -1, dtype=np.int64)
    out = np.empty((len(n), digits + 1), dtype=np.uint8)
    out[:, 0] = ord("D")
    out[:, 1:] = (n[:, None] // powers) % 10 + ord("0")
    return out.view(f"S{digits + 1}").ravel()


def _strings(values: np.ndarray) -> pa.Array:
    """A numpy bytes array as an Arrow string array (ASCII, so no re-encoding).

    When every value fills the array's width (no trailing NUL, which numpy pads with and
    Arrow strips), the array's bytes are the string data as they are, at offsets
    0, w, 2w ...: no copy per value. Otherwise, and beyond 2 GiB, Arrow converts each value."""
    n, width = len(values), values.dtype.itemsize
    full = width > 0 and n * width < 2**31 and bool(
        (values.view(np.uint8).reshape(n, width)[:, -1] != 0).all())
    if not full:
        return pa.array(values, type=pa.binary()).cast(pa.string())
    offsets = np.arange(0, (n + 1) * width, width, dtype=np.int32)
    return pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(np.ascontiguousarray(values)))


def generate_track(spec: TrackSpec, seed: int = 0):
    """Build a track in memory.

    Returns ``(qrels, runs)``: qrels a pyarrow Table (qid, iter, docno, rel) and runs a
    dict file name -> pyarrow Table (qid, iter, docno, rank, score, tag) plus the
    per-run extras (separator, header lines) as a dict in ``table.schema.metadata``.
    """
    qrels, runs = iter_track(spec, seed)
    return qrels, dict(runs)


@dataclass
class _Pool:
    """The documents of every topic: ``topics`` (judged first, then unjudged), the number
    of judged topics ``Tj``, ``n_rel`` relevant documents per judged topic, the pool size
    (documents per topic, docno width ``width``), and per (topic, document) ``is_rel``,
    ``grades`` and ``ease`` (how readily a good run ranks it)."""

    topics: np.ndarray
    judged: np.ndarray
    Tj: int
    n_rel: np.ndarray
    pool: int
    width: int
    is_rel: np.ndarray
    grades: np.ndarray
    ease: np.ndarray
    rel_ease: np.ndarray


def _document_pool(spec: TrackSpec, rng) -> _Pool:
    """Draw the pool: Poisson relevant documents per judged topic (at least 1, none for the
    last ``zero_relevant_topics``), placed first in the pool, graded 1..max_rel."""
    judged, unjudged = _topic_ids(spec)
    topics = np.concatenate([judged, unjudged])
    T, Tj = len(topics), len(judged)
    if T > 10_000:
        raise ValueError(f"at most 10,000 topics per synthetic track, not {T}")
    n_rel = np.maximum(rng.poisson(spec.relevant_per_topic, Tj), 1)
    if spec.zero_relevant_topics:
        n_rel[-spec.zero_relevant_topics:] = 0
    pool = int(spec.depth * spec.pool_factor) + int(n_rel.max(initial=0)) + spec.judged_nonrel_per_topic
    # docnos: topic block t, position p -> D<t><p>; relevant documents first in the pool
    is_rel = np.zeros((T, pool), dtype=bool)
    is_rel[:Tj] = np.arange(pool)[None, :] < n_rel[:, None]
    grades = np.where(is_rel, rng.integers(1, spec.max_rel + 1, (T, pool)), 0)
    ease = rng.uniform(-0.5, 1.5, (T, pool))
    return _Pool(topics, judged, Tj, n_rel, pool, len(str(pool)), is_rel, grades, ease, ease * is_rel)


def _qrels_table(spec: TrackSpec, rng, p: _Pool) -> pa.Table:
    """Relevant + judged non-relevant documents of the judged topics, lines shuffled;
    ``negative_judgments`` non-relevant grades rewritten as -1."""
    n_judged = p.n_rel + spec.judged_nonrel_per_topic
    q_t = np.repeat(np.arange(p.Tj), n_judged)
    q_p = np.concatenate([np.arange(n) for n in n_judged]) if p.Tj else np.zeros(0, int)
    q_rel = p.grades[q_t, q_p]
    if spec.negative_judgments:
        nonrel_idx = np.flatnonzero(q_rel == 0)
        q_rel[rng.choice(nonrel_idx, spec.negative_judgments, replace=False)] = -1
    order = rng.permutation(len(q_t))  # qrels lines in no particular order
    q_iter = np.where(rng.random(len(q_t)) < 0.5, "0.5", "1") if spec.mixed_format else np.full(len(q_t), "0")
    return pa.table({"qid": _strings(p.judged[q_t[order]]), "iter": q_iter[order].astype(str),
                     "docno": _strings(_docnos(q_t[order], q_p[order], p.width)), "rel": q_rel[order]})


def _run_kinds(spec: TrackSpec, rng) -> dict:
    """Which runs are tied, shallow, missing topics, or repeat a document (sets of indices)."""
    def pick(fraction):
        return set(rng.choice(spec.n_runs, int(round(fraction * spec.n_runs)), replace=False).tolist())

    kinds = {"tied": pick(spec.tie_fraction), "shallow": pick(spec.shallow_fraction),
             "missing": pick(spec.missing_topic_fraction)}
    kinds["dups"] = set(rng.choice(spec.n_runs, min(spec.duplicate_docs, spec.n_runs), replace=False).tolist())
    return kinds


def _run_format(spec: TrackSpec, s: int, name: str) -> dict:
    """File name, column 2, rank start, tag, separator and comment lines of run ``s``:
    varied by ``mixed_format``, plain otherwise."""
    mixed = spec.mixed_format
    return {"fname": f"input.{name}" if mixed and s == 2 else name,
            "col2": ("Q0", "0", "q0")[s % 3 if mixed else 0],
            "rank_start": 0 if (mixed and s % 2 == 0) else 1,
            "tag": "renamed-tag" if mixed and s == 1 else name,
            "sep": " " if (mixed and s % 2 == 1) else "\t",
            "comment": "1" if (mixed and s == 3) else "0"}


def _pool_docnos(p: _Pool) -> np.ndarray:
    """The docno of every (topic, pool position), topics x pool: written once per track
    and looked up by every run. Each is :func:`_docnos` of its pair, ``D<t:04d>`` then
    ``<p:0{width}d>``, put together from the topics' prefixes and the positions' digits
    (a copy of bytes, not the digits of every pair computed again)."""
    T = len(p.topics)
    prefix = _docnos(np.arange(T), np.zeros(T, dtype=np.int64), 0).view(np.uint8).reshape(T, 5)
    powers = 10 ** np.arange(p.width - 1, -1, -1, dtype=np.int64)
    digits = (np.arange(p.pool, dtype=np.int64)[:, None] // powers % 10 + ord("0")).astype(np.uint8)
    out = np.empty((T, p.pool, 5 + p.width), dtype=np.uint8)
    out[:, :, :5] = prefix[:, None, :]
    out[:, :, 5:] = digits[None, :, :]
    return out.view(f"S{5 + p.width}")[:, :, 0]


@dataclass
class _RunRows:
    """A run's lines as columns: ``qid`` and ``docno`` numpy bytes, ``rank`` int64 and
    ``score`` float64 (rounded to ``decimals``), with its file name and format
    (:func:`_run_format`) in ``format``."""

    qid: np.ndarray
    docno: np.ndarray
    rank: np.ndarray
    score: np.ndarray
    decimals: int
    format: dict


def _latent(rng, p: _Pool, quality: float, scratch: np.ndarray) -> np.ndarray:
    """A run's latent = quality x ease x relevant + N(0, 1) of every (topic, pool document),
    in ``scratch[0]``, with ``scratch[1]`` for the product (``scratch``: 2 x topics x pool
    float64, reused by every run: no fresh pages a run). The same doubles as
    ``quality * ease * is_rel + noise``: ``(q x e) x r`` and ``q x (e x r)`` are equal for r
    0 or 1 (a zero's sign included), and a sum does not depend on its order."""
    latent, product = scratch
    rng.standard_normal(latent.shape, out=latent)
    np.multiply(p.rel_ease, quality, out=product)
    latent += product
    return latent


def _run_rows(spec: TrackSpec, rng, p: _Pool, s: int, quality: float, kinds: dict, name: str,
              docnos: np.ndarray, scratch: np.ndarray) -> _RunRows:
    """Run ``s``: the top ``depth`` documents of its :func:`_latent` (``scratch``: its
    buffers), per kept topic. ``docnos``: :func:`_pool_docnos` of ``p``."""
    depth = int(rng.choice(spec.shallow_depths)) if s in kinds["shallow"] else spec.depth
    depth = min(depth, spec.depth, p.pool)  # a shallow run is never deeper than the track
    latent = _latent(rng, p, quality, scratch)
    top = top_depth(latent, depth)
    score = row_take(latent, top)
    decimals = 1 if s in kinds["tied"] else spec.score_decimals
    score = np.round(score, decimals)
    keep_topic = np.ones(len(p.topics), dtype=bool)
    if s in kinds["missing"] and p.Tj > 2:
        keep_topic[rng.choice(p.Tj, int(rng.integers(1, 3)), replace=False)] = False
    t_idx = np.repeat(np.flatnonzero(keep_topic), depth)
    p_idx = top[keep_topic].ravel()
    sc = score[keep_topic].ravel()
    rank = np.tile(np.arange(depth), keep_topic.sum())
    if s in kinds["dups"] and len(t_idx):
        t_idx, p_idx = np.append(t_idx, t_idx[0]), np.append(p_idx, p_idx[0])
        sc, rank = np.append(sc, sc[0] - 1.0), np.append(rank, depth)
    f = _run_format(spec, s, name)
    docno = docnos.ravel().take(t_idx * p.pool + p_idx)  # docnos[t_idx, p_idx] in half the time
    return _RunRows(p.topics[t_idx], docno, (rank + f["rank_start"]).astype(np.int64), sc, decimals, f)


def _run_table(rows: _RunRows):
    """A run as (file name, table (qid, iter, docno, rank, score, tag) with the extras,
    separator and comment, in its schema metadata)."""
    f, n = rows.format, len(rows.rank)
    table = pa.table({"qid": _strings(rows.qid), "iter": pa.repeat(f["col2"], n),
                      "docno": _strings(rows.docno), "rank": rows.rank,
                      "score": rows.score, "tag": pa.repeat(f["tag"], n)})
    return f["fname"], table.replace_schema_metadata({"sep": f["sep"], "comment": f["comment"]})


def iter_track(spec: TrackSpec, seed: int = 0):
    """As :func:`generate_track`, but the runs come one at a time from a generator,
    ``(file name, table)``, so that writing a track holds one run in memory, not all.

    Every random draw comes from one ``numpy.random.default_rng(seed)`` in a fixed order
    (pool, qrels, run kinds, then each run as it is asked for), so a seed gives the same
    track byte for byte.
    """
    qrels, rows = _track_rows(spec, seed)
    return qrels, (_run_table(r) for r in rows)


def _track_rows(spec: TrackSpec, seed: int):
    """``(qrels table, generator of each run's _RunRows)``: :func:`iter_track`'s draws."""
    rng = np.random.default_rng(seed)
    pool = _document_pool(spec, rng)
    qrels = _qrels_table(spec, rng, pool)
    quality = np.linspace(3.0, 0.2, spec.n_runs)
    names = [f"run{i:02d}" for i in range(spec.n_runs)]
    kinds = _run_kinds(spec, rng)
    docnos = _pool_docnos(pool)
    scratch = np.empty((2, len(pool.topics), pool.pool))
    rows = (_run_rows(spec, rng, pool, s, quality[s], kinds, names[s], docnos, scratch) for s in range(spec.n_runs))
    return qrels, rows


def _to_text(table: pa.Table, sep: str) -> bytes:
    """Whitespace-separated lines, no header or quoting; floats as Arrow prints them."""
    sink = pa.BufferOutputStream()
    pacsv.write_csv(table, sink, write_options=pacsv.WriteOptions(
        include_header=False, delimiter=sep, quoting_style="none"))
    return sink.getvalue().to_pybytes()


def _scaled(score: np.ndarray, decimals: int) -> tuple[np.ndarray, np.ndarray]:
    """``(k, special)`` of float scores: k int64 with ``score == k / 10**decimals`` (what
    ``np.round(x, decimals)`` gives), written as such by ``run_lines``; ``special`` marks
    the scores that have no such k with |score| < 1e8, and -0.0: NaN, infinities, values
    not so rounded (a repeated document's score minus 1 may be one), huge ones (k 0 there).

    Written that way, a score is its shortest round-trip decimal, as Arrow writes it: k has
    at most 14 digits, and two decimals of at most 15 significant digits are never the
    same double; Arrow uses no exponent from 1e-6 (decimals <= 6) to below 1e8."""
    scale = 10.0 ** decimals
    with np.errstate(over="ignore", invalid="ignore"):
        k = np.rint(score * scale)
        special = ~((k / scale == score) & (np.abs(k) < 1e8 * scale)) | ((k == 0) & np.signbit(score))
    return np.where(special, 0, k).astype(np.int64), special


def _float_texts(values: np.ndarray) -> list[bytes]:
    """Each float as Arrow's CSV writer writes it (shortest round trip, ``1e-7``, ``-0``, ``nan``)."""
    if not len(values):
        return []
    return _to_text(pa.table({"score": values}), "\t").split(b"\n")[:-1]


def _run_lines(rows: _RunRows) -> bytes:
    """The lines of a run file: the bytes of :func:`_to_text` of :func:`_run_table`, by the
    compiled ``run_lines`` where it is built and the scores have 0..6 decimals (their
    :func:`_scaled` integers; the special ones as :func:`_float_texts`), by Arrow otherwise
    (also with kernels built before ``run_lines`` existed)."""
    run_lines, f = getattr(kernels(), "run_lines", None), rows.format
    if run_lines is None or not 0 <= rows.decimals <= 6:
        return _to_text(_run_table(rows)[1].replace_schema_metadata(None), f["sep"])
    if not len(rows.rank):
        return b""
    k, special = _scaled(rows.score, rows.decimals)
    texts = _float_texts(rows.score[special])
    offsets = np.cumsum([0] + [len(t) for t in texts], dtype=np.int64)
    qid, docno = np.ascontiguousarray(rows.qid), np.ascontiguousarray(rows.docno)
    return run_lines(qid, qid.dtype.itemsize, docno, docno.dtype.itemsize, rows.rank, k, rows.decimals,
                     special.view(np.uint8), offsets, b"".join(texts), f["col2"].encode(), f["tag"].encode(),
                     f["sep"].encode())


def _run_file(rows: _RunRows) -> list[bytes]:
    """A run file's bytes in pieces: its lines, after a comment line and before a blank
    line when its format asks for them."""
    lines = _run_lines(rows)
    if rows.format["comment"] == "1":
        return [b"# synthetic run with a comment line and a blank line\n", lines, b"\n"]
    return [lines]


def _gzip(pieces: list[bytes]) -> list[bytes]:
    """The gzip file of the pieces' concatenation at level 1 (mtime 0, no file name), streamed
    without joining the pieces first (zlib's output does not depend on how its input comes in
    pieces when nothing is flushed before the end; ISA-L's can, and a run's pieces are fixed by
    its spec and seed, so the same run gets the same bytes). Deflated by
    :func:`reeval.io.sources.zlib_module`: ISA-L's level 1 where ``isal`` is installed (3.8x
    zlib's level 1 on the generator's runs, and a smaller file), else zlib's, byte for byte
    ``gzip.compress(data, compresslevel=1, mtime=0)``. The two store other bytes of the same
    text: a track's stored bytes (and the ingest report's ``bytes`` and ``sha256`` of them)
    are those of the deflate used; every table read from them is the same."""
    z = zlib_module().compressobj(1, zlib.DEFLATED, 31)
    return [z.compress(piece) for piece in pieces] + [z.flush()]


@dataclass
class WrittenFile:
    """A file :func:`written_files` wrote: its ``path``, its ``text`` (the bytes a reader gets
    after decompression), how it is stored (``compression``: ``gzip`` or ``plain``, as
    :func:`reeval.io.sources.compression_of` names it) and, when asked, the
    :class:`~reeval.io.sources.Digest` of the bytes stored (hashed as they were written)."""

    path: Path
    text: bytes
    compression: str
    digest: Digest | None = None


def _write(path: Path, pieces: list[bytes], compress: str, digest: bool = False) -> WrittenFile:
    """Write the pieces' concatenation to ``path``, or gzipped (level 1) to ``path.gz``."""
    stored = pieces
    if compress == "gz":
        path = path.with_name(path.name + ".gz")
        # level 1: ingest reads the file once; level 6 was a third of a generated track's time
        stored = _gzip(pieces)

    def write(tmp):
        with open(tmp, "wb") as out:
            out.writelines(stored)
    atomic_write(path, write)
    text = pieces[0] if len(pieces) == 1 else b"".join(pieces)
    return WrittenFile(path, text, "gzip" if compress == "gz" else "plain", _digest(stored) if digest else None)


def _digest(pieces: list[bytes]) -> Digest:
    """The :class:`~reeval.io.sources.Digest` of the pieces' concatenation, piece by piece."""
    sha = hashlib.sha256()
    for piece in pieces:
        sha.update(piece)
    return Digest(sum(map(len, pieces)), sha.hexdigest())


def run_file_names(spec: TrackSpec) -> list[str]:
    """The file names of a track's runs below ``runs/``, in the order they are written."""
    suffix = ".gz" if spec.compress == "gz" else ""
    return [_run_format(spec, s, f"run{s:02d}")["fname"] + suffix for s in range(spec.n_runs)]


def written_files(out_dir, spec: TrackSpec, seed: int = 0, digest: bool = False):
    """Write ``out_dir/qrels.txt`` and ``out_dir/runs/<run>[.gz]`` for one track, one file at a
    time (qrels first, then the runs in :func:`run_file_names` order), yielding each as a
    :class:`WrittenFile` once it is written (with the digest of its bytes when ``digest``):
    whoever reads the track next can take its text from memory."""
    out = Path(out_dir)
    (out / "runs").mkdir(parents=True, exist_ok=True)
    qrels, runs = _track_rows(spec, seed)
    yield _write(out / "qrels.txt", [_to_text(qrels, " ")], "none", digest)
    for rows in runs:
        yield _write(out / "runs" / rows.format["fname"], _run_file(rows), spec.compress, digest)


def write_track(out_dir, spec: TrackSpec, seed: int = 0) -> None:
    """Write ``out_dir/qrels.txt`` and ``out_dir/runs/<run>[.gz]`` for one track."""
    for _ in written_files(out_dir, spec, seed):
        pass


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description="Write a seeded synthetic TREC campaign.")
    ap.add_argument("out_dir")
    group = ap.add_mutually_exclusive_group()
    group.add_argument("--track", choices=sorted(DEFAULT_CAMPAIGN))
    group.add_argument("--benchmark", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.benchmark:
        write_track(args.out_dir, BENCHMARK_TRACK, args.seed)
        return
    for name in [args.track] if args.track else sorted(DEFAULT_CAMPAIGN):
        write_track(Path(args.out_dir) / name, DEFAULT_CAMPAIGN[name], args.seed)


if __name__ == "__main__":  # pragma: no cover
    main()
