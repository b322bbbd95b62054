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

#: C's ``isspace`` in the C locale, which trec_eval runs in: space, \t, \n, \v, \f, \r;
#: not Python's ``\s``, which also skips \x1c-\x1f, \x85, the non-breaking space ...
C_SPACE = " \t\n\v\f\r"
_LEAD = f"[{re.escape(C_SPACE)}]*"
_DECIMAL = re.compile(_LEAD + r"([+-]?(?:inf(?:inity)?|nan(?:\([0-9A-Za-z_]*\))?|"
                      r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?))", re.IGNORECASE)
_HEX = re.compile(_LEAD + r"([+-]?)0[xX]((?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+))(?:[pP]([+-]?[0-9]+))?")
_ATOL = re.compile(_LEAD + r"([+-]?[0-9]+)")
LONG_MAX = 2**63 - 1


def trimmed(spec: str) -> str:
    """A measure spec without the C spaces (:data:`C_SPACE`) before it, nor after it unless
    it has parameters (a ``.``): trec_eval keeps those in the printed name
    (``set_F.0.5 `` prints ``set_F_0.5 ``) and reads its numbers past them."""
    spec = spec.lstrip(C_SPACE)
    return spec if "." in spec else spec.rstrip(C_SPACE)


def c_strtod(text: str) -> tuple[float, int]:
    """C ``strtod`` in the C locale, as trec_eval's ``atof`` reads: (value, characters
    read; 0 when no number starts the text, value 0.0). After C spaces (:data:`C_SPACE`
    only), a sign, then ``inf``/``infinity``, ``nan``/``nan(chars)`` (any case), a hex
    number (``0x10`` = 16, ``0x1p-1`` = 0.5, ``0x.8`` = 0.5: hex digits, an optional
    point, an optional binary exponent ``p``) or a decimal one (``1.5e3``); a ``0x``
    without a hex digit after it is the number 0 (``0xg``: 0, one character). Rounded to
    the nearest double as glibc rounds; beyond the doubles +-inf (HUGE_VAL); an exponent
    with no digit after its ``e``/``p`` is not read (``1e`` is 1)."""
    hexa = _HEX.match(text)
    if hexa:
        sign, digits, exponent = hexa.groups()
        whole, _, fraction = digits.partition(".")
        power = int(exponent or 0) - 4 * len(fraction)
        mantissa = int(whole + fraction or "0", 16)
        try:
            value = float.fromhex(f"0x{mantissa:x}p{power}") if mantissa else 0.0
        except OverflowError:
            value = math.inf
        return (-value if sign == "-" else value), hexa.end()
    m = _DECIMAL.match(text)
    if not m:
        return 0.0, 0
    number = m.group(1)
    return float(number.partition("(")[0]), m.end()


def c_atof(text: str) -> float:
    """C ``atof``: :func:`c_strtod`'s value (0.0 when no number starts the text)."""
    return c_strtod(text)[0]


def c_strtol(text: str) -> tuple[int, int]:
    """C ``strtol(text, NULL, 10)``, as ``atol`` reads: (value, characters read; 0 when no
    integer starts the text, value 0). After C spaces (:data:`C_SPACE` only), a sign and
    decimal digits (base 10: ``0x10`` is 0), clamped to a C long (-2^63 .. 2^63 - 1)."""
    m = _ATOL.match(text)
    if not m:
        return 0, 0
    return max(-LONG_MAX - 1, min(LONG_MAX, int(m.group(1)))), m.end()


def c_atol(text: str) -> int:
    """C ``atol``: :func:`c_strtol`'s value (0 when no integer starts the text)."""
    return c_strtol(text)[0]


def c_long(value: float) -> int:
    """C's ``(long) value`` on x86-64, where trec_eval is built: the value truncated toward
    0 when it lies in a long's range, else LONG_MIN (the ``cvttsd2si`` instruction's
    answer for inf, nan and anything beyond +-2^63, which C leaves undefined)."""
    if math.isfinite(value) and -2.0**63 <= value < 2.0**63:
        return int(value)
    return -LONG_MAX - 1


def split_trec_eval(spec: str) -> tuple[str, str | None]:
    """``name.params`` -> (name, params); a name without ``.`` -> (name, None). An empty
    parameter text (``P.``) is refused, as trec_eval refuses it."""
    name, dot, params = spec.partition(".")
    if dot and not params:
        raise ValueError(f"measure {spec!r}: no parameters after the '.'")
    return name, (params if dot else None)


def long_cutoffs(spec: str, params: str) -> list[int]:
    """trec_eval's integer cutoffs of ``params``: atol of each item, sorted; ValueError unless
    all are positive and distinct, and unless trec_eval sorts them right: its comparator
    (``comp_long``, meas_init.c) returns the difference of two longs as a C int, whose sign
    is wrong for cutoffs 2^31 or more apart (``map_cut.2,9223372036854775807`` computes
    both measures at the wrong cutoff there, ``map_cut.0,9223372036854775807`` passes its
    check of positive cutoffs): such cutoffs are refused first, not matched."""
    cuts = sorted(c_atol(item) for item in params.split(","))
    missorted = misordered_pair(cuts)
    if missorted:
        raise ValueError(f"measure {spec!r}: cutoffs {missorted[0]} and {missorted[1]} differ by 2^31 or more, "
                         "which trec_eval 10 sorts wrongly (its comparator truncates their difference to a C "
                         "int); refused rather than computed otherwise")
    if cuts[0] <= 0:
        raise ValueError(f"measure {spec!r}: cutoffs must be positive integers")
    if len(set(cuts)) < len(cuts):
        raise ValueError(f"measure {spec!r}: a cutoff is given twice")
    return cuts


def c_int(value: int) -> int:
    """C's ``(int)`` of a 64-bit integer, as gcc converts it: the low 32 bits, signed."""
    return ((value + 2**31) % 2**32) - 2**31


def misordered_pair(cuts: list[int]) -> tuple[int, int] | None:
    """The first pair (a < b) of sorted distinct ``cuts`` that trec_eval's ``comp_long``
    (``(int)(a - b)``, the difference taken in a 64-bit long, wrapping) compares with the
    wrong sign either way round, else None. Cutoffs less than 2^31 apart never are."""
    if cuts[-1] - cuts[0] < 2**31:
        return None
    for i, a in enumerate(cuts):
        for b in cuts[i + 1:]:
            if a != b and (c_int(a - b) >= 0 or c_int(b - a) <= 0):
                return a, b
    return None


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


#: a number written plainly: what a parameter item is when trec_eval's reading of it needs
#: no word (decimal digits, a point, an exponent; C spaces around)
_PLAIN_INTEGER = re.compile(f"{_LEAD}[+-]?[0-9]+{_LEAD}")
_PLAIN_REAL = re.compile(f"{_LEAD}[+-]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?{_LEAD}")


def read_note(spec: str, params: str, integer: bool = False, paired: bool = False) -> str:
    """What trec_eval reads in ``params`` (the text after the ``.`` of ``spec``) when an
    item is not a plain number (:data:`_PLAIN_INTEGER`, :data:`_PLAIN_REAL`), as one line
    for stderr: ``"ndcg_cut.1O read as cutoff 1, as trec_eval does"`` (atol stops at the
    letter O), ``"set_F.0x10 read as 16, ..."`` (atof reads hex), ``"P.1e1 read as cutoff
    1"``; ``""`` when every item is plain. A name with a character that is not printable
    ASCII is shown escaped (``'set_F.\\xa00.5' read as 0``). ``integer``: items read by atol (cutoffs);
    ``paired``: ``name=value`` items, the values read by atof."""
    items = params.split(",")
    values = [item.partition("=")[2] if paired else item for item in items]
    if all(plain_number(value, integer) for value in values):
        return ""
    if integer:
        cuts = sorted(c_atol(value) for value in values)
        read = f"cutoff{'s' * (len(cuts) > 1)} {', '.join(map(str, cuts))}"
    else:
        numbers = [_number_text(c_atof(value)) for value in values]
        read = ", ".join(f"{item.partition('=')[0]}={n}" if paired else n for item, n in zip(items, numbers))
    shown = spec if spec.isascii() and spec.isprintable() else ascii(spec)
    return f"{shown} read as {read}, as trec_eval does"


def plain_number(text: str, integer: bool = False) -> bool:
    """``text`` is a number written plainly (:data:`_PLAIN_INTEGER`, :data:`_PLAIN_REAL`)."""
    return bool((_PLAIN_INTEGER if integer else _PLAIN_REAL).fullmatch(text))


def _number_text(value: float) -> str:
    """A double as short as it reads back (16 for 16.0, 0.5, inf)."""
    return str(int(value)) if value.is_integer() else repr(value)


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
