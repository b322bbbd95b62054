"""One escaping module (issue 31, item 3): each function on the names a careless or hostile
user gives, checked by what the format's reader makes of the result; terminal escapes and
bidi controls in a name (issue 38, items 4 and 5) shown as visible escapes in every format."""

import html
import re

import markdown
import pandas as pd
import pytest

from reeval.report.escape import (INVISIBLE, console_text, html_text, latex_text, line_text, markdown_code,
                                  markdown_text, tsv_field)
from reeval.report.markdown import counts_line, image, table
from reeval.report.significance_table import render

HOSTILE = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "a|b", "=cmd|calc", "tick`s",
           "$x$ dollars", "new\nline", "tab\there", "back\\slash", "[link](javascript:alert(1))", "*em* _u_",
           "R&D &lt; &#60;", "P_20", "~~strike~~", "cr\rx", "nul\x00x", "ünï ✓",
           "run\x1b]0;TITLE\x07\x1b[8mhidden", "csi\x9b31m osc\x9dx\x9c", "rev\u202e0.2500\u202c",
           "iso\u2067x\u2069 mark\u200f\u200e\u061c emb\u202a\u202b\u202d", "sep\u2028par\u2029x"]
#: the characters no format may write raw: C0 and C1 controls, DEL, bidi controls, separators
RAW = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def cells_of(rendered: str) -> list[list[str]]:
    """The text of each cell of each body row of the first HTML table in ``rendered``."""
    body = rendered.split("<tbody>")[1].split("</tbody>")[0]
    return [[html.unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)]


def test_a_markdown_table_of_hostile_names_renders_one_cell_each_showing_the_name():
    frame = pd.DataFrame({"run": HOSTILE, "value": ["0.5000"] * len(HOSTILE)})
    text = table(frame)
    assert len(text.splitlines()) == 2 + len(HOSTILE)  # no name splits a row
    rendered = markdown.markdown(text, extensions=["tables"])
    assert "<script" not in rendered and "<img" not in rendered and "<a " not in rendered
    assert "<em>" not in rendered and "<code>" not in rendered and "<del>" not in rendered
    assert [row[1] for row in cells_of(rendered)] == ["0.5000"] * len(HOSTILE)
    assert [row[0] for row in cells_of(rendered)] == [line_text(n) for n in HOSTILE]


@pytest.mark.parametrize("name", HOSTILE)
def test_markdown_text_in_a_sentence_shows_the_name_and_starts_no_markup(name):
    rendered = markdown.markdown(f"Run {markdown_text(name)} is best.")
    assert rendered.startswith("<p>") and rendered.count("<") == 2, rendered  # <p> and </p> only
    assert html.unescape(rendered[3:-4]) == f"Run {line_text(name)} is best."


def test_markdown_text_leaves_plain_names_and_intraword_underscores_alone():
    for name in ("P_20", "ndcg_cut_10", "run-01.gz", "syn-graded", "a -> b", "5 >= 3"):
        assert markdown_text(name) == name
    assert markdown_text("<b>|x") == "&lt;b>&#124;x" and markdown_text("_u_") == "\\_u\\_"


def test_markdown_code_holds_backticks_and_image_escapes_its_alt():
    assert markdown_code("weak") == "`weak`" and markdown_code("a`b") == "``a`b``" and markdown_code("`a") == "`` `a ``"
    rendered = markdown.markdown(f"from {markdown_code('<script>x</script>`')}")
    assert "<script" not in rendered and html.unescape(re.sub("</?(p|code)>", "", rendered)) == "from <script>x</script>`"
    assert image("fig [x](javascript:y)", "a b.png") == "![fig \\[x\\](javascript:y)](a%20b.png)"
    assert counts_line("n", ["<1", "a|b"], [1, 2]) == "n: &lt;1: 1, a&#124;b: 2"


def test_html_text_escapes_text_and_attribute_values():
    assert html_text('<img src="x" onerror=\'y\'>&') == "&lt;img src=&quot;x&quot; onerror=&#x27;y&#x27;&gt;&amp;"
    assert html_text("tab\there\nnew") == "tab\\there\\nnew"


def test_latex_text_prints_every_special_character():
    assert latex_text("a_b & $c% #1 {x} ~^\\") == (r"a\_b \& \$c\% \#1 \{x\} \textasciitilde{}\textasciicircum{}"
                                                   r"\textbackslash{}")
    assert latex_text("<s>|t\nx") == r"\textless{}s\textgreater{}\textbar{}t\textbackslash{}nx"


def unescape_tsv(field: str) -> str:
    """The name a field stands for: ``\\\\``, ``\\t``, ``\\n``, ``\\r``, ``\\xNN``, ``\\uNNNN``."""
    named = {"t": "\t", "n": "\n", "r": "\r", "\\": "\\"}
    return re.sub(r"\\(x[0-9a-f]{2}|u[0-9a-f]{4}|.)",
                  lambda m: named.get(m.group(1)) or chr(int(m.group(1)[1:], 16)), field)


@pytest.mark.parametrize("name", HOSTILE)
def test_tsv_field_keeps_a_line_and_its_fields_and_reads_back_one_to_one(name):
    line = "\t".join([tsv_field(name), "map", tsv_field(name + "\\t")])
    assert "\n" not in line and "\r" not in line and len(line.split("\t")) == 3
    assert [unescape_tsv(f) for f in line.split("\t")] == [name, "map", name + "\\t"]


def test_line_text_shows_control_characters():
    assert line_text("a\tb\nc\rd\x00e\x7f") == "a\\tb\\nc\\rd\\x00e\\x7f" and line_text("ünï <x>") == "ünï <x>"


def test_the_significance_table_escapes_run_names_in_each_format():
    runs = ["<script>", "a|b\nc"]
    rows = pd.DataFrame({"measure": ["map"], "test": ["t"], "run_a": [runs[0]], "run_b": [runs[1]], "mean_a": [0.5],
                         "mean_b": [0.25], "p_adjusted": [0.01]})
    settings = {"runs": runs, "measures": ["map"], "higher_is_better": {"map": True}, "correction": "none"}
    md = render(rows, settings, "t", fmt="markdown")
    rendered = markdown.markdown(md, extensions=["tables"])
    assert "<script" not in rendered and [r[1] for r in cells_of(rendered)] == ["<script>", "a|b\\nc"]
    assert "<strong>0.5000</strong><sup>b</sup>" in rendered
    assert r"a & \textless{}script\textgreater{} & \textbf{0.5000}$^{b}$ \\" in render(rows, settings, "t", fmt="latex")
    text = render(rows, settings, "t", fmt="text")
    assert len(text.splitlines()) == 4 and "a|b\\nc" in text


@pytest.mark.parametrize("escape", [line_text, html_text, markdown_text, markdown_code, latex_text, tsv_field])
@pytest.mark.parametrize("name", HOSTILE)
def test_no_format_writes_a_control_bidi_or_separator_character_raw(escape, name):
    assert not RAW.search(escape(name)), (escape.__name__, escape(name))


def test_terminal_and_bidi_controls_show_as_the_escapes_a_python_literal_writes():
    assert line_text("run\x1b]0;TITLE\x07\x1b[8mhidden") == "run\\x1b]0;TITLE\\x07\\x1b[8mhidden"
    assert line_text("rev\u202e0.2500\u2066") == "rev\\u202e0.2500\\u2066"
    assert line_text("csi\x9b") == "csi\\u009b"  # \x9b would read as a byte that is not UTF-8 (reeval.io.bytetext)
    assert html_text("<\u202e>") == "&lt;\\u202e&gt;" and latex_text("a\u202eb") == r"a\textbackslash{}u202eb"
    assert markdown_text("a\u202eb") == "a\\\\u202eb" and markdown_code("a\u2067b") == "`a\\u2067b`"
    assert tsv_field("a\\x1b\x1b\u202e") == "a\\\\x1b\\x1b\\u202e"  # the literal text and the character differ
    assert line_text("ünï ✓ naïve\u200b") == "ünï ✓ naïve\u200b"  # printable and zero-width characters stay


@pytest.mark.parametrize("name", HOSTILE)
def test_line_text_is_idempotent(name):
    assert line_text(line_text(name)) == line_text(name)


def test_console_text_keeps_tabs_and_lines_and_escapes_every_other_invisible_character():
    lines = "run\tmap                   \tall\t0.2500\nrun\tP_5                   \tall\t0.4000"
    assert console_text(lines) is not None and console_text(lines) == lines  # trec_eval's lines, byte for byte
    hostile = "a\x1b]0;T\x07\tb\u202ec\rd\x9b\ne"
    assert console_text(hostile) == "a\\x1b]0;T\\x07\tb\\u202ec\\rd\\u009b\ne"
    assert all(console_text(chr(c)) == (chr(c) if c in (9, 10) else shown) for c, shown in INVISIBLE.items())


def test_the_significance_table_shows_terminal_and_bidi_controls_escaped_in_each_format():
    runs = ["run\x1b]0;T\x07", "rev\u202e0.25"]
    rows = pd.DataFrame({"measure": ["map"], "test": ["t"], "run_a": [runs[0]], "run_b": [runs[1]], "mean_a": [0.5],
                         "mean_b": [0.25], "p_adjusted": [0.01]})
    settings = {"runs": runs, "measures": ["map"], "higher_is_better": {"map": True}, "correction": "none"}
    for fmt in ("text", "markdown", "latex"):
        out = render(rows, settings, "t", fmt=fmt)
        assert not RAW.search(out.replace("\n", "")), (fmt, out)
        assert "u202e0.25" in out and "x1b" in out and "x07" in out
