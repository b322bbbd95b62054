"""``reeval.leave_one_group_out``: test-collection reusability as a DataFrame.

Reads its inputs as :func:`reeval.evaluate` does (:func:`reeval.api.inputs.load_track`) and
computes with :func:`reeval.analyses.reusability.table.reusability_table`, as ``reeval
reusability`` does, so the two give the same values.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

import pandas as pd

from reeval.choices import PRECISIONS, REUSABILITY_PLACES, SYSTEMS, UNRETRIEVED_POLICIES
from reeval.errors import InputError

from .inputs import load_track
from .scoring import QrelsInput, RunsInput, _choice, _integer, _noted, measure_columns


def resolve_groups(runs, groups) -> tuple[dict | None, list]:
    """``(run -> group, notes)`` from ``groups``: a mapping (a pandas Series too), a groups
    file (a path, ``os.PathLike`` or a string naming an existing file, read as ``reeval
    reusability --groups`` reads it: :func:`~reeval.analyses.reusability.groups.read_groups`),
    a regular expression (``re.Pattern``, or a string starting with ``re:``) whose first
    capturing group names the group (a run it does not match, or for which it captures
    nothing, is an InputError naming it), or None: each run alone, and a note says that
    this overstates reusability (:data:`~reeval.analyses.reusability.groups.ALONE`; so does
    a mapping or file that gives no run a group).

    A run missing from the mapping is its own group, and so is a run whose group is missing:
    None, NaN (pandas reads an empty leaderboard cell so) or blank text; one note names those
    runs. They never share a group (a group "nan" or "None" would remove their pooled
    documents together). A misspelt run name (a name that is not in ``runs`` while a run
    of ``runs`` is not in the mapping: :func:`~reeval.analyses.reusability.groups.check_known_runs`;
    a whole campaign's leaderboard for some of its runs is fine) or a missing one is an
    InputError; so is anything else."""
    from reeval.analyses.reusability.core import groups_from_pattern
    from reeval.analyses.reusability.groups import ALONE, check_known_runs, read_groups

    alone_note = [f"groups: {ALONE} (give groups= a mapping, a leaderboard file or 're:<regex>')"]
    if groups is None:
        return None, alone_note
    if isinstance(groups, re.Pattern):
        groups = "re:" + groups.pattern
    if isinstance(groups, str) and groups.startswith("re:"):
        try:
            return groups_from_pattern(runs, groups[3:]), []
        except ValueError as exc:
            raise InputError(f"groups: {exc}") from None
    if isinstance(groups, (str, os.PathLike)):
        if not os.path.isfile(groups):
            raise InputError(f"groups: a mapping run -> group, a groups file or a pattern 're:<regex>', not "
                             f"{os.fspath(groups)!r} (no such file)")
        groups = read_groups(groups)
    if isinstance(groups, pd.Series):
        groups = groups.to_dict()
    if not isinstance(groups, Mapping):
        raise InputError(f"groups: a mapping run -> group, a groups file, a pattern or None, not "
                         f"{type(groups).__name__}")
    if any(_missing(k) for k in groups):
        raise InputError("groups: a run name in the mapping is missing (None, NaN or blank)")
    check_known_runs([str(k) for k in groups], runs, "groups")
    alone = [str(k) for k, v in groups.items() if _missing(v)]
    notes = [f"groups: {len(alone)} run{'s' if len(alone) > 1 else ''} without a group (None, NaN or blank), "
             f"each its own group: {', '.join(repr(r) for r in alone[:5])}{' ...' if len(alone) > 5 else ''}"
             ] if alone else []
    mapping = {str(k): str(v) for k, v in groups.items() if not _missing(v)}
    return mapping, notes if mapping else alone_note


def _missing(value) -> bool:
    """None, NaN, pandas' NA/NaT, or blank text: no value."""
    if isinstance(value, str):
        return not value.strip()
    return pd.api.types.is_scalar(value) and bool(pd.isna(value))


def mean_measures(columns: dict, who: str) -> list:
    """The measures of ``columns`` (spelling -> Measure) that leave one group out can
    re-score: numbers with a mean over topics, each once, in order. InputError naming
    ``who`` when none is (num_*, runid, relstring only)."""
    found = [m for m in dict.fromkeys(columns.values()) if not m.is_text and m.aggregate == "mean"]
    if not found:
        raise InputError(f"{who} needs measures with a mean over topics (not num_*, runid)")
    return found


def leave_one_group_out(qrels: QrelsInput, runs: RunsInput,
                        groups: Mapping | str | os.PathLike | re.Pattern | None = None, *, depth: int = 100,
                        measures: str | Iterable[str] = ("AP", "P@20"),
                        relevance_level: int = 1, precision: str = "float64", unretrieved: str = "after_last",
                        alpha: float | str = 1.0, systems: str = "all",
                        pooled: Iterable[str] | None = None, preferences: bool = False,
                        places: int = REUSABILITY_PLACES) -> pd.DataFrame:
    """Score each run on the full qrels and on the qrels less its group's pool contribution.

    The pool contribution of a group is the judged (topic, document) pairs its runs place in
    their top ``depth`` (trec_eval order: score descending, docno descending) and no other
    group's runs do; the group's runs are scored without them, every other run on the full
    qrels (docs/studies.md, "Reusability").

    Args:
        qrels: any form :func:`reeval.evaluate` takes.
        runs: any form :func:`reeval.evaluate` takes.
        groups: run name -> group name (a run missing from it, or whose group is None, NaN
            or blank, is its own group, and a note says so; a misspelt run name is an
            InputError); a groups file as ``reeval reusability --groups`` reads (``RUN GROUP``
            lines, or a CSV or TSV leaderboard with run and participant, team or group
            columns); a pattern ``"re:<regex>"`` or a compiled ``re.Pattern`` whose first
            capturing group, searched in each run name, is the group (it must match every
            run and capture some text); None: every run is its own group, and a note (a
            warning) says that this overstates reusability when a team submitted several runs.
        depth: the pool depth (documents of each ranking that were judged), >= 1.
        measures: any :func:`reeval.evaluate` takes (one name or several), ASL and the
            rareness measures included (their rarity is recomputed without the group).
        relevance_level: as :func:`reeval.evaluate`.
        precision: as :func:`reeval.evaluate`.
        unretrieved: as :func:`reeval.evaluate`.
        alpha: as :func:`reeval.evaluate`.
        systems: as :func:`reeval.evaluate`.
        pooled: the names of the runs that contributed to the pool (TREC pooled each
            group's priority runs); None: every run. Every run is scored either way.
        preferences: also the agreement of lexicographic precision (sgnLP, = sign of rrLP):
            per group, the share of (left-out run, other run, topic) whose preference is the
            same on the group's reduced qrels (for both runs) as on the full qrels; above
            100,000 pair-topics at risk a sample with seed 0 (docs/studies.md).
        places: the verdicts count the runs whose inserted rank moves by more than this
            (the default of ``reeval reusability --places`` and the workflow's
            ``reusability.places``: :data:`reeval.choices.REUSABILITY_PLACES`).

    Returns:
        One row per (run, measure), runs in the order given: ``group, run, measure, score,
        score_logo, delta`` (score_logo - score), ``rank, rank_logo`` (the run's rank among
        all runs, the others on the full qrels), ``removed, removed_relevant`` (pairs removed
        for the group). ``attrs``: ``depth``, ``higher_is_better`` (per measure), ``notes``,
        and with ``preferences`` a dict ``preferences``: the track's agreement (``overall``,
        %), ``pair_topics``, ``at_risk``, ``sampled``, ``seed`` and ``by_group`` (columns
        group, runs, pair_topics, at_risk, sampled, disagree_sampled, agreement as lists);
        ``verdicts``: one record per measure as ``reeval reusability`` prints it (measure,
        runs, groups, max_drop, max_drop_run, mean_drop, kendall_tau_left_out, places,
        rank_changes_inserted ...: :func:`reeval.analyses.reusability.table.verdicts`).

    Raises:
        InputError: bad input (the message names the source, the row and what was expected).
    """
    from reeval.analyses.reusability.table import reusability_table, verdicts
    from reeval.compute import trec_eval_version
    from reeval.measures import grid_from_track

    _choice("precision", precision, PRECISIONS)
    _choice("unretrieved", unretrieved, UNRETRIEVED_POLICIES)
    _choice("systems", systems, SYSTEMS)
    level = _integer("relevance_level", relevance_level)
    depth = _integer("depth", depth)
    places = _integer("places", places)
    columns = measure_columns(measures, precision=precision)
    unique = mean_measures(columns, "measures: leave_one_group_out")
    from reeval.analyses.rareness.core import check_alpha

    try:
        alpha = check_alpha(alpha)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    tables, names, notes = load_track(qrels, runs, precision)
    if pooled is not None:
        from reeval.analyses.reusability.groups import check_known_runs

        pooled = [pooled] if isinstance(pooled, str) else [str(r) for r in pooled]
        check_known_runs(pooled, names, "pooled", strict=True)
    group_of, group_notes = resolve_groups(names, groups)
    grid = grid_from_track(tables, runs=names, keep_docno=True)
    table = reusability_table(grid, group_of, unique, depth=depth, rel_level=level,
                              unretrieved=unretrieved, version=trec_eval_version(precision),
                              alpha=alpha, systems=systems, pooled=pooled, preferences=bool(preferences))
    rename = {m.name: c for c, m in columns.items()}
    table["measure"] = table["measure"].map(lambda n: rename.get(n, n))
    table.attrs["higher_is_better"] = {rename.get(k, k): v for k, v in table.attrs["higher_is_better"].items()}
    table.attrs["verdicts"] = verdicts(table, places).to_dict("records")
    return _noted(table, tables, [*notes, *group_notes])
