"""Names written into markup, escaped once per format: every writer of HTML, Markdown, LaTeX,
tab-separated lines and console lines formats a name (run, track, measure, group, file)
through one of these functions, never by hand.

A name comes from a file name, a run tag or a config, so it may hold anything a file name
can: ``<script>``, ``|``, backticks, ``$``, a tab, a newline, ``=cmd|calc``. Each function
returns text that the format shows as the name itself (or, for characters the format cannot
show, as a visible escape) and that cannot end a cell, a row, a line or a code span, start
markup, or run a script:

========================  ============================================================
:func:`html_text`         ``& < > " '`` as character references (text and attribute values),
                          control characters as visible escapes
:func:`markdown_text`     inline Markdown (a table cell, a sentence): ``<`` (and a ``&`` that
                          could start a reference) as character references
                          (no raw HTML), as are ``| $ ~``; ``\\ ` * [ ]`` and a ``_``
                          that could start emphasis backslash-escaped, control characters as
                          visible escapes (``\\n`` shown for a newline)
:func:`markdown_code`     a Markdown code span holding the name (fences longer than its
                          backticks), control characters as visible escapes
:func:`latex_text`        LaTeX text mode: ``\\ & % $ # _ { } ~ ^ < > |`` as commands, control
                          characters as visible escapes
:func:`tsv_field`         one field of a tab-separated line: ``\\`` doubled, tab, newline and
                          carriage return as ``\\t``, ``\\n``, ``\\r`` (PostgreSQL's text
                          format: one-to-one, the line keeps its fields)
:func:`line_text`         one line of console text: control characters as visible escapes
========================  ============================================================

CSV files are written by the one table writer (:mod:`reeval.io.tables`, pandas and pyarrow),
which quotes a field holding a comma, a quote or a line break (RFC 4180). Their values stay
the names as read: a leading ``=``, ``+``, ``-`` or ``@`` is not altered (the tables are
data, read back by pandas and R; a spreadsheet asked to open one should import it as text).
"""

from __future__ import annotations

import html
import re

#: control characters (C0 and DEL) as the visible escapes Python writes in a string literal
_CONTROL = {c: f"\\x{c:02x}" for c in range(32)} | {0x7F: "\\x7f", 9: "\\t", 10: "\\n", 13: "\\r"}
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f]")

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
_TSV = {ord("\\"): "\\\\", 9: "\\t", 10: "\\n", 13: "\\r"}


def line_text(name) -> str:
    """``str(name)`` with each control character (tab, newline, carriage return, NUL, DEL
    ...) as its visible escape (``\\t``, ``\\n``, ``\\x00``): one line, however the name was
    made. Other characters are left as they are."""
    return _CONTROL_RE.sub(lambda m: _CONTROL[ord(m.group())], str(name))


def html_text(name) -> str:
    """``str(name)`` for HTML text or a quoted attribute value: ``&``, ``<``, ``>``, ``"``
    and ``'`` as character references (:func:`html.escape`), control characters as visible
    escapes (:func:`line_text`: a browser would show a tab or newline as a space, and the
    name ``a\\tb`` would look like ``a b``)."""
    return html.escape(line_text(name), quote=True)


def markdown_text(name) -> str:
    """``str(name)`` as inline Markdown showing the name itself, in a table cell or in a
    sentence: control characters as visible escapes (:func:`line_text`, their backslash
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
    return _CONTROL_RE.sub(lambda m: "\\" + _CONTROL[ord(m.group())], text)


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
    print other glyphs in the default OT1 font encoding), control characters as visible
    escapes (their backslash printed too). ``latex_text("a_b & $c") == "a\\_b \\& \\$c"``."""
    return "".join(_LATEX.get(c, c) for c in line_text(name))


def tsv_field(name) -> str:
    """``str(name)`` as one field of a tab-separated line: backslash doubled, tab, newline
    and carriage return as ``\\t``, ``\\n``, ``\\r``. One-to-one (a reader unescapes it) and
    the line keeps its fields and stays one line."""
    return str(name).translate(_TSV)
