"""The rareness ("innovation") measures' names, registered: ``P_rareness@k``,
``AP_rareness@k`` and their ``_norm`` variants (default k = 100). They are computed over
the set of runs evaluated together, by :func:`reeval.analyses.rareness.core.add_rareness` (formulas
there), not per grid: their families have no ``compute``.
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
FAMILIES = RARENESS_FAMILIES  # their names, importable without registering them
for _name, _text in ((name, _DESCRIPTIONS[name]) for name in FAMILIES):
    register(Family(_name, (_name, f"{_name}@k", f"{_name}.k"), f"{_text} (k = {DEFAULT_CUTOFF} if omitted)",
                    _parser(_name), None, needs_runs=True, oracle="the rareness authors' code (golden outputs)",
                    doc="Computed over the runs evaluated together: see reeval.analyses.rareness.core."))
