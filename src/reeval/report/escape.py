"""Names written into markup, escaped once per format: every writer of HTML, Markdown, LaTeX,
tab-separated lines and console lines formats a name (run, track, measure, group, file)
through one of these functions, never by hand.

A name comes from a file name, a run tag or a config, so it may hold anything a file name
can: ``<script>``, ``|``, backticks, ``$``, a tab, a newline, ``=cmd|calc``, a terminal
escape sequence (ESC, BEL, ``\\e]0;title\\a``), a Unicode bidi control that reorders the rest
of a line as displayed ("Trojan Source": U+202E shows ``0.2500`` as ``0052.0``). Each
function returns text that the format shows as the name itself (or, for characters the
format cannot show, as a visible escape) and that cannot end a cell, a row, a line or a
code span, start markup, run a script, send a terminal a command or reorder the line:

========================  ============================================================
:func:`html_text`         ``& < > " '`` as character references (text and attribute values),
                          invisible characters as visible escapes
:func:`markdown_text`     inline Markdown (a table cell, a sentence): ``<`` (and a ``&`` that
                          could start a reference) as character references
                          (no raw HTML), as are ``| $ ~``; ``\\ ` * [ ]`` and a ``_``
                          that could start emphasis backslash-escaped, invisible characters as
                          visible escapes (``\\n`` shown for a newline)
:func:`markdown_code`     a Markdown code span holding the name (fences longer than its
                          backticks), invisible characters as visible escapes
:func:`latex_text`        LaTeX text mode: ``\\ & % $ # _ { } ~ ^ < > |`` as commands, invisible
                          characters as visible escapes
:func:`tsv_field`         one field of a tab-separated line: ``\\`` doubled, tab, newline and
                          carriage return as ``\\t``, ``\\n``, ``\\r`` (PostgreSQL's text
                          format), the other invisible characters as visible escapes: one-to-one,
                          the line keeps its fields
:func:`line_text`         one line of console text: invisible characters as visible escapes
:func:`console_text`      console text of any number of lines (tab-separated lines): invisible
                          characters but tab and newline as visible escapes; the commands'
                          output and the workflow's console lines go through it
========================  ============================================================

The invisible characters (:data:`INVISIBLE`) and their escapes, as a Python string literal
writes them: the C0 controls and DEL as ``\\xNN`` (``\\t``, ``\\n``, ``\\r`` for tab,
newline, carriage return; ``\\x1b`` for ESC, ``\\x07`` for BEL), the C1 controls U+0080 to
U+009F as ``\\u0080`` (a terminal may take U+009B as CSI, U+009D as OSC), the bidi controls
U+202A to U+202E, U+2066 to U+2069, U+200E, U+200F and U+061C as ``\\u202e`` ..., and the
line and paragraph separators U+2028, U+2029 as ``\\u2028``, ``\\u2029`` (Python's
``str.splitlines`` and some viewers end a line there). ``\\xNN`` is kept for a byte that is
not UTF-8 (:mod:`reeval.io.bytetext`), so the C1 controls are written ``\\u00NN``.

CSV files are written by the one table writer (:mod:`reeval.io.tables`, pandas and pyarrow),
which quotes a field holding a comma, a quote or a line break (RFC 4180). Their values stay
the names as read: a leading ``=``, ``+``, ``-`` or ``@`` is not altered (the tables are
data, read back by pandas and R; a spreadsheet asked to open one should import it as text).
"""

from __future__ import annotations

import re

#: the invisible characters (module doc) -> their visible escapes: C0 controls and DEL as
#: ``\xNN`` (``\t``, ``\n``, ``\r``), C1 controls, bidi controls and the line and paragraph
#: separators as ``\uNNNN``
INVISIBLE = ({c: f"\\x{c:02x}" for c in [*range(32), 0x7F]} | {9: "\\t", 10: "\\n", 13: "\\r"}
             | {c: f"\\u{c:04x}" for c in [*range(0x80, 0xA0), 0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F),
                                            *range(0x2066, 0x206A), 0x2028, 0x2029]})
_INVISIBLE_RE = re.compile("[" + "".join(f"\\u{c:04x}" for c in INVISIBLE) + "]")
#: what :func:`console_text` escapes: every invisible character but tab and newline
_CONSOLE_RE = re.compile("[" + "".join(f"\\u{c:04x}" for c in INVISIBLE if c not in (9, 10)) + "]")

#: Markdown punctuation escaped anywhere in a name: with a backslash where both CommonMark
#: and Python-Markdown take the escape, as a numeric character reference where Python-Markdown
#: would show the backslash (``|`` splits a table's cells, ``$`` starts math on GitHub, ``~~``
#: strikes through)
_MARKDOWN_ALWAYS = {**{c: "\\" + c for c in "\\`*[]"}, "|": "&#124;", "$": "&#36;", "~": "&#126;"}
#: ``_`` that does not sit between two letters or digits (an intraword ``_`` never starts
#: emphasis, so ``P_20`` stays as it is)
_MARKDOWN_EDGE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
          "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
          "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}"}
_TSV = {ord("\\"): "\\\\", **INVISIBLE}


def line_text(name) -> str:
    """``str(name)`` with each invisible character (:data:`INVISIBLE`: tab, newline, carriage
    return, ESC, BEL, NUL, DEL, C1 and bidi controls) as its visible escape (``\\t``, ``\\n``,
    ``\\x1b``, ``\\u202e``): one line in reading order that sends a terminal no command,
    however the name was made. Other characters are left as they are, so it is idempotent
    (``line_text(line_text(x)) == line_text(x)``) but not one-to-one (a backslash stays single:
    :func:`tsv_field` is the one-to-one form)."""
    return _INVISIBLE_RE.sub(_visible, str(name))


def console_text(text) -> str:
    """``str(text)`` for a terminal: as :func:`line_text`, but tab and newline kept, so that
    tab-separated lines keep their fields and lines (the names in them already escaped by
    :func:`tsv_field` or :func:`line_text`). What every command prints and the workflow's
    console writes goes through it: a text without an invisible character is returned as it
    is (``reeval score``'s lines stay trec_eval's, byte for byte), and an id or tag read from
    a file (``runid``'s tag, a qid) that holds ESC prints ``\\x1b``."""
    return _CONSOLE_RE.sub(_visible, str(text))


def _visible(match) -> str:
    return INVISIBLE[ord(match.group())]


def html_text(name) -> str:
    """``str(name)`` for HTML text or a quoted attribute value: ``&``, ``<``, ``>``, ``"``
    and ``'`` as character references (:func:`html.escape`), invisible characters as visible
    escapes (:func:`line_text`: a browser would show a tab or newline as a space, and the
    name ``a\\tb`` would look like ``a b``; a bidi control would reorder the rest of the
    line or cell, ``0.2500`` shown as ``0052.0``)."""
    import html  # here: the command line writes no HTML

    return html.escape(line_text(name), quote=True)


def markdown_text(name) -> str:
    """``str(name)`` as inline Markdown showing the name itself, in a table cell or in a
    sentence: invisible characters as visible escapes (:func:`line_text`, their backslash
    escaped), ``<`` as ``&lt;`` (so no raw HTML reaches a renderer; ``->`` stays), a ``&``
    before a letter, digit or ``#`` as ``&amp;`` (``&lt;`` in a name shows as written), ``|``,
    ``$`` and ``~`` as ``&#124;``, ``&#36;``, ``&#126;``, the punctuation that starts inline
    markup (backslash, backtick, ``*``, ``[``, ``]``; a ``_`` at a word's edge)
    backslash-escaped. For text inside a line (a cell, after a label): the writers never
    start a line with a name. ``markdown_text("<b>|x") == "&lt;b>&#124;x"``;
    ``markdown_text("P_20") == "P_20"``."""
    text = re.sub(r"&(?=[A-Za-z0-9#])", "&amp;", str(name)).replace("<", "&lt;")
    text = "".join(_MARKDOWN_ALWAYS.get(c, c) for c in text)
    text = _MARKDOWN_EDGE.sub(lambda m: "\\" + m.group(), text)
    return _INVISIBLE_RE.sub(lambda m: "\\" + _visible(m), text)


def markdown_code(name) -> str:
    """``name`` as a Markdown code span: backticks around :func:`line_text` of it, with
    as many backticks as needed to hold the name's own (CommonMark), a space inside when it
    starts or ends with one. A ``|`` in a table cell still needs :func:`markdown_text`."""
    text = line_text(name)
    run = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (run + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def latex_text(name) -> str:
    """``str(name)`` in LaTeX text mode: ``\\``, ``&``, ``%``, ``$``, ``#``, ``_``, ``{``,
    ``}``, ``~``, ``^``, ``<``, ``>``, ``|`` as the commands that print them (the last three
    print other glyphs in the default OT1 font encoding), invisible characters as visible
    escapes (their backslash printed too). ``latex_text("a_b & $c") == "a\\_b \\& \\$c"``."""
    return "".join(_LATEX.get(c, c) for c in line_text(name))


def tsv_field(name) -> str:
    """``str(name)`` as one field of a tab-separated line: backslash doubled, tab, newline
    and carriage return as ``\\t``, ``\\n``, ``\\r``, the other invisible characters as
    :func:`line_text` shows them (``\\x1b``, ``\\u202e``). One-to-one (a reader unescapes it:
    ``\\\\`` a backslash, ``\\xNN`` and ``\\uNNNN`` a character), the line keeps its fields and
    stays one line; a name without a backslash or an invisible character is written as it is."""
    return str(name).translate(_TSV)
