"""Run names a careless or hostile user gives (issue 31, item 3): the workflow on a track whose
run files are named with markup, table separators, backticks, dollars, a newline and a tab,
and technique groups named likewise; report.html opened in headless Chromium runs no script
and keeps every table's cells under their headers. Names the workflow cannot take as inputs
(Snakemake's wildcards and path variables) stop the dry run in one line naming the file.
Names with terminal escapes (ESC, BEL, an OSC sequence, a C1 control) and bidi controls
(issue 38, items 4 and 5) reach no console line and no Markdown or HTML output raw."""

import re
import subprocess

import pandas as pd
import pytest
import yaml

import browser as browsers
from conftest import ROOT, write_lines
from pdffigures import figure_facts
from reeval.report.escape import line_text
from snakemake_command import SNAKEMAKE

browser = browsers.browser  # the headless Chromium fixture (tests/browser.py)

OSC = "run\x1b]0;TITLE\x07\x1b[8mhidden"
BIDI = "rev\u202e0.2500\u2066x\u2069"
NAMES = ["<img src=x onerror=window.pwned=1>", "<script defer>window.pwned=2", "a|b", "=cmd|calc", "tick`s",
         "$x$ dollar$", "new\nline", "tab\there", "[l](javascript:window.pwned=3)", "plain", OSC, BIDI,
         "csi\x9b31mred", "$_$", "$x^2$"]
#: reusability's groups of the runs (each run's by its place in NAMES): names mathtext would read
#: as math ("$_$" it cannot parse), which the figures draw as named
RUN_GROUPS = ("$g_1$", "$_$ and $x^2$", "plain")
GROUPS = {"<b>`w|": ["*`*", "=*"], "s$*": ["[a-p]*", "<*", "$*", "[[]*", "new*", "tab*"],
          "g\u202e\x1b]2;x\x07": ["r*"]}
#: what no console line nor Markdown or HTML output may hold raw: C0 controls but tab and
#: newline, DEL, C1 controls, bidi controls, the line and paragraph separators
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def track_config(tmp, results, names):
    (tmp / "runs").mkdir()
    qrels = write_lines(tmp / "qrels.txt", [f"{t} 0 D{d} {int((d + t) % 3 == 0)}" for t in (1, 2, 3)
                                            for d in range(0, 30, 2)])
    for i, name in enumerate(names):
        write_lines(tmp / "runs" / name, [f"{t} Q0 D{(d * 7 + i + t) % 30} {d + 1} {50 - d - i * 0.1:.2f} tag{i}"
                                          for t in (1, 2, 3) for d in range(12)])
    cfg = {"results": str(results), "measures": ["map", "P.20", "ndcg_cut.10", "recip_rank", "bpref"],
           "tracks": {"hostile": {"qrels": str(qrels), "runs": str(tmp / "runs"),
                                  "groups": {name: RUN_GROUPS[i % 3] for i, name in enumerate(names)}}},
           "study": {"min_runs": 3, "techniques": {"hostile": {"baseline": "<b>`w|", "groups": GROUPS}}},
           "rareness": {"trials": 10, "n_systems": [2, 4]},
           "lexiprecision": {"label_removal": {"samples": 2}, "hsd_resamples": 50}}
    path = tmp / "study.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def snakemake(*args):
    return subprocess.run([*SNAKEMAKE, *args], cwd=ROOT, capture_output=True, text=True)


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hostile")
    proc = snakemake("--cores", "2", "--configfile", str(track_config(tmp, tmp / "results", NAMES)))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (tmp / "console.txt").write_text(proc.stdout + proc.stderr)
    return tmp / "results"


def test_the_tables_keep_every_name_as_read(hostile_run):
    by_run = pd.read_csv(hostile_run / "tracks" / "hostile" / "measures_by_run.csv", keep_default_na=False)
    assert sorted(by_run.run) == sorted(NAMES)


def test_the_report_runs_no_script_and_every_table_keeps_its_cells(hostile_run, browser):
    from selenium.webdriver.common.by import By

    browser.open((hostile_run / "report.html").as_uri())
    assert browser.execute_script("return typeof window.pwned") == "undefined"
    assert browser.execute_script(
        "return document.querySelectorAll('script, [onerror], [onload], a[href^=\"javascript:\"]').length") == 0
    shapes = browser.execute_script("""return Array.from(document.querySelectorAll('table')).map(t =>
        [t.querySelectorAll('thead th').length, Array.from(t.querySelectorAll('tbody tr')).map(r => r.cells.length)])""")
    assert len(shapes) > 10
    assert all(set(rows) <= {head} for head, rows in shapes), shapes
    board = browser.find_element(By.ID, "track-hostile")
    shown = [row.find_elements(By.TAG_NAME, "td")[1].text for row in board.find_elements(By.CSS_SELECTOR, "tbody tr")]
    assert sorted(shown) == sorted(line_text(n) for n in NAMES)
    browser.execute_script("document.querySelectorAll('details').forEach(d => d.open = true)")  # long tables folded
    study = browser.find_element(By.ID, "asl-study").text
    assert "relative reduction in error from <b>`w|" in study
    assert f"Runs per group: <b>`w| 2, {line_text(list(GROUPS)[2])} 2, s$* 11." in study
    # the ASL study names its best runs as read ("$_$" and "$x^2$" are drawn and shown literally)
    assert any(f"({line_text(name)})" in study or f" {line_text(name)} " in study
               for name in ("<script defer>window.pwned=2", "$x$ dollar$", "$_$", "$x^2$"))


def test_every_figure_is_drawn_and_names_with_dollars_are_drawn_as_named(hostile_run):
    """Run and group names that mathtext reads ("$_$" fails it, "$x^2$" would be drawn as
    x squared): every figure drawn (the tests' strict figures: a figure that fails ends the
    workflow), and the per-track reusability figure's legend holds each group's name as it
    is written (a name drawn as math would be glyphs apart, without its dollars)."""
    pdfs = sorted(hostile_run.rglob("*.pdf"))
    assert len(pdfs) > 20
    texts = [text for text, _ in figure_facts(hostile_run / "tracks" / "hostile" / "reusability" / "scores.pdf")["texts"]]
    assert set(RUN_GROUPS) <= set(texts), texts


def test_the_markdown_summaries_keep_each_row_on_one_line_with_its_cells(hostile_run):
    import markdown

    assert active_markup('<p><script>x</script><img src=a onerror=b><a href="javascript:c">d</a></p>') == [
        "script", "img onerror=b", "a href=javascript:c"]  # the check sees what it looks for
    for md in sorted(hostile_run.rglob("*.md")):
        rendered = markdown.markdown(md.read_text(), extensions=["tables"])
        assert active_markup(rendered) == [], md  # the names show as text, never as elements
        for table in rendered.split("<table>")[1:]:
            head = len(re.findall(r"<th[ >]", table.split("</thead>")[0]))
            rows = table.split("<tbody>")[1].split("</tbody>")[0].split("</tr>")[:-1]
            assert all(len(re.findall(r"<td[ >]", row)) == head for row in rows), (md, table[:500])


def test_no_console_line_markdown_or_html_output_holds_a_terminal_escape_or_bidi_control(hostile_run):
    console = (hostile_run.parent / "console.txt").read_text()
    assert not RAW.search(console), console[:3000]
    outputs = sorted([*hostile_run.rglob("*.md"), *hostile_run.rglob("*.html")])
    assert len(outputs) > 5
    for path in outputs:
        found = RAW.search(text := path.read_text())
        assert not found, (path, found.group(), text[max(0, found.start() - 200):][:400])
    board = (hostile_run / "report.html").read_text()
    assert "run\\x1b]0;TITLE\\x07\\x1b[8mhidden" in board and "rev\\u202e0.2500\\u2066x\\u2069" in board


def test_a_failed_ingest_shows_the_hostile_file_name_escaped_in_its_error_and_log_tail(tmp_path):
    """A malformed run named with an OSC sequence: the rule's ``error:`` line, the failed
    job's log tail and the closing lines name it escaped."""
    path = track_config(tmp_path, tmp_path / "results", ["plain", "second", OSC])
    (tmp_path / "runs" / OSC).write_text("1 Q0 D1\n")
    proc = snakemake("--cores", "1", "--configfile", str(path))
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and not RAW.search(out), out[-3000:]
    shown = line_text(tmp_path / "runs" / OSC)
    assert sum(f"{shown}:1: expected" in line for line in out.splitlines()) >= 2, out[-3000:]  # error: and tail


@pytest.mark.parametrize("name, what", [("br{ace}s", "'{' in a file name as a wildcard"),
                                        ("<script>x", "'<script>' in a file name as a path variable")])
def test_a_run_file_snakemake_cannot_take_as_input_stops_the_dry_run_naming_it(tmp_path, name, what):
    path = track_config(tmp_path, tmp_path / "results", ["plain", name])
    proc = snakemake("-n", "--configfile", str(path))
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "Traceback" not in out
    assert f"tracks: hostile: {tmp_path / 'runs' / name}: Snakemake reads {what}; rename the file" in out


def active_markup(html_text: str) -> list:
    """The elements of rendered HTML that would run or link script: script elements, any
    on* attribute, an href or src starting with javascript:. Names shown as text (``&lt;``)
    are not elements and are not listed."""
    from html.parser import HTMLParser

    found = []

    class Finder(HTMLParser):
        def handle_starttag(self, tag, attrs):
            if tag == "script":
                found.append(tag)
            for name, value in attrs:
                if name.startswith("on") or (name in ("href", "src") and (value or "").strip().lower().startswith("javascript:")):
                    found.append(f"{tag} {name}={value}")

    Finder().feed(html_text)
    return found
