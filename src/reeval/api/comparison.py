"""``reeval.compare_runs``: every pair of runs under every test, and the table users know;
``reeval.compare``: the same tests between two runs, as ``reeval compare`` once printed them.

One row per (measure, test, run_a, run_b); :meth:`Comparison.report` renders the
ranx-style table (a row per run, the measures as columns, a marker for each run it beats
significantly) as text, Markdown or LaTeX. The values are those of ``reeval compare``
(:func:`reeval.compute.compare_runs_track`), bit for bit.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from reeval.choices import (ALTERNATIVES, PRECISIONS, REPORT_FORMAT, STATSMODELS_CORRECTIONS, SYSTEMS, TIES,
                            UNRETRIEVED_POLICIES, integer_problem)
from reeval.errors import InputError

from .inputs import is_path, load_track
from .scoring import QrelsInput, RunsInput, _choice, _integer, _noted, ir_spelled, measure_columns


class Comparison(pd.DataFrame):
    """The rows of :func:`compare_runs` (a DataFrame) with :meth:`report`. ``attrs`` keeps
    the settings the table needs: runs, measures, higher_is_better, tests, correction,
    alternative, seed, resamples (and, when read from files, notes and ingest_report)."""

    @property
    def _constructor(self):
        return Comparison

    def report(self, test: str | None = None, max_p: float | None = None, format: str = REPORT_FORMAT,
               decimals: int | None = None) -> str:
        """The comparison table of ``test``, or (the default) of each test run, one after
        another in the order asked for, separated by a blank line (as ``reeval compare``
        prints them): a row per run (marked a, b, ... or 1, 2, ... beyond 26 runs), the
        measures as columns, each mean followed by the markers of the runs it beats at
        p_adjusted < ``max_p`` (in the measure's direction), the best mean per measure in
        bold; a caption names the test, its correction and the threshold. ``format``:
        "text" (the default, as ``reeval compare``'s: :data:`reeval.choices.REPORT_FORMAT`),
        "markdown" or "latex" (booktabs: \\toprule, \\midrule, \\bottomrule). ``max_p`` and
        ``decimals`` default to those :func:`compare_runs` was given (ranx's ``max_p`` and
        ``rounding_digits``), else 0.05 and 4."""
        from reeval.report.significance_table import FORMATS, render_each

        settings = self.attrs
        max_p = settings.get("max_p", 0.05) if max_p is None else max_p
        decimals = settings.get("decimals", 4) if decimals is None else decimals
        if test is not None and test not in settings["tests"]:
            raise InputError(f"test {test!r} was not run; the comparison has {', '.join(settings['tests'])}")
        if format not in FORMATS:
            raise InputError(f"format must be one of {', '.join(FORMATS)}; got {format!r}")
        if not 0 < max_p <= 1:
            raise InputError(f"max_p must be in (0, 1]; got {max_p!r}")
        return render_each(pd.DataFrame(self), settings, settings["tests"] if test is None else [test], max_p, format,
                           _integer("decimals", decimals))


#: PyTerrier's and statsmodels' names of a correction (``multipletests(method=...)``;
#: ``Experiment(correction=None)``: none) -> reeval's (:data:`reeval.choices.PAIR_CORRECTIONS`)
CORRECTION_ALIASES = {**STATSMODELS_CORRECTIONS, None: "none"}


def one_of(name: str, value, alias: str, alias_value, default=None, whose: str = "PyTerrier's"):
    """An option given under reeval's ``name`` or ``whose`` ``alias`` (PyTerrier's
    ``test``, ``eval_metrics``; ranx's ``metrics``, ``stat_test`` ...): the one given, else
    ``default``; both is an InputError."""
    if value is not None and alias_value is not None:
        raise InputError(f"give {name}= or {alias}= ({whose} name), not both")
    found = value if value is not None else alias_value
    return default if found is None else found


def pair_correction(correction) -> str:
    """reeval's name of ``correction``: ``holm``, ``bonferroni``, ``bh`` or ``none``, or
    statsmodels' ``fdr_bh`` (= ``bh``) and PyTerrier's ``None`` (= ``none``). Another of
    statsmodels' methods (``sidak``, ``holm-sidak``, ``fdr_by`` ...) is an InputError."""
    from reeval.stats.comparisons import PAIR_CORRECTIONS

    key = CORRECTION_ALIASES.get(correction, correction) if isinstance(correction, (str, type(None))) else correction
    if key not in PAIR_CORRECTIONS:
        raise InputError(f"correction must be one of {', '.join(PAIR_CORRECTIONS)} (statsmodels' names: holm, "
                         f"bonferroni, fdr_bh; None: none); got {correction!r}")
    return key


def _check(tests, correction, alternative, resamples, seed) -> tuple[list, str]:
    """(tests as a list, reeval's correction), each checked."""
    from reeval.stats.comparisons import ALL_PAIRS_TESTS

    tests = [tests] if isinstance(tests, str) or callable(tests) else list(tests)
    if not tests:
        raise InputError("tests: no test given")
    for test in tests:
        if callable(test):
            raise InputError(f"tests: name a test ({', '.join(ALL_PAIRS_TESTS)}), not a function: the table's "
                             "caption names the test and its correction")
        _choice("tests", test, ALL_PAIRS_TESTS)
    correction = pair_correction(correction)
    _choice("alternative", alternative, ALTERNATIVES)
    _integer("resamples", resamples)
    _integer("seed", seed)
    return tests, correction


def _from_frame(frame: pd.DataFrame, runs, measures, **options) -> Comparison:
    """The comparison of ``evaluate(per_topic=True)``'s frame: the measures are its columns
    (or those named), their directions from the registry."""
    from reeval.stats.comparisons import all_pairs_tests, baseline_name

    names = list(frame.columns) if measures is None else [str(m) for m in
                                                          ([measures] if isinstance(measures, str) else measures)]
    missing = [m for m in names if m not in frame.columns]
    if missing:
        raise InputError(f"measures: {missing[0]!r} is not a column of the frame; columns: "
                         f"{', '.join(map(str, frame.columns))}")
    directions = {m: _higher_is_better(m) for m in names}
    order = list(runs) if runs is not None else list(pd.unique(frame.index.get_level_values(0)))
    options["baseline"] = baseline_name(options.get("baseline"), order)
    frames = []
    for m in names:
        table = all_pairs_tests(frame[m], runs=runs, **options)
        table.insert(0, "measure", m)
        frames.append(table)
    result = Comparison(pd.concat(frames, ignore_index=True))
    result.attrs.update(runs=order, measures=names, higher_is_better=directions, **options)
    return result


def _higher_is_better(name: str) -> bool:
    """The registry's direction of a measure column (True for a name it does not know)."""
    from reeval.measures import parse_measure

    try:
        found = parse_measure(name)
    except ValueError:
        return True
    return bool(found[0].higher_is_better) if len(found) == 1 else True


#: ranx's names of the tests reeval has (``compare(stat_test=...)``) -> reeval's: ``fisher``
#: is Fisher's randomisation test (reeval's paired permutation test), ``student`` the paired
#: t-test, ``tukey`` Tukey's HSD (reeval's blocks on topics, ranx's does not: see ranx_test)
RANX_TESTS = {"fisher": "permutation", "student": "t", "tukey": "tukey_hsd"}


def ranx_test(stat_test):
    """reeval's name of ranx's ``stat_test`` (:data:`RANX_TESTS`; reeval's own names pass
    through). ``tukey`` gives a ReevalWarning: ranx runs scipy's one-way Tukey HSD on the
    per-topic scores, as independent groups; reeval's ``tukey_hsd`` blocks on topics
    (two-way ANOVA), so its p-values are not ranx's."""
    import warnings

    from reeval.errors import ReevalWarning

    if stat_test is None:
        return None
    names = [stat_test] if isinstance(stat_test, str) else list(stat_test)
    if "tukey" in names:
        warnings.warn("reeval: stat_test='tukey' runs reeval's tukey_hsd, which blocks on topics (two-way "
                      "ANOVA); ranx's treats the per-topic scores as independent groups: the p-values differ",
                      ReevalWarning, stacklevel=3)
    found = [RANX_TESTS.get(name, name) if isinstance(name, str) else name for name in names]
    return found[0] if isinstance(stat_test, str) else found


def ranx_options(measures, tests, seed, resamples, ranx: dict) -> tuple:
    """(measures, tests, seed, resamples, report settings) from reeval's arguments and
    ranx's (``metrics``, ``stat_test``, ``random_seed``, ``n_permutations``, ``max_p``,
    ``rounding_digits``); an argument given under both names is an InputError."""
    measures = one_of("measures", measures, "metrics", ranx["metrics"], whose="ranx's")
    tests = one_of("tests", tests, "stat_test", ranx_test(ranx["stat_test"]), whose="ranx's")
    seed = one_of("seed", seed, "random_seed", ranx["random_seed"], 0, whose="ranx's")
    resamples = one_of("resamples", resamples, "n_permutations", ranx["n_permutations"], 10000, whose="ranx's")
    settings = {}
    if ranx["max_p"] is not None:
        if not (isinstance(ranx["max_p"], (int, float)) and 0 < ranx["max_p"] <= 1):
            raise InputError(f"max_p must be in (0, 1]; got {ranx['max_p']!r}")
        settings["max_p"] = float(ranx["max_p"])
    if ranx["rounding_digits"] is not None:
        problem = integer_problem("decimals", ranx["rounding_digits"])
        if problem:
            raise InputError(f"rounding_digits {problem}; got {ranx['rounding_digits']!r}")
        settings["decimals"] = int(ranx["rounding_digits"])
    return measures, tests, seed, resamples, settings


def compare_runs(qrels: QrelsInput | pd.DataFrame, runs: RunsInput | None = None,
                 measures: str | Iterable[str] | None = None, *, tests: str | Iterable[str] | None = None,
                 correction: str | None = "holm", baseline: str | int | None = None, alternative: str = "two-sided",
                 relevance_level: int = 1, precision: str = "float64", seed: int | None = None,
                 resamples: int | None = None, depth: int | None = None, unretrieved: str = "after_last",
                 alpha: float | str = 1.0, systems: str = "all", test: str | Iterable[str] | None = None,
                 eval_metrics: str | Iterable[str] | None = None, ties: str = "trec_eval",
                 metrics: str | Iterable[str] | None = None, stat_test: str | None = None, max_p: float | None = None,
                 n_permutations: int | None = None, random_seed: int | None = None,
                 rounding_digits: int | None = None) -> Comparison:
    """Significance tests between every pair of runs (or each run against ``baseline``).

    Args:
        qrels: qrels in any form :func:`reeval.evaluate` takes, with ``runs``; or, alone,
            ``reeval.evaluate(..., per_topic=True)``'s frame (index ``run``, ``query_id``;
            every column a measure unless ``measures`` names some; ``runs`` may then pick
            and order runs by name).
        runs: two or more runs in any form :func:`reeval.evaluate` takes.
        measures: per-topic measures (default ``map``; not ``num_*`` or ``gm_map``), as
            names or ir_measures objects (``nDCG@10``).
        tests: one or a list of ``t`` (the default), ``wilcoxon``, ``sign``,
            ``permutation``, ``bootstrap``, ``tukey_hsd`` (topic-blocked ANOVA),
            ``randomised_tukey_hsd`` (Carterette's permutation form); see docs/statistics.md.
        correction: ``holm``, ``bonferroni``, ``bh`` or ``none``, over the pairs of each
            measure and test; statsmodels' ``fdr_bh`` is ``bh``, ``None`` is ``none``
            (PyTerrier's names). The Tukey tests' p-values are simultaneous already and kept.
        baseline: a run's name, or its index in the runs' order (an int: ``baseline=0``
            is the first run, as in PyTerrier; a run named "0" is ``baseline="0"``):
            compare every other run with it (run_a = the run, run_b = the baseline)
            instead of every pair. A name not among the runs, or an index out of range,
            is an InputError.
        alternative: ``two-sided``; ``greater`` (run_a better) or ``less``, paired tests only.
        relevance_level: as :func:`reeval.evaluate`.
        precision: as :func:`reeval.evaluate`.
        seed: of the permutation, bootstrap and randomised HSD tests (default 0).
        resamples: of the permutation, bootstrap and randomised HSD tests (default 10000:
            Monte Carlo standard error 0.0022 for a p-value near 0.05).
        depth: as :func:`reeval.evaluate`.
        unretrieved: as :func:`reeval.evaluate`.
        alpha: as :func:`reeval.evaluate`.
        systems: as :func:`reeval.evaluate`. Topics are paired over every qrels topic, ASL
            measures over those with a relevant document.
        test: PyTerrier's name of ``tests`` (one name or a list); giving both is an InputError.
        eval_metrics: PyTerrier's name of ``measures``; giving both is an InputError.
        ties: as :func:`reeval.evaluate` (``ir_measures``: each measure's ties ordered as
            ir_measures' provider of it orders them).
        metrics: ranx's name of ``measures``; giving both names of one argument (here and
            below) is an InputError.
        stat_test: ranx's name of ``tests``: its ``fisher``, ``student`` and ``tukey`` are
            reeval's ``permutation``, ``t`` and ``tukey_hsd``, the last blocked on topics
            where ranx's is not (a ReevalWarning says so).
        max_p: ranx's threshold of the markers, kept for ``.report()``.
        n_permutations: ranx's name of ``resamples``.
        random_seed: ranx's name of ``seed``.
        rounding_digits: ranx's digits, kept for ``.report()``.

    Returns:
        A :class:`Comparison` (a DataFrame): one row per (measure, test, run_a, run_b),
        pairs i < j in the runs' order: measure, test, run_a, run_b, mean_a, mean_b,
        diff = mean_a - mean_b, effect_size (Cohen's d_z), p_value, p_adjusted, ci_method,
        ci_low, ci_high (95% interval of diff where the test gives one: ``t``,
        ``bootstrap percentile``, ``Tukey simultaneous``). ``.report()`` renders the table.

    Raises:
        InputError: bad input or options (one line naming what was expected).
    """
    measures, tests, seed, resamples, settings = ranx_options(
        one_of("measures", measures, "eval_metrics", eval_metrics), one_of("tests", tests, "test", test), seed,
        resamples, dict(metrics=metrics, stat_test=stat_test, max_p=max_p, n_permutations=n_permutations,
                        random_seed=random_seed, rounding_digits=rounding_digits))
    tests = ("t",) if tests is None else tests
    result, tables, notes, each = _compare_runs(qrels, runs, measures, tests, correction, baseline, alternative,
                                                relevance_level, precision, seed, resamples, depth, unretrieved,
                                                alpha, systems, ties=ties)
    result.attrs.update(settings)
    return _noted(result, tables, notes, each) if tables is not None else result


def _compare_runs(qrels, runs, measures, tests, correction, baseline, alternative, relevance_level,
                  precision, seed, resamples, depth, unretrieved, alpha, systems, ties="trec_eval") -> tuple:
    """(Comparison, ingested tables or None, notes, notes on ties to warn of one by one) of
    :func:`compare_runs`."""
    tests, correction = _check(tests, correction, alternative, resamples, seed)
    options = dict(tests=tests, correction=correction, alternative=alternative, seed=seed, resamples=resamples)
    if isinstance(qrels, pd.DataFrame) and tuple(qrels.index.names) == ("run", "query_id"):
        return _from_frame(qrels, runs, measures, baseline=baseline, **options), None, [], []
    return _from_inputs(qrels, runs, measures, baseline, relevance_level, precision, depth,
                        unretrieved, alpha, systems, options, ties)


def _from_inputs(qrels, runs, measures, baseline, relevance_level, precision, depth, unretrieved, alpha,
                 systems, options, ties="trec_eval") -> tuple:
    """Read qrels and runs as :func:`reeval.evaluate` does and test every pair: (Comparison,
    tables, notes, :func:`reeval.compute.tie_notes`)."""
    from reeval.analyses.rareness.core import check_alpha
    from reeval.compute import compare_runs_track, needed_orders, tie_notes, tie_notes_needed, trec_eval_version

    if runs is None:
        raise InputError("runs: give two or more runs (or pass evaluate(per_topic=True)'s frame alone)")
    _choice("precision", precision, PRECISIONS)
    _choice("unretrieved", unretrieved, UNRETRIEVED_POLICIES)
    _choice("systems", systems, SYSTEMS)
    _choice("ties", ties, TIES)
    level = _integer("relevance_level", relevance_level)
    depth = None if depth is None else _integer("depth", depth)
    try:
        alpha = check_alpha(alpha)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    columns = measure_columns(("map",) if measures is None else measures, precision=precision)
    unique = list(dict.fromkeys(columns.values()))
    spelled = ir_spelled(columns)
    tables, names, notes = load_track(qrels, runs, precision, needed_orders(unique, ties, precision),
                                      tie_notes_needed(unique, ties, precision, spelled))
    if len(names) < 2:
        raise InputError("compare_runs needs at least two runs")
    rows = compare_runs_track(tables, names, unique, options["tests"], options["correction"], baseline,
                              options["alternative"], options["seed"], options["resamples"], rel_level=level,
                              max_depth=depth, unretrieved=unretrieved, alpha=alpha, systems=systems,
                              version=trec_eval_version(precision), ties=ties)
    each = tie_notes(tables, names, unique, ties, depth, precision=precision, ir_spelled=spelled, api=True)
    return asked_names(rows, columns), tables, notes, each


def asked_names(rows: pd.DataFrame, columns: dict) -> Comparison:
    """The rows of :func:`reeval.compute.compare_runs_track` as a :class:`Comparison` whose
    measures carry the caller's spelling: ``columns`` is
    :func:`~reeval.api.scoring.measure_columns`' {name as asked: Measure} (``nDCG@10``, not
    ``ndcg_cut_10``; a set's members keep reeval's names), applied to the measure column
    and to the attrs the table reads (measures, higher_is_better)."""
    spelled = {m.name: column for column, m in columns.items()}

    def name(m):
        return spelled.get(m, m)

    result = Comparison(rows.assign(measure=rows["measure"].map(name)))
    result.attrs.update(rows.attrs, measures=[name(m) for m in rows.attrs["measures"]],
                        higher_is_better={name(m): v for m, v in rows.attrs["higher_is_better"].items()})
    return result


def _two_runs(run_a, run_b):
    """Two runs as :func:`load_track` takes them: file names name paths, else run_a, run_b."""
    if is_path(run_a) and is_path(run_b):
        return [run_a, run_b]
    return {"run_a": run_a, "run_b": run_b}


def compare(qrels: QrelsInput, run_a: RunsInput, run_b: RunsInput, measures: str | Iterable[str] | None = None,
            tests: str | Iterable[str] | None = None, alternative: str = "two-sided", seed: int = 0,
            resamples: int = 10000, *, relevance_level: int = 1, precision: str = "float64",
            unretrieved: str = "after_last", test: str | Iterable[str] | None = None,
            eval_metrics: str | Iterable[str] | None = None, ties: str = "trec_eval") -> pd.DataFrame:
    """Paired significance tests between two runs (for more runs: :func:`compare_runs`).

    ``run_a`` and ``run_b`` take any one-run form of :func:`reeval.evaluate`; ``measures``
    are per-topic measures (not ``num_*`` or ``gm_map``); ``tests`` any of ``t``,
    ``wilcoxon``, ``sign``, ``permutation``, ``bootstrap``; ``alternative``
    ``two-sided``, ``greater`` (A better than B) or ``less``; ``seed`` and ``resamples``
    matter to the permutation and bootstrap tests. Topics are paired over every qrels
    topic (ASL measures: those with a relevant document).

    Returns one row per measure and test: ``measure`` (as the caller named it), ``test``,
    ``mean_a``, ``mean_b``, ``diff``, ``p_value``, ``ci_method``, ``ci_low``, ``ci_high``:
    the 95% interval of the mean difference and the method that produced it (``t`` for
    the t-test, ``bootstrap percentile`` for the bootstrap test; the Wilcoxon, sign and
    permutation tests give none: NaN). The values of :func:`compare_runs` for the pair.
    ``measures`` defaults to ``map`` and ``tests`` to ``t``; ``test``, ``eval_metrics`` and
    ``ties`` are those of :func:`compare_runs` (giving both names of one argument is an
    InputError).
    """
    from reeval.choices import PAIRED_TESTS

    tests = one_of("tests", tests, "test", test, ("t",))
    measures = one_of("measures", measures, "eval_metrics", eval_metrics, ("map",))
    tests = [tests] if isinstance(tests, str) else list(tests)
    for test in tests:
        _choice("tests", test, PAIRED_TESTS)
    rows, tables, notes, each = _compare_runs(qrels, _two_runs(run_a, run_b), measures, tests, "none", None,
                                              alternative, relevance_level, precision, seed, resamples, None,
                                              unretrieved, 1.0, "all", ties=ties)
    out = pd.DataFrame(rows)[["measure", "test", "mean_a", "mean_b", "diff", "p_value", "ci_method", "ci_low",
                              "ci_high"]]
    return _noted(out, tables, notes, each)
