"""Topic and document ids are bytes: how reeval writes them as text and orders them.

trec_eval compares ids as C strings: byte for byte, ``strcmp`` order. reeval holds ids
as Arrow UTF-8 strings, so bytes that are not valid UTF-8 need a text form. The form
used everywhere (runs and qrels alike) is an escape language that is one-to-one:

- a byte that is not part of valid UTF-8 is written ``\\xNN`` (two lower-case hex digits);
- a backslash is written ``\\\\`` (doubled);
- everything else is itself.

So the text of an id that is valid UTF-8 without a backslash is the id itself (every
real track seen so far), and two ids have the same text exactly when they have the same
bytes: the qrels docno written as the five characters ``d\\xe9j`` (text ``d\\\\xe9j``)
never matches a run docno holding the raw byte E9 (text ``d\\xe9j``).

Ordering: escaped text does not sort as its bytes do (``\\`` is 0x5C, the byte it
stands for may be 0xE9), so wherever reeval orders ids as trec_eval does (ties by
docno, topics by qid) it sorts by :func:`unescape` of the texts that hold a backslash.
"""

from __future__ import annotations

import re

_ESCAPE = re.compile(rb"\\(\\|x([0-9a-f]{2}))")


def needs_escape(data) -> bool:
    """True when bytes must go through :func:`escape_text` (a backslash or invalid UTF-8)."""
    if memoryview(data).nbytes == 0:
        return False
    if _find(data, b"\\") >= 0:
        return True
    try:
        str(memoryview(data), "utf-8")
    except UnicodeDecodeError:
        return True
    return False


def _find(data, needle: bytes) -> int:
    find = getattr(data, "find", None)
    return find(needle) if find is not None else bytes(data).find(needle)


def escape_text(data) -> str:
    """The text form of bytes: backslashes doubled, invalid UTF-8 bytes as ``\\xNN``."""
    raw = bytes(data)
    if b"\\" in raw:
        raw = raw.replace(b"\\", b"\\\\")
    return raw.decode("utf-8", errors="backslashreplace")


def unescape(text: str) -> bytes:
    """The bytes a text form stands for (inverse of :func:`escape_text`)."""
    raw = text.encode("utf-8")
    if b"\\" not in raw:
        return raw
    return _ESCAPE.sub(lambda m: b"\\" if m.group(1) == b"\\" else bytes([int(m.group(2), 16)]), raw)


def sorted_texts(values) -> list[str]:
    """Texts sorted by the bytes they stand for (Python's order of str is code point
    order, which is UTF-8 byte order, when no text holds a backslash)."""
    values = list(values)
    if any("\\" in v for v in values):
        return sorted(values, key=unescape)
    return sorted(values)


def show(text: str, limit: int = 120) -> str:
    """A line of a file quoted for an error message: control characters escaped
    (``\\t``, ``\\r``, ``\\x00``), and so is every other character that cannot be seen
    or looks like a plain space (a no-break space ``\\u00a0``, a zero-width space
    ``\\u200b``: what Python's ``str.isprintable`` calls not printable), so that a line
    splitting into the wrong number of fields never looks right; bytes already in text
    form are left as they are (not escaped twice); cut to ``limit`` characters."""
    shown = text if len(text) <= limit else text[: limit - 3] + "..."
    shown = shown.translate(_CONTROL)
    if not shown.isascii():
        shown = "".join(c if c.isascii() or c.isprintable() else _unicode_escape(c) for c in shown)
    return '"' + shown + '"'


def _unicode_escape(c: str) -> str:
    return f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}"


_CONTROL = {c: f"\\x{c:02x}" for c in range(32)} | {0x7F: "\\x7f", 9: "\\t", 10: "\\n", 13: "\\r", 34: '\\"'}
