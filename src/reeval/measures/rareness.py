"""The rareness ("innovation") measures' names, registered: ``P_rareness@k``,
``AP_rareness@k`` and their ``_norm`` variants (default k = 100). They are computed over
the set of runs evaluated together, by :func:`reeval.analyses.rareness.core.add_rareness`,
not per grid: their families have no ``compute``; each family's ``doc`` states its formula
(``reeval measures --formulas``, docs/measures.md).
"""

from __future__ import annotations

import re

from reeval.choices import RARENESS_FAMILIES

from .registry import Family, load_families, register

load_families(before=__name__)  # the family modules before this one register first

DEFAULT_CUTOFF = 100
_NAME = re.compile(r"(ap|p)_rareness(_norm)?(?:[@_.](\d+))?")


def _parser(family_name: str):
    def parse(spec: str, family: Family):
        m = _NAME.fullmatch(spec.lower())
        if not m or ("AP" if m.group(1) == "ap" else "P") + "_rareness" + (m.group(2) or "") != family_name:
            return None
        k = int(m.group(3) or DEFAULT_CUTOFF)
        if k <= 0:
            raise ValueError(f"measure {spec!r}: the cutoff must be a positive integer")
        return [family.measure(f"{family_name}@{k}", k)]
    return parse


_DESCRIPTIONS = {
    "P_rareness": "P@k with each relevant document weighted 1 + alpha x its rarity among the runs",
    "AP_rareness": "AP truncated at k built on P_rareness",
    "P_rareness_norm": "P_rareness with the normalized rarity, in [0, 1]",
    "AP_rareness_norm": "AP_rareness with the normalized rarity",
}
#: what every rareness family's doc says first: S, S_d and the rarity (Türkmen, Lease &
#: Kutlu, ECIR 2023; docs/studies.md#rareness-measures-innovation-metrics for the study)
_COMMON = ("With S runs evaluated together and S_d the runs whose top k holds the relevant document d "
           "(the run scored included), the rarity of d is R(d) = 1 - S_d/S; per topic with R_q relevant "
           "documents (relevant: rel >= the relevance level), alpha >= 0 (default 1; 1/R: 1/R_q per topic).")
#: each family's formula (eq. numbers of the paper)
_FORMULAS = {
    "P_rareness": "P_rareness@k = (1/k) x sum over relevant d in the top k of (1 + alpha R(d)) (eq. 1; in "
                  "[0, 2) for alpha <= 1; alpha = 0 gives P@k).",
    "AP_rareness": "AP_rareness@k = (1/R_q) x sum over relevant d at rank r <= k of [sum over relevant d' at "
                   "rank <= r of (1 + alpha R(d'))] / r (eq. 3; alpha = 0 gives AP@k, map_cut_k).",
    "P_rareness_norm": "P_rareness_norm@k: P_rareness@k with the weight (1 - alpha) + alpha R'(d), the normalized "
                       "rarity R'(d) = 1 - (S_d - 1)/(S - 1) (R' = 1 when S = 1): eq. 4, in [0, 1] for alpha <= 1.",
    "AP_rareness_norm": "AP_rareness_norm@k: AP_rareness@k with the weight (1 - alpha) + alpha R'(d), R'(d) = "
                        "1 - (S_d - 1)/(S - 1) (R' = 1 when S = 1): eq. 4, in [0, 1] for alpha <= 1.",
}
_AFTER = ("A topic without a relevant document, or one the run skipped, scores 0. Computed over the runs "
          "evaluated together by reeval.analyses.rareness.core.add_rareness (`reeval score RUN RUN ... "
          "--alpha`, the config's `rareness.measures`).")
FAMILIES = RARENESS_FAMILIES  # their names, importable without registering them
for _name, _text in ((name, _DESCRIPTIONS[name]) for name in FAMILIES):
    register(Family(_name, (_name, f"{_name}@k", f"{_name}.k"), f"{_text} (k = {DEFAULT_CUTOFF} if omitted)",
                    _parser(_name), None, needs_runs=True, oracle="the rareness authors' code (golden outputs)",
                    doc=f"{_FORMULAS[_name]}\n{_COMMON}\n{_AFTER}"))
