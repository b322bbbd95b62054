"""The settings a block of official figures was computed with, and the causes of difference
the audit tries, in a fixed order.

A :class:`Setting` is everything that changes reeval's value of a measure for the same
files: the relevance level (trec_eval ``-l``), the gain of the grades below it, the ordering
of tied scores (trec_eval 10's float64, or 9.x's float32, which ties scores equal in float32
and rounds interpolation levels as 9.x did), whether topics a run lacks count (``-c``), the
depth kept (``-M``), the order of tied scores (trec_eval's docno descending, or ascending as
another program may order them) and the qrels file (the track's, or one of its alternatives).

A block's setting is known for the common blocks (:data:`KNOWN_BLOCKS`: DL's
``passages-eval`` counts grades >= 2 as relevant); any other block starts from the track's
setting (its relevance level, trec_eval 10, ``-c``). Where figures differ, the audit tries the
causes of :func:`causes`, in their order, each one change of the block's setting.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

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


def causes(base: Setting, max_grade: int, max_depth: int, alternatives=()) -> list[tuple[str, Setting]]:
    """(cause, setting) to try where figures computed at ``base`` differ, in this order:

    1. another relevance level (each of 1 .. ``max_grade`` but the base's);
    2. the grades below the level gaining 0 (only where the level is above 1);
    3. trec_eval 9.x ordering: scores as float32 (the other ordering where the base has it);
    4. without ``-c`` (each run averaged over the topics it answered), or with it;
    5. ``-M 1000``, where a run ranks more than 1,000 documents for a topic (``max_depth``);
    6. tied scores ordered by docno ascending (the reverse of trec_eval's order, as a program
       other than trec_eval may order them);
    7. each of the track's ``alternatives`` (qrels files: the catalog's other qrels links, a
       local track's ``alternative_qrels``), in their order, read instead of its qrels.

    Each is one change of ``base``; a change that leaves it as it is is not tried.
    """
    tried = [(f"relevance >= {level}", replace(base, level=level))
             for level in range(1, max(max_grade, 1) + 1) if level != base.level]
    if base.level > 1 and not base.zero_below:
        tried.append((f"grades below {base.level} gain 0 (nDCG's gains as the binary measures')",
                      replace(base, zero_below=True)))
    if base.precision == "float64":
        tried.append(("trec_eval 9.x ordering (scores as float32)", replace(base, precision="float32")))
    else:
        tried.append(("trec_eval 10 ordering (scores as float64)", replace(base, precision="float64")))
    tried.append(("without -c (topics a run lacks not counted)" if base.complete else "with -c (topics a run lacks "
                  "count as 0)", replace(base, complete=not base.complete)))
    if base.depth is None and max_depth > 1000:
        tried.append(("-M 1000 (the first 1,000 documents of each ranking)", replace(base, depth=1000)))
    if base.ties == "trec_eval":
        tried.append(("docno-ascending ties (another program's order)", replace(base, ties="docno ascending")))
    tried += [(f"the alternative qrels {qrels_label(path)}", replace(base, qrels=str(path)))
              for path in alternatives if base.qrels != str(path)]
    return tried
