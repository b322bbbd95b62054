"""``reeval reusability QRELS RUN... --groups FILE|PATTERN --depth N -m ...``.

Prints, per measure, a tab-separated table (run, group, score, without its group, delta,
rank, inserted rank, rank change) and a one-line verdict (:func:`verdict_line`: largest and
mean drop, Kendall's tau between the full ranking and the left-out ranking, runs whose
inserted rank moves by more than ``--places``; first, when the qrels are judged beyond the
pool depth, that the collection is not tested; without ``--groups``, that each run was left out
alone, on stderr too); with ``--preferences`` a last line, the agreement of lexicographic
precision (:func:`preference_line`); :func:`reusability_lines` gives the lines, :func:`add_parser` registers
the command. Imports nothing heavy until the command runs.
"""

from __future__ import annotations

from reeval.choices import REUSABILITY_PLACES, SYSTEMS, UNRETRIEVED_POLICIES
from reeval.cli.options import integer
from reeval.errors import InputError
from reeval.report.escape import tsv_field

#: the default measures of the command (and of the API)
DEFAULT_MEASURES = ("AP", "P@20")


def reusability_lines(qrels_path, run_paths, measure_specs=None, groups=None, depth: int = 100,
                      rel_level: int = 1, precision: str = "float64", decimals: int = 4,
                      places: int = REUSABILITY_PLACES,
                      unretrieved: str = "after_last", alpha="1", systems: str = "all", pooled=None, warn=None,
                      preferences: bool = False):
    """Yield the lines of ``reeval reusability`` (module doc): per measure a header, one line
    per run (in argument order) and the verdict. ``groups``, ``pooled``: the ``--groups`` and
    ``--pooled`` texts."""
    from reeval.analyses.rareness.core import check_alpha
    from reeval.api.reusability import mean_measures
    from reeval.api.scoring import measure_columns
    from reeval.cli.options import progress
    from reeval.compute import check_tables, trec_eval_version
    from reeval.io.ingest import ingest_track
    from reeval.io.trecio import run_names
    from reeval.measures import grid_from_track

    from reeval.analyses.reusability.groups import ALONE, groups_option, read_pooled
    from reeval.analyses.reusability.table import reusability_table, verdicts

    columns = measure_columns(measure_specs or list(DEFAULT_MEASURES), precision=precision)
    label = {}
    for column, m in columns.items():
        label.setdefault(m.name, column)
    measures = mean_measures(columns, "reusability")
    try:
        alpha = check_alpha(alpha)
    except ValueError as exc:
        raise InputError(f"--alpha: {exc}") from None
    names = run_names(run_paths)
    group_of = groups_option(groups, names)
    pooled_runs = read_pooled(pooled, names)
    if pooled_runs is not None and not set(pooled_runs) & set(names):
        raise InputError(f"--pooled {pooled}: none of the runs given")
    with progress(warn, "reading run files", len(run_paths)) as count:
        tables = ingest_track("cli", qrels_path, run_paths, precision=precision, keep_runs=False, on_read=count)
    for line in check_tables(tables):
        if warn is not None:
            warn(line)
    grid = grid_from_track(tables, runs=names, keep_docno=True)
    table = reusability_table(grid, group_of, measures, depth=depth, rel_level=rel_level, unretrieved=unretrieved,
                              version=trec_eval_version(precision), alpha=alpha, systems=systems,
                              pooled=pooled_runs, preferences=preferences)
    verdict = verdicts(table, places).set_index("measure")
    beyond = table.attrs["beyond_depth"]
    if beyond.judged_beyond and warn is not None:
        warn(f"{beyond.sentence()}: judged beyond the pool depth, leave-one-group-out at depth {depth} does not "
             "test this collection (give --depth the depth it was pooled to, if it was pooled)")
    if not group_of and warn is not None:  # None, or a file that gives no run a group
        warn(f"{ALONE} (give --groups a leaderboard with run and participant columns, a file of 'RUN GROUP' "
             "lines or a pattern)")
    f = f"{{:.{decimals}f}}"
    for m in measures:
        part = table[table["measure"] == m.name]
        v = verdict.loc[m.name]
        pooled_text = "" if pooled_runs is None else f", {len(set(pooled_runs) & set(names))} runs pooled"
        yield (f"# {label[m.name]} ({'higher' if m.higher_is_better else 'lower'} is better): pool depth {depth}, "
               f"{v['groups']} groups, {v['runs']} runs{pooled_text}")
        yield "run\tgroup\tscore\twithout_group\tdelta\trank\trank_inserted\trank_change"
        for row in part.itertuples(index=False):
            yield "\t".join([tsv_field(row.run), tsv_field(row.group), f.format(row.score), f.format(row.score_logo),
                             f.format(row.delta), str(row.rank), str(row.rank_logo), f"{row.rank - row.rank_logo:+d}"])
        yield verdict_line(label[m.name], v, places, f, beyond, alone=not group_of)
    if preferences:
        yield preference_line(table.attrs["preferences"], decimals)


def verdict_line(name: str, v, places: int, f: str, beyond=None, alone: bool = False) -> str:
    """The verdict of one measure (``v``: its row of
    :func:`reeval.analyses.reusability.table.verdicts`, ``f`` the number format), its two
    rankings named apart: Kendall's tau of the *left-out ranking* (every run scored without
    its group) against the full one, and the runs whose *inserted rank* (a run's left-out
    score among the others' full scores) moves by more than ``places``; first, when the
    qrels are judged beyond the pool depth (``beyond``, :mod:`reeval.analyses.reusability.depth`),
    that the test does not test the collection; then, with ``alone`` (no groups given), that
    each run was left out alone (:data:`reeval.analyses.reusability.groups.ALONE`)."""
    from reeval.analyses.reusability.groups import ALONE

    head = f"verdict {name}: "
    if beyond is not None and beyond.judged_beyond:
        head += f"not a test of this collection ({beyond.sentence()}); "
    if alone:
        head += f"{ALONE}; "
    return (f"{head}max drop {f.format(v['max_drop'])} ({tsv_field(v['max_drop_run'])}), "
            f"mean drop {f.format(v['mean_drop'])}, "
            f"Kendall tau full vs left-out ranking {f.format(v['kendall_tau_left_out'])}, "
            f"inserted rank: {v['rank_changes_inserted']} of {v['runs']} runs move more than {places} places")


def preference_line(pref: dict, decimals: int = 4) -> str:
    """The verdict line of lexicographic precision's agreement (``attrs["preferences"]`` of
    :func:`reeval.analyses.reusability.table.reusability_table`)."""
    sample = (f"{pref['sampled']} compared (a sample, seed {pref['seed']})" if pref["sampled"] < pref["at_risk"]
              else "all compared")
    return (f"verdict sgnLP/rrLP: agreement {pref['overall']:.{decimals}f} % of {pref['pair_topics']} "
            f"(left-out run, other run, topic), {pref['at_risk']} at risk, {sample}")


def _run(args) -> int:
    from reeval.cli.options import print_lines, warn

    print_lines(reusability_lines(args.qrels, args.runs, args.measure, groups=args.groups, depth=args.depth,
                                  rel_level=args.l, precision="float32" if args.float32 else "float64",
                                  decimals=args.decimals, places=args.places, unretrieved=args.unretrieved,
                                  alpha=args.alpha, systems=args.systems, pooled=args.pooled, warn=warn(args),
                                  preferences=args.preferences))
    return 0


def add_parser(sub, common) -> None:
    """Register ``reeval reusability`` on the subparsers ``sub`` (``common``: the shared
    input options -l, --trec-eval-9, --decimals, --quiet)."""
    p = sub.add_parser("reusability", parents=[common], help="leave one group out: is the collection reusable?",
                       description="Leave one group out: each group's runs scored without the judged documents "
                                   "only that group's runs placed in their top --depth (trec_eval order). Prints "
                                   "per measure: run, group, score, score without its group, delta, its rank, its "
                                   "inserted rank (its score without its group among the other runs' full scores) and "
                                   "the rank change, then a verdict: largest and mean drop, Kendall tau between the "
                                   "full ranking and the left-out ranking (every run scored without its group), the "
                                   "runs whose inserted rank moves more than --places places. When the qrels judge "
                                   "most documents below --depth for most runs (every candidate judged), the verdict "
                                   "says the collection is not tested.")
    p.add_argument("qrels", help="qrels file")
    p.add_argument("runs", nargs="+", help="run files")
    p.add_argument("--groups", metavar="FILE|PATTERN",
                   help="the group of each run: a file of 'RUN GROUP' lines, a CSV or TSV table whose header "
                        "names a run column and a group, team or participant column (a TREC leaderboard), or a "
                        "regular expression whose first group, searched in the run name, names it (it must match "
                        "every run and capture some text); a run not in a file is its own group (default: every "
                        "run alone, which the verdict says overstates reusability)")
    p.add_argument("--depth", type=integer("depth"), default=100, help="pool depth (default 100)")
    p.add_argument("--pooled", metavar="FILE|PATTERN",
                   help="the runs that were pooled (default: all): a file of run names, a .csv with run and "
                        "pooled (or 'contributed judgments', yes/no) columns, or a regular expression; every run "
                        "is scored either way")
    p.add_argument("-m", dest="measure", action="append", metavar="MEASURE",
                   help="measure, repeatable: any of reeval score -m with a mean over topics, ASL and the "
                        "rareness measures included (default AP and P@20)")
    p.add_argument("--places", type=integer("places"), default=REUSABILITY_PLACES,
                   help="the verdict counts the runs whose inserted rank changes by more than this (default "
                        f"{REUSABILITY_PLACES}, as the workflow's reusability.places)")
    p.add_argument("--preferences", action="store_true",
                   help="also the agreement of lexicographic precision: the share of (left-out run, other run, "
                        "topic) whose sgnLP (= sign of rrLP) is the same on the group's reduced qrels as on the full")
    p.add_argument("--unretrieved", choices=UNRETRIEVED_POLICIES, default="after_last",
                   help="ASL of an unretrieved relevant document (as reeval score)")
    p.add_argument("--alpha", default="1", metavar="ALPHA", help="rareness weight (as reeval score)")
    p.add_argument("--systems", choices=SYSTEMS, default="all", help="rareness run count (as reeval score)")
    p.set_defaults(func=_run)
