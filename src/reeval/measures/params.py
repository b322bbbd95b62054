"""How measure names carry parameters: trec_eval's ``name.params`` and ir_measures'
``Name(key=value,...)@cutoff``.

trec_eval reads the text after the first ``.`` of ``-m name.params`` in one of four ways
(``meas_init.c``), and the measure's printed name follows from it:

- integer cutoffs (``P.5,10``): each comma-separated item read by C ``atol`` (``23.4`` is
  23), sorted ascending, all positive and distinct; one measure per cutoff, ``P_5``;
- real cutoffs (``iprec_at_recall..1,.2``): each item read by C ``atof``, sorted, distinct;
  one measure per cutoff, named with ``%3.2f`` cut to 8 characters (``iprec_at_recall_0.10``,
  ``Rprec_mult_100000.0``: :func:`format_cutoff`);
- real parameters (``utility.2,-1,0,0``): read by ``atof`` in the order given, one measure
  named with the parameter text as written (``utility_2,-1,0,0``);
- pairs (``ndcg.1=3,2=9``, ``rbp.p=0.95``): ``name=value`` items, values read by ``atof``;
  one measure named with the text as written (``ndcg_1=3,2=9``).

ir_measures writes a measure as ``Name``, ``Name@cutoff``, ``Name(key=value,...)`` or
``Name(key=value,...)@cutoff`` (``P(rel=2)@10``, ``RBP(p=0.8,rel=1)``).
"""

from __future__ import annotations

import math
import re

_ATOF = re.compile(r"\s*([+-]?(?:inf(?:inity)?|nan|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?))",
                   re.IGNORECASE)
_ATOL = re.compile(r"\s*([+-]?[0-9]+)")
LONG_MAX = 2**63 - 1


def c_atof(text: str) -> float:
    """C ``atof``: the longest leading decimal number (after spaces), else 0.0."""
    m = _ATOF.match(text)
    return float(m.group(1)) if m else 0.0


def c_atol(text: str) -> int:
    """C ``atol``: the leading integer (after spaces), clamped to a C long, else 0."""
    m = _ATOL.match(text)
    return max(-LONG_MAX - 1, min(LONG_MAX, int(m.group(1)))) if m else 0


def split_trec_eval(spec: str) -> tuple[str, str | None]:
    """``name.params`` -> (name, params); a name without ``.`` -> (name, None). An empty
    parameter text (``P.``) is refused, as trec_eval refuses it."""
    name, dot, params = spec.partition(".")
    if dot and not params:
        raise ValueError(f"measure {spec!r}: no parameters after the '.'")
    return name, (params if dot else None)


def long_cutoffs(spec: str, params: str) -> list[int]:
    """trec_eval's integer cutoffs of ``params``: atol of each item, sorted; ValueError unless
    all are positive and distinct."""
    cuts = sorted(c_atol(item) for item in params.split(","))
    if cuts[0] <= 0:
        raise ValueError(f"measure {spec!r}: cutoffs must be positive integers")
    if len(set(cuts)) < len(cuts):
        raise ValueError(f"measure {spec!r}: a cutoff is given twice")
    return cuts


def double_cutoffs(spec: str, params: str) -> list[float]:
    """trec_eval's real cutoffs of ``params``: atof of each item, sorted; ValueError when two
    are equal or one is not finite."""
    cuts = sorted(c_atof(item) for item in params.split(","))
    if not all(math.isfinite(c) for c in cuts):
        raise ValueError(f"measure {spec!r}: cutoffs must be finite numbers")
    if len(set(cuts)) < len(cuts):
        raise ValueError(f"measure {spec!r}: a cutoff is given twice")
    return cuts


def double_params(params: str) -> tuple[float, ...]:
    """trec_eval's real parameters of ``params``: atof of each item, in the order given."""
    return tuple(c_atof(item) for item in params.split(","))


def pairs(spec: str, params: str) -> tuple[tuple[str, float], ...]:
    """trec_eval's ``name=value`` pairs of ``params`` (values by atof), in the order given;
    ValueError for an item without exactly one ``=``."""
    out = []
    for item in params.split(","):
        key, eq, value = item.partition("=")
        if not eq or "=" in value:
            raise ValueError(f"measure {spec!r}: parameters must be name=value pairs")
        out.append((key, c_atof(value)))
    return tuple(out)


#: the characters trec_eval keeps of a real cutoff in a measure's name: ``append_double``
#: (meas_init.c) gives ``name_%3.2f`` a buffer of strlen(name) + 8 + 2 bytes, the NUL included
CUTOFF_CHARS = 8


def format_cutoff(value: float) -> str:
    """A real cutoff as trec_eval names it: ``%3.2f`` cut to :data:`CUTOFF_CHARS` characters
    (0.1 -> ``0.10``; 100000 -> ``100000.0``; 1e9 -> ``10000000``), byte for byte what
    trec_eval prints. So two cutoffs can share a name (0.001 and 0.002: ``0.00``), as there."""
    return f"{value:3.2f}"[:CUTOFF_CHARS]


#: a space inside a name or a number (``r el``, ``1 0``), which Python's syntax refuses
_SPLIT_TOKEN = re.compile(r"[\w.]\s+[\w.]")
_IRM = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\((.*)\))?\s*(?:@\s*([^@()\s]+))?\s*")


def split_ir_measures(spec: str) -> tuple[str, dict, str | None] | None:
    """``Name(key=value,...)@cutoff`` -> (Name, {key: value text}, cutoff text or None);
    None when ``spec`` is not of that form or has neither parameters nor a cutoff.
    Spaces may stand between the parts, as ir_measures (a Python expression) allows
    (``P @ 5``, ``AP( rel = 2 )``), never inside a name or a number: ``P@1 0`` and
    ``n DCG@10`` are no names (not P@10 and nDCG@10)."""
    m = _IRM.fullmatch(spec)
    if not m or (m.group(2) is None and m.group(3) is None):
        return None
    params: dict = {}
    if m.group(2):
        for item in _split_top(m.group(2)):
            key, eq, value = item.partition("=")
            key, value = key.strip(), value.strip()
            if not eq or not key or _SPLIT_TOKEN.search(key) or _SPLIT_TOKEN.search(value):
                raise ValueError(f"measure {spec!r}: parameters must be key=value")
            if key in params:
                raise ValueError(f"measure {spec!r}: {key} is given twice")
            params[key] = value
    return m.group(1), params, m.group(3)


def _split_top(text: str) -> list[str]:
    """Split on commas outside braces (``gains={0:0,1:1},rel=2``)."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch == "{"
        depth -= ch == "}"
        if ch == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return [item for item in items if item]


def ir_int(spec: str, key: str, text: str) -> int:
    """An ir_measures integer parameter (``rel=2``, ``@10``), within int64."""
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"measure {spec!r}: {key} must be an integer, not {text!r}") from None
    if not -LONG_MAX - 1 <= value <= LONG_MAX:
        raise ValueError(f"measure {spec!r}: {key} must be within -2^63 .. 2^63 - 1, not {value}")
    return value


def ir_float(spec: str, key: str, text: str) -> float:
    """An ir_measures real parameter (``p=0.8``, ``@0.5``): finite."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"measure {spec!r}: {key} must be a number, not {text!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"measure {spec!r}: {key} must be finite")
    return value


def check_persistence(spec: str, p: float) -> float:
    """rbp's persistence p, in (0, 1] (ValueError else: a p above 1 gives a negative rbp,
    which trec_eval prints)."""
    if not 0 < p <= 1:
        raise ValueError(f"measure {spec!r}: p must be in (0, 1], not {p}")
    return p


def ir_bool(spec: str, key: str, text: str) -> bool:
    """An ir_measures boolean parameter (``judged_only=True``)."""
    if text not in ("True", "False", "true", "false", "1", "0"):
        raise ValueError(f"measure {spec!r}: {key} must be True or False, not {text!r}")
    return text in ("True", "true", "1")


def ir_gains(spec: str, text: str) -> tuple[tuple[str, float], ...]:
    """``{0:0,1:1,2:3}`` -> (('0', 0.0), ('1', 1.0), ('2', 3.0)): a grade -> gain map, as the
    (level, gain) pairs trec_eval's ``ndcg.0=0,1=1,2=3`` gives; a grade given twice is
    refused (ValueError), as a key given twice in ``Name(key=...)``."""
    if not (text.startswith("{") and text.endswith("}")):
        raise ValueError(f"measure {spec!r}: gains must be written {{grade:gain,...}}")
    out = []
    for item in filter(None, text[1:-1].split(",")):
        grade, colon, gain = item.partition(":")
        out.append((str(ir_int(spec, "a gains grade", grade)), ir_float(spec, "a gain", gain)))
    grades = [grade for grade, _ in out]
    if len(set(grades)) < len(grades):
        raise ValueError(f"measure {spec!r}: a grade is given two gains")
    return tuple(out)
