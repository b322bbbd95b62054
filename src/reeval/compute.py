"""What ``reeval score``, ``compare`` and ``prefer`` compute, shared with the Python API.

One function per command, from an ingested track (:class:`reeval.io.ingest.TrackTables`,
read from files by the command line, from files or Python objects by :mod:`reeval.api`)
to numbers; the command line prints them, the API makes DataFrames of them. So the two
give the same values, bit for bit. Only numpy is imported here; each function imports
what it needs (scipy for ``compare``, pandas for rareness and ``prefer``).
"""

from __future__ import annotations

from reeval.errors import InputError


def check_tables(tables, verbose: bool = False) -> list[str]:
    """The notes on an ingested track's inputs: one line per file or object whose reading
    differs from trec_eval's or dropped lines trec_eval would keep
    (:func:`reeval.io.notes.notes_line`), then what was read as trec_eval reads it in one
    line for all files (:func:`reeval.io.notes.as_trec_eval_summary`), or with ``verbose``
    one line per file. A run that keeps no line (empty, or every line dropped) is an
    :class:`InputError`."""
    from reeval.io.notes import as_trec_eval_summary, notes_line, nothing_kept

    rows = tables.report_rows
    for row in rows:
        if row["kind"] == "run" and row["kept"] == 0:
            raise InputError(f"{row['file']}: nothing to evaluate ({nothing_kept(row)})")
    notes = [line for line in (notes_line(row, "differences") for row in rows) if line]
    notes += [copies_note(names) for names in alike_runs(tables)]
    if verbose:
        return notes + [line for line in (notes_line(row, "as_trec_eval") for row in rows) if line]
    summary = as_trec_eval_summary(rows)
    return notes + ([summary] if summary else [])


def alike_runs(tables) -> list[list[str]]:
    """Groups of runs (names, two or more each, in the order of the track's runs; groups in
    the order of their first run) of an ingested track that rank the same documents of the
    qrels at the same positions, and as many others, on every topic: the same numbers for
    every measure (a file given under two names, most likely).

    Linear in the runs: each run gets a key in three steps, each computed only for the runs
    that share the previous ones (:func:`split_by`): its documents per topic (``n_ret``,
    which also fixes ``topic`` and ``pos``, since a run's lines are sorted by topic and
    numbered 1..n_ret in each), the sum of its qrels rows (a pass over one array), then
    a SHA-256 digest of its qrels rows. Only runs of one digest are compared line by line
    (topic, position and qrels row of every kept line, :func:`same_lines`), so a collision
    of digests can never make two different runs alike."""
    groups = [list(tables.parts)]
    for key in (_depth_key, _sum_key, _digest_key):
        groups = [group for parts in groups for group in split_by(parts, key) if len(group) > 1]
    alike = [group for parts in groups for group in split_by(parts, None) if len(group) > 1]
    order = {id(part): i for i, part in enumerate(tables.parts)}
    return [[part.name for part in group] for group in sorted(alike, key=lambda g: order[id(g[0])])]


def split_by(parts, key) -> list[list]:
    """``parts`` in groups of one ``key(part)`` each, in the order of their first part; with
    ``key`` None, in groups of equal lines (:func:`same_lines`), each part compared with the
    first part of each group met so far (as many comparisons as groups: one or two for
    the parts of one digest)."""
    groups: dict = {}
    if key is not None:
        for part in parts:
            groups.setdefault(key(part), []).append(part)
        return list(groups.values())
    found: list[list] = []
    for part in parts:
        for group in found:
            if same_lines(group[0], part):
                group.append(part)
                break
        else:
            found.append([part])
    return found


def same_lines(a, b) -> bool:
    """Whether two runs keep the same lines: topic, position and qrels row of each."""
    import numpy as np

    return all(np.array_equal(getattr(a, k), getattr(b, k)) for k in ("topic", "pos", "qrow"))


def _depth_key(part) -> tuple:
    return len(part.pos), part.n_ret.tobytes()


def _sum_key(part) -> int:
    return int(part.qrow.sum())


def _digest_key(part) -> bytes:
    import hashlib

    return hashlib.sha256(part.qrow.data if part.qrow.flags.c_contiguous else part.qrow.tobytes()).digest()


def copies_note(names) -> str:
    """The note on runs that :func:`alike_runs` finds alike."""
    shown = ", ".join(map(repr, names[:5])) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return (f"runs {shown} rank the same judged documents at the same positions on every topic (one file "
            "under several names?): the same numbers for every measure; each is evaluated as given")


def score_track(tables, names, measures, rel_level=1, max_depth=None, unretrieved="after_last",
                alpha=1.0, systems="all", complete=True, judged_only=False, num_docs=0, version=10,
                ties="trec_eval"):
    """``(scores, summary)`` of the runs ``names`` (in that order) of a track.

    ``scores``: :class:`reeval.measures.TopicScores` (per run and qrels topic);
    ``summary``: :func:`reeval.measures.aggregate_values` (per run), averaged over the
    qrels topics when ``complete`` (trec_eval -c), else over the topics each run answered;
    ``summary["runid"]`` holds each run's tag (the last line's, trec_eval's runid) when
    ``runid`` is among the measures. Rareness measures count over the runs ``names``, with
    ``alpha`` and ``systems`` (:mod:`reeval.analyses.rareness.core`); ``max_depth`` keeps the
    first documents of each ranking (trec_eval -M), ``judged_only`` only the judged ones
    (-J, after -M, as trec_eval; a topic the run answered with unjudged documents only is
    still answered, as trec_eval counts it), ``num_docs`` is the collection size (-N, for
    utility); ``version`` the trec_eval whose conventions apply where 9.x and 10 differ
    (:func:`trec_eval_version`). ``ties="ir_measures"`` ranks each measure whose
    ir_measures provider breaks ties otherwise as that provider does
    (:mod:`reeval.measures.providers`), on the orderings the track was ingested with
    (:func:`needed_orders`), one grid per ordering.
    """
    from reeval.analyses.rareness.core import add_rareness, check_alpha
    from reeval.measures import aggregate_values, evaluate_grid, family_of, grid_from_track
    from reeval.measures.context import judged_only_grid
    from reeval.measures.providers import TREC_EVAL_RULE, ordering

    rare = [m for m in measures if family_of(m).needs_runs]
    alpha = check_alpha(alpha)
    main = (TREC_EVAL_RULE, precision_of(version))
    groups: dict = {}
    for m in measures:
        if m not in rare:
            groups.setdefault(ordering(m, ties, precision_of(version)), []).append(m)
    options = dict(rel_level=rel_level, unretrieved=unretrieved, version=version, num_docs=num_docs)
    retrieved = grid_from_track(tables, runs=names, max_depth=max_depth, keep_docno=bool(rare))
    grid = judged_only_grid(retrieved) if judged_only else retrieved
    scores = evaluate_grid(grid, groups.pop(main, []), **options)
    for order, group in groups.items():
        if any(order not in part.orders for part in tables.parts):
            raise ValueError(f"the track was ingested without the ordering {order} that ties={ties!r} needs "
                             "(ingest it with orders=needed_orders(measures, ties, precision))")
        other = grid_from_track(tables, runs=names, max_depth=max_depth, ordering=order)
        scores.values.update(evaluate_grid(judged_only_grid(other) if judged_only else other, group, **options).values)
    add_rareness(scores, grid, rare, alpha, rel_level=rel_level, systems=systems)
    summary = aggregate_values(scores, measures, complete=complete)
    if any(m.family == "runid" for m in measures):
        tags = {row["run"]: row["tag"] for row in tables.report_rows if row["kind"] == "run" and row["tag"]}
        summary["runid"] = [tags.get(name) or name for name in names]
    return scores, summary


def score_notes(scores, names, complete: bool, rel_level: int, version: int = 10, qrels=None) -> list[str]:
    """Where ``score_track``'s numbers are not what trec_eval 10.0 would print for the same
    options, in at most one line each (docs/semantics.md):

    - without ``complete``, runs lacking qrels topics: averaged over the topics each run
      answered, as trec_eval 9.x; trec_eval 10.0 stops (``result qid not found``), and
      ``-c`` would count those topics as scoring 0 (said for version 10 only);
    - a relevance level below 0, read as 0 (negative grades and unjudged documents are
      never relevant; trec_eval counts them as relevant retrieved, not in num_rel);
    - with ``qrels`` (the track's judgments), the topics trec_eval reads otherwise
      (:func:`qrels_notes`).
    """
    import numpy as np

    notes = []
    lacking = (~scores.answered).sum(axis=1) if len(scores.topics) else np.zeros(len(names), dtype=int)
    if not complete and version == 10 and lacking.any():
        T = len(scores.topics)
        runs = [f"{name} lacks {n} of {T}" for name, n in zip(names, lacking) if n]
        shown = "; ".join(runs[:3]) + (f"; {len(runs) - 3} more runs lack some" if len(runs) > 3 else "")
        notes.append(f"qrels topics a run did not answer ({shown}): averaged over the topics answered, "
                     "as trec_eval 9.x (trec_eval 10.0 stops: result qid not found); -c counts them, scoring 0")
    return notes + level_notes(rel_level) + ([] if qrels is None else qrels_notes(qrels, scores, names, complete))


#: the docno trec_eval's -c gives the one document of its placeholder ranking for a topic a
#: run did not answer (trec_eval.c, ``bogus_result``)
PLACEHOLDER_DOCNO = "ceci_nest_pas_un_docno"
#: the most lines one kind of per-occurrence note takes before "and N more"
MAX_NOTE_LINES = 10


def qrels_notes(qrels, scores, names, complete: bool) -> list[str]:
    """Where trec_eval 10.0 reads the judgments ``qrels`` (a :class:`reeval.io.qrels.Qrels`,
    numpy arrays) otherwise, one line per occurrence (at most :data:`MAX_NOTE_LINES` of
    each kind, then a count):

    - a topic whose grades are all negative: reeval scores it as a topic with no relevant
      document; trec_eval sizes its relevance levels by the largest grade G: at G = -1 it
      reuses the levels an earlier topic left (``-q -m ideal_dcg``: that topic's ideal,
      not 0) or stops when none came before, at G <= -2 it crashes;
    - with ``complete`` (-c), a qrels topic a run did not answer that judges
      :data:`PLACEHOLDER_DOCNO`: trec_eval scores its placeholder ranking of that one
      document (map 1 where it is relevant), reeval a topic with nothing retrieved.
    """
    import numpy as np

    from reeval.report.escape import line_text

    top = np.full(len(qrels.topics), np.iinfo(np.int64).min)  # every topic has a row
    np.maximum.at(top, qrels.topic, qrels.rel)
    lines = [f"qrels topic {line_text(qrels.topics[t])}: every grade is negative (largest {top[t]}): scored as a "
             f"topic with no relevant document; trec_eval 10.0 " + ("crashes on it (segmentation fault)"
             if top[t] <= -2 else "reuses the relevance levels an earlier topic left (ideal_dcg: that topic's, "
             "not 0), or stops when no topic came before") for t in np.flatnonzero(top < 0)]
    notes = _capped(lines, "topics with every grade negative")
    if complete and len(scores.topics):
        judged = {qrels.topics[t] for t in np.unique(qrels.topic[_rows_equal(qrels.docno, PLACEHOLDER_DOCNO)])}
        hit = np.isin(np.asarray(scores.topics, dtype=object), list(judged)) & ~scores.answered
        lines = [f"run {line_text(str(names[r]))}, qrels topic {line_text(str(scores.topics[t]))}: not answered, and "
                 f"the qrels judge {PLACEHOLDER_DOCNO}, the one document of trec_eval's -c placeholder ranking: "
                 f"trec_eval 10.0 scores the topic as retrieving it, reeval as retrieving nothing"
                 for r, t in zip(*np.nonzero(hit))]
        notes += _capped(lines, "runs and topics of the placeholder docno")
    return notes


def _rows_equal(strings, text: str):
    """Rows of a :class:`reeval.io.strings.Strings` column whose bytes are ``text``'s (numpy)."""
    import numpy as np

    want = np.frombuffer(text.encode(), dtype=np.uint8)
    rows = np.flatnonzero(strings.lengths() == want.size)
    at = strings.offsets[rows].astype(np.int64)[:, None] + np.arange(want.size)
    return rows[(strings.data[at] == want).all(axis=1)] if rows.size else rows


def _capped(lines: list, what: str) -> list:
    """``lines``, at most :data:`MAX_NOTE_LINES` of them, then one line counting the rest."""
    if len(lines) <= MAX_NOTE_LINES:
        return lines
    return lines[:MAX_NOTE_LINES] + [f"... and {len(lines) - MAX_NOTE_LINES} more {what}"]


def tie_notes_needed(measures, ties: str = "trec_eval", precision: str = "float64", ir_spelled=(),
                     judged_only: bool = False) -> bool:
    """Whether :func:`tie_notes` may have something to say of ``measures`` (ingest then finds
    where ir_measures' providers would order otherwise: ``reordered`` of
    :func:`reeval.io.ingest.ingest_track`)."""
    from reeval.measures.providers import provider, provider_rule

    spelled = set(ir_spelled)
    return not judged_only and any(provider_rule(m, ties, precision) for m in measures
                                   if provider(m) is not None or m in spelled)


def tie_notes(tables, names, measures, ties: str = "trec_eval", max_depth=None, judged_only: bool = False,
              precision: str = "float64", ir_spelled=(), api: bool = False) -> list[str]:
    """One line per run on which ir_measures' provider of a measure ranks documents
    otherwise than reeval within the measure's cutoff, so that its value may differ from
    ir_measures' (:func:`reeval.measures.providers.reordered_topics`): RR@k, Judged@k and
    RBP(rel=n) (ir_measures' names only) under trec_eval's ties, and the measures of
    ``ir_spelled`` (those asked by an ir_measures name) that pytrec_eval computes, on
    float32 ties at float64. Each names the option that gives ir_measures' numbers (the
    keyword argument with ``api``). None with ``judged_only`` (trec_eval -J, which
    ir_measures lacks)."""
    import numpy as np

    from reeval.measures.providers import RULE_WORDS, provider, provider_rule, reordered_topics
    from reeval.report.escape import line_text

    if not tie_notes_needed(measures, ties, precision, ir_spelled, judged_only):
        return []
    asked = [m for m in measures if provider(m) is not None or m in set(ir_spelled)]
    parts = {part.name: part for part in tables.parts}
    first = {rule: np.stack([parts[name].reordered[rule] for name in names]) for rule in RULE_WORDS}
    counts = reordered_topics(asked, first, max_depth, ties, precision)
    switches = ('ties="ir_measures"', 'precision="float32"') if api else ("--ties ir_measures", "--trec-eval-9")
    T = first["input"].shape[1]
    notes = []
    for r, name in enumerate(names):
        hit = [f"{m.name} ({provider(m) or 'pytrec_eval'}: {RULE_WORDS[provider_rule(m, ties, precision)]}; "
               f"{switches[provider(m) is None]}) on {n[r]} of {T} topics" for m, n in counts.items() if n[r]]
        if hit:
            notes.append(line_text(
                f"run {name}: ir_measures' providers rank tied scores otherwise than reeval (trec_eval 10: "
                f"float64 scores, ties by docno descending) within the cutoff of {', '.join(hit)}: these values "
                "may differ from ir_measures' (the option named with each gives ir_measures' numbers)"))
    return notes


def level_notes(rel_level: int) -> list[str]:
    """The note on a relevance level below 0, read as 0 (none for another level)."""
    if rel_level >= 0:
        return []
    return [f"-l {rel_level} read as -l 0: negative grades and unjudged documents are never relevant "
            "(trec_eval 10 would count them as relevant retrieved but not in num_rel)"]


def needed_orders(measures, ties: str = "trec_eval", precision: str = "float64") -> tuple:
    """The orderings besides trec_eval's that ingest must place the runs' lines in for
    :func:`score_track` to rank ``measures`` under ``ties`` (none for ``trec_eval``)."""
    from reeval.measures.providers import other_orderings

    return other_orderings(measures, ties, precision)


def precision_of(version: int) -> str:
    """The score precision of a trec_eval version's conventions (:func:`trec_eval_version`'s
    inverse): float32 for 9, float64 for 10."""
    return "float32" if version == 9 else "float64"


def trec_eval_version(precision: str) -> int:
    """The trec_eval whose conventions a precision stands for: 10 (``float64``) or 9
    (``float32``: trec_eval 9.x and pytrec_eval read scores as floats)."""
    return 9 if precision == "float32" else 10


def check_compare(measures, n_resamples: int) -> None:
    """The measures and resamples ``compare`` can use: per-topic numbers averaged over topics
    (not text such as relstring or runid, not num_* or gm_map), resamples >= 1."""
    text = [m.name for m in measures if m.is_text]
    if text:
        raise InputError(f"compare needs a number per topic: {text[0]} is text (reeval score prints it); "
                         f"give a measure such as map or P.10")
    if any(m.aggregate != "mean" for m in measures):
        raise InputError("compare needs per-topic measures (not num_*, gm_map)")
    if n_resamples < 1:
        raise InputError(f"resamples must be at least 1, not {n_resamples}")


def per_topic_matrices(scores, measures) -> dict:
    """{measure name: runs x topics values} of a :class:`reeval.measures.TopicScores`, over
    every qrels topic (a topic a run misses scored as if nothing was retrieved); ASL
    measures over the topics with a relevant document."""
    import numpy as np

    out = {}
    for m in measures:
        use = scores.num_rel > 0 if m.is_asl else np.ones(len(scores.topics), dtype=bool)
        out[m.name] = scores.values[m.name][:, use]
    return out


def compare_runs_track(tables, names, measures, tests=("t",), correction="holm", baseline=None,
                       alternative="two-sided", seed=0, n_resamples=10000, rel_level=1, max_depth=None,
                       unretrieved="after_last", alpha=1.0, systems="all", version=10, ties="trec_eval"):
    """Every pair of the runs ``names`` (or each run against ``baseline``: a name, or an
    index into ``names``, :func:`reeval.stats.comparisons.baseline_name`) under each test,
    per measure: the rows of :func:`reeval.stats.comparisons.all_pairs_tests` with the
    measure's name first, measures in the order given. Per-topic values as
    :func:`score_track` computes them under trec_eval ``version``'s conventions and
    ``ties`` (:func:`per_topic_matrices` pairs them). ``attrs``
    holds what the comparison table needs: runs, measures, higher_is_better, tests,
    correction, alternative, seed, resamples, baseline (the baseline's name)."""
    import pandas as pd

    from reeval.stats.comparisons import all_pairs_tests, baseline_name

    check_compare(measures, n_resamples)
    baseline = baseline_name(baseline, names)
    scores, _ = score_track(tables, names, measures, rel_level=rel_level, max_depth=max_depth,
                            unretrieved=unretrieved, alpha=alpha, systems=systems, version=version, ties=ties)
    frames = []
    for name, X in per_topic_matrices(scores, measures).items():
        table = all_pairs_tests(X, runs=names, tests=tests, correction=correction, baseline=baseline,
                                alternative=alternative, seed=seed, resamples=n_resamples)
        table.insert(0, "measure", name)
        frames.append(table)
    rows = pd.concat(frames, ignore_index=True)
    rows.attrs.update(runs=list(names), measures=[m.name for m in measures],
                      higher_is_better={m.name: bool(m.higher_is_better) for m in measures}, tests=list(tests),
                      correction=correction, alternative=alternative, seed=seed, resamples=n_resamples,
                      baseline=baseline)
    return rows


def prefer_track(tables, names, rel_level=1):
    """``(per_topic, means)`` DataFrames of lexicographic precision between every pair of
    runs ``names`` (i < j in that order): run_i, run_j, qid, sgnLP, rrLP per topic with a
    relevant document (sorted qrels topics; a topic a run misses counts as nothing
    retrieved), and run_i, run_j, sgnLP, rrLP with the means over those topics."""
    import numpy as np
    import pandas as pd

    from reeval.analyses.lexiprecision.core import compare_pairs, position_vectors

    if len(names) < 2:
        raise InputError("prefer needs at least two runs")
    pv = position_vectors(tables.judged, tables.qrels, tables.depth, runs=names, rel_level=rel_level, levels=1)
    pc = compare_pairs(pv, levels=1)
    per_topic = pc.to_frame()[["run_i", "run_j", "qid", "sgnLP", "rrLP"]]
    runs = np.array(names, dtype=object)
    means = pd.DataFrame({"run_i": runs[pc.ii], "run_j": runs[pc.jj],
                          "sgnLP": pc.sgn.mean(axis=1) if pc.topics else np.full(len(pc.ii), np.nan),
                          "rrLP": pc.rr.mean(axis=1) if pc.topics else np.full(len(pc.ii), np.nan)})
    return per_topic, means
