"""The settings a block of official figures was computed with, the lattice of settings the
audit searches, and the causes that set one setting apart from another.

A :class:`Setting` is everything that changes reeval's value of a measure for the same
files: the relevance level (trec_eval ``-l``), the gain of the grades below it, the ordering
of tied scores (trec_eval 10's float64, or 9.x's float32, which ties scores equal in float32
and rounds interpolation levels as 9.x did), whether topics a run lacks count (``-c``), the
depth kept (``-M``), the order of tied scores (trec_eval's docno descending, or ascending as
another program may order them) and the qrels file (the track's, or one of its alternatives).

A block's setting is known for the common blocks (:data:`KNOWN_BLOCKS`: DL's
``passages-eval`` counts grades >= 2 as relevant); any other block starts from the track's
setting (its relevance level, trec_eval 10, ``-c``). Where figures differ, the audit searches
:func:`lattice`: every combination of the dimensions, each dimension in which a setting differs
from the block's one cause (:func:`causes`), the fewest causes first.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from itertools import product

#: the orders of tied scores: trec_eval's (docno descending), and its reverse
TIES = ("trec_eval", "docno ascending")


@dataclass(frozen=True)
class Setting:
    """One evaluation setting (module doc). ``zero_below``: grades from 1 to ``level - 1``
    gain 0 in the gain measures (nDCG) as in the binary ones, as DL's ``trec_eval`` block of
    2020 computed nDCG; ``depth`` None keeps every document; ``ties``: :data:`TIES`, how documents
    of equal score are ordered (trec_eval: docno descending); ``qrels``: an alternative qrels
    file read instead of the track's (None: the track's)."""

    level: int = 1
    zero_below: bool = False
    precision: str = "float64"
    complete: bool = True
    depth: int | None = None
    ties: str = "trec_eval"
    qrels: str | None = None

    def grade_map(self, track_map: dict | None = None) -> dict | None:
        """The relabelling of qrels grades this setting reads the qrels with: the track's own
        (``track_map``, None: grades as given), then, with ``zero_below``, every grade from 1
        to ``level - 1`` made 0."""
        if not (self.zero_below and self.level > 1):
            return dict(track_map) if track_map else None
        out = {g: (0 if 1 <= t < self.level else t) for g, t in (track_map or {}).items()}
        out.update({g: 0 for g in range(1, self.level) if g not in out})
        return out

    def describe(self) -> str:
        """The setting in words: ``relevance >= 2, trec_eval 10 ordering, -c``."""
        parts = [f"relevance >= {self.level}"]
        if self.zero_below and self.level > 1:
            parts.append(f"grades below {self.level} gain 0")
        parts.append("trec_eval 9.x ordering (float32 scores)" if self.precision == "float32"
                     else "trec_eval 10 ordering")
        parts.append("-c" if self.complete else "without -c")
        if self.depth is not None:
            parts.append(f"-M {self.depth}")
        if self.ties != "trec_eval":
            parts.append(f"ties by {self.ties}")
        if self.qrels is not None:
            parts.append(f"qrels {qrels_label(self.qrels)}")
        return ", ".join(parts)


def qrels_label(path) -> str:
    """How a cause names an alternative qrels file: its base name."""
    return os.path.basename(str(path).rstrip("/")) or str(path)


#: the settings of common blocks, as changes of the track's setting
KNOWN_BLOCKS = {"passages-eval": {"level": 2}}


def block_setting(block: str, track: Setting) -> Setting:
    """The setting ``block`` was computed with: :data:`KNOWN_BLOCKS`, else the track's."""
    return replace(track, **KNOWN_BLOCKS.get(block, {}))


#: the orderings of scores: trec_eval 10's (float64) and 9.x's (float32)
PRECISIONS = ("float64", "float32")


def zeroed(setting: Setting) -> bool:
    """Whether grades below the setting's level gain 0 (``zero_below`` acts only above level 1)."""
    return setting.zero_below and setting.level > 1


def causes(base: Setting, setting: Setting) -> list[str]:
    """What ``setting`` changes of ``base``, one cause per dimension that differs, in the
    order of the dimensions (:func:`_changes`): another relevance level; the grades below the
    level gaining 0 (or their own gain); the other ordering of scores (trec_eval 9.x's
    float32, or 10's float64); without ``-c`` (or with it); ``-M 1000`` (or every document);
    docno-ascending ties (or trec_eval's); an alternative qrels file (or the track's). ``[]``:
    the same setting."""
    return [text for _, text in _changes(base, setting)]


def _changes(base: Setting, setting: Setting) -> list[tuple[int, str]]:
    """(number, cause) of each dimension in which ``setting`` differs from ``base``
    (:func:`causes`), the dimensions numbered in the order their causes are named and tried:
    0 level, 1 gains below it, 2 ordering, 3 ``-c``, 4 ``-M``, 5 ties, 6 qrels."""
    out = []
    if setting.level != base.level:
        out.append((0, f"relevance >= {setting.level}"))
    if zeroed(setting) and not zeroed(base):
        out.append((1, f"grades below {setting.level} gain 0 (nDCG's gains as the binary measures')"))
    elif zeroed(base) and setting.level > 1 and not zeroed(setting):
        out.append((1, f"grades below {setting.level} keep their gains"))
    if setting.precision != base.precision:
        out.append((2, "trec_eval 9.x ordering (scores as float32)" if setting.precision == "float32"
                    else "trec_eval 10 ordering (scores as float64)"))
    if setting.complete != base.complete:
        out.append((3, "with -c (topics a run lacks count as 0)" if setting.complete
                    else "without -c (topics a run lacks not counted)"))
    if setting.depth != base.depth:
        out.append((4, f"-M {setting.depth} (the first {setting.depth:,} documents of each ranking)"
                    if setting.depth is not None else "every document ranked (no -M)"))
    if setting.ties != base.ties:
        out.append((5, "docno-ascending ties (another program's order)" if setting.ties == "docno ascending"
                    else "trec_eval's ties (docno descending)"))
    if setting.qrels != base.qrels:
        out.append((6, f"the alternative qrels {qrels_label(setting.qrels)}" if setting.qrels is not None
                    else "the track's qrels"))
    return out


def causes_text(names) -> str:
    """Causes as a row names them: ``relevance >= 2 and grades below 2 gain 0 (...)``."""
    return " and ".join(names)


def lattice(base: Setting, max_grade: int, max_depth: int, alternatives=()) -> list[Setting]:
    """Every setting the audit may try for a block audited at ``base``, the fewest causes
    (:func:`causes`) first, then in the order of the dimensions (a change of an earlier
    dimension first; levels ascending), ``base`` itself first:

    - relevance level: each of 1 .. ``max_grade`` (the highest grade of the qrels), and the
      base's; above level 1, the grades below it gaining 0 or not;
    - trec_eval 10's or 9.x's ordering; with or without ``-c``;
    - ``-M 1000`` or not, where a run ranks more than 1,000 documents for a topic (``max_depth``);
    - trec_eval's ties or docno ascending;
    - the track's qrels or each of ``alternatives``.

    DL's passages (grades 0-3, no ranking past 1,000, no alternative): 5 levels and gains x 2
    orderings x 2 (-c) x 2 ties = 40 settings."""
    levels = sorted({*range(1, max(max_grade, 1) + 1), base.level})
    gains = [(level, zero) for level in levels for zero in ((False, True) if level > 1 else (False,))]
    depths = list(dict.fromkeys([base.depth, None] + ([1000] if max_depth > 1000 else [])))
    qrels = list(dict.fromkeys([base.qrels, None, *map(str, alternatives)]))
    found = dict.fromkeys(
        Setting(level=level, zero_below=zero, precision=precision, complete=complete, depth=depth, ties=ties,
                qrels=q)
        for (level, zero), precision, complete, depth, ties, q in product(
            gains, PRECISIONS, (True, False), depths, TIES, qrels))
    found.pop(replace(base, zero_below=zeroed(base)), None)
    ranked = sorted(found, key=lambda s: (len(_changes(base, s)), [d for d, _ in _changes(base, s)]))
    return [base, *ranked]
