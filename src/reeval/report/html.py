"""The HTML report: one self-contained file with every figure and table of a run.

``results/report.html`` (rule ``report``) opens offline in any browser: the figures are
embedded as PNG data URIs, the styles are inline, nothing is fetched from the network.
Each figure is embedded at the size the report shows it and compressed
(:mod:`reeval.report.images`): the cross-track figures sharp on a HiDPI screen
(:data:`CROSS_TRACK_DENSITY` image pixels per CSS pixel), the per-track figures a column
wide at the screen's own pixels (:data:`PER_TRACK_DENSITY`). The per-track figures a page
wide, the heavy ones (four of a track's dozen, two thirds of their bytes), are shown from
their PNG beside the report (:func:`linked`), so that the report stays under 10 MB at 12
tracks, the most that draw per-track figures. Every figure links to its print-resolution PNG.
Links to the PNG, CSV and markdown files are relative to the report, so they work beside the
results folder; moved alone, the report keeps every table and every embedded figure.

It fits a 1280-pixel-wide window without scrolling sideways: a table wider than the page
scrolls in its own box, an image is at most the page's width, a long name breaks.

Its front page: per track its runs ranked by MAP with the main measures (a leaderboard),
whether the track is included and why not, and links to each study's section. Then one
section per study (the ASL study, lexicographic precision, rareness, reusability, the
cross-track summary): its markdown summary rendered (its images embedded), its other figures with
their captions, its tables; then the per-track figures, one folder per track.

Numbers meant for reading are rounded as trec_eval prints them: 4 decimals
(:data:`DECIMALS`); the CSV and Parquet files keep full precision. A table longer than
:data:`MAX_ROWS` rows shows its first rows and names its file.
"""

from __future__ import annotations

import html
import math
import re
from pathlib import Path
from urllib.parse import quote

import numpy as np
import pandas as pd

from reeval.io.notes import LOST, lost_lines
from reeval.report.escape import html_text
from reeval.report.figures import COLUMN
from reeval.report.images import display_width, embedded_png, printed_inches
from reeval.report.markdown import fmt

#: decimals of every non-integer number shown (trec_eval prints 4)
DECIMALS = 4
#: rows of a table shown before "first N of M rows"
MAX_ROWS = 200
#: the leaderboard's measures, in order, with their names as read (those a track has)
LEADERBOARD = {"map": "MAP", "P_20": "P@20", "ndcg_cut_10": "nDCG@10", "recip_rank": "RR", "bpref": "bpref",
               "ASL": "ASL", "ASL@g1-10": "ASL@g1-10"}
#: leaderboard columns printed as whole ranks (the ASL paper's rounding; tables keep full precision)
ASL_WHOLE_RANKS = {"ASL", "ASL@g1-10"}
#: image pixels per CSS pixel of an embedded figure: the cross-track ones (and those of the
#: markdown summaries) sharp on a HiDPI screen, the per-track ones (12 per track, shown
#: folded) at a screen's own pixels (:func:`reeval.report.images.display_png`)
CROSS_TRACK_DENSITY, PER_TRACK_DENSITY = 2, 1
#: the studies' sections: id -> (title, folder under the results, markdown files shown first)
SECTIONS = {
    "asl-study": ("ASL study", "study", ("summary.md",)),
    "lexiprecision": ("Lexicographic precision", "lexiprecision", ("summary.md",)),
    "rareness": ("Rareness", "rareness", ("summary.md",)),
    "papers": ("The papers, cell by cell", "papers", ("paper_comparison.md",)),
    "reusability": ("Reusability (leave one group out)", "reusability", ()),
    "audit": ("Official figures against reeval's", "audit", ("summary.md",)),
    "summary": ("Cross-track summary", "summary", ("summary.md",)),
}
STYLE = """
body { font-family: system-ui, sans-serif; margin: 0 auto; max-width: 72rem; padding: 0 1rem 4rem; color: #222; }
nav { position: sticky; top: 0; background: #fff; border-bottom: 1px solid #ccc; padding: .5rem 0; }
[id] { scroll-margin-top: 4rem; }
nav a { margin-right: 1rem; }
table { border-collapse: collapse; margin: .5rem 0 1rem; font-size: .85rem; }
th, td { border: 1px solid #ccc; padding: .15rem .4rem; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f2f2f2; }
figure { margin: 1rem 0 2rem; }
img { max-width: 100%; height: auto; }
figure img { border: 1px solid #eee; }
figcaption { font-size: .85rem; color: #444; max-width: 48rem; }
p, li, h1, h2, h3, h4, h5, h6, figcaption, summary, nav { overflow-wrap: anywhere; }
pre { overflow-x: auto; }
details { margin: .3rem 0; }
summary { cursor: pointer; }
.out { color: #a33; }
.tw { overflow-x: auto; }
"""


def cell(value) -> str:
    """A table cell as text: integers as they are, other numbers with :data:`DECIMALS`
    decimals, a missing value empty."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return ""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value)).lower()
    if isinstance(value, (int, np.integer, float, np.floating)):
        return fmt(value, DECIMALS)
    return str(value)


def html_table(df: pd.DataFrame, max_rows: int = MAX_ROWS, source: str | None = None,
               links: dict | None = None) -> str:
    """``df`` as an HTML table, numbers right-aligned and rounded (:func:`cell`); past
    ``max_rows`` rows, the first ones and a note naming ``source``. ``links`` maps a column
    to a function giving each value's href."""
    shown = df.head(max_rows)
    links = links or {}
    head = "".join(f"<th>{html_text(str(c))}</th>" for c in shown.columns)
    numeric = [pd.api.types.is_numeric_dtype(shown[c]) and not pd.api.types.is_bool_dtype(shown[c])
               for c in shown.columns]
    rows = []
    for values in shown.itertuples(index=False):
        tds = []
        for col, value, num in zip(shown.columns, values, numeric):
            text = html_text(cell(value))
            if col in links and text:
                text = f'<a href="{html_text(links[col](value))}">{text}</a>'
            tds.append(f'<td class="num">{text}</td>' if num else f"<td>{text}</td>")
        rows.append("<tr>" + "".join(tds) + "</tr>")
    note = ""
    if len(df) > max_rows:
        where = f"; the whole table: <a href=\"{html_text(source)}\">{html_text(source)}</a>" if source else ""
        note = f"<p>First {max_rows} of {len(df)} rows{where}.</p>"
    return f'<div class="tw"><table><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>{note}'


def density(path: Path, results: Path) -> int:
    """Image pixels per CSS pixel of the figure ``path`` in the report: :data:`PER_TRACK_DENSITY`
    under ``results/tracks/``, :data:`CROSS_TRACK_DENSITY` elsewhere."""
    try:
        per_track = Path(path).resolve().relative_to(Path(results).resolve()).parts[:1] == ("tracks",)
    except ValueError:
        per_track = False
    return PER_TRACK_DENSITY if per_track else CROSS_TRACK_DENSITY


def linked(path: Path, results: Path) -> bool:
    """Whether the report shows the figure ``path`` from its file instead of embedding it:
    a per-track figure (:func:`density`) wider than a column (:data:`COLUMN` inches)."""
    if density(path, results) != PER_TRACK_DENSITY:
        return False
    from PIL import Image

    try:
        with Image.open(path) as image:
            return printed_inches(image) > COLUMN + 0.05
    except OSError:  # not an image Pillow reads: embedded as it is (:func:`embedded_png`)
        return False


def image_tag(path: Path, results: Path, alt: str) -> str:
    """The ``<img>`` of the figure ``path``, linked to the PNG itself (relative to the report
    in ``results``; not linked when the PNG is outside ``results``): embedded at the size
    shown (:func:`embedded_png`, at its :func:`density`), or, for a :func:`linked` figure,
    the PNG itself at that size, loaded when scrolled to."""
    try:
        rel = quote(Path(path).resolve().relative_to(Path(results).resolve()).as_posix())
    except ValueError:
        rel = None
    if rel and linked(path, results):
        return (f'<a href="{html_text(rel)}"><img alt="{html_text(alt)}" width="{display_width(path)}" '
                f'loading="lazy" src="{html_text(rel)}"></a>')
    src, width = embedded_png(path, density(path, results))
    size = f' width="{width}"' if width else ""
    img = f'<img alt="{html_text(alt)}"{size} src="{src}">'
    return f'<a href="{html_text(rel)}">{img}</a>' if rel else img


def anchor(text: str) -> str:
    """An HTML id from a name: letters, digits, ``-``, ``_`` and ``.`` kept, the rest ``-``."""
    return re.sub(r"[^A-Za-z0-9_.-]", "-", text)


def figure(path: Path, results: Path, caption: str = "") -> str:
    """One figure (:func:`image_tag`) with its file name and caption (and, for a
    :func:`linked` one, that it is shown from that file)."""
    rel = path.relative_to(results).as_posix()
    text = (f"<b>{html_text(rel)}</b>" + (" (shown from this file, not embedded)" if linked(path, results) else "")
            + (f": {html_text(caption)}" if caption else ""))
    return f'<figure id="fig-{anchor(rel)}">{image_tag(path, results, rel)}<figcaption>{text}</figcaption></figure>'


def markdown_html(path: Path, results: Path, embedded: set) -> str:
    """A markdown file rendered, its images embedded (:func:`image_tag`; added to ``embedded``),
    its relative links made relative to the report (in ``results``), its headings under the section's."""
    import markdown

    body = markdown.markdown(path.read_text(encoding="utf-8"), extensions=["tables"])
    folder = path.parent

    def image(match):
        src = re.search(r'\bsrc="([^"]+)"', match.group(0))
        alt = re.search(r'\balt="([^"]*)"', match.group(0))
        target = (folder / html.unescape(src.group(1))).resolve() if src else None
        if target is None or target.suffix != ".png" or not target.is_file():
            return match.group(0)
        embedded.add(target)
        return image_tag(target, results, html.unescape(alt.group(1)) if alt else target.name)

    def link(match):
        target = match.group(2)
        if re.match(r"^[a-z]+:|^#|^/", target):
            return match.group(0)
        rel = (folder / html.unescape(target)).resolve()
        try:
            return f'{match.group(1)}"{html_text(rel.relative_to(results.resolve()).as_posix())}"'
        except ValueError:
            return match.group(0)

    body = re.sub(r'(<a[^>]*?href=)"([^"]+)"', link, body)
    body = re.sub(r"<img\b[^>]*>", image, body)  # after the links: its own link is to the PNG
    body = re.sub(r"<table>", '<div class="tw"><table>', body).replace("</table>", "</table></div>")
    # its headings below the section's (h2): # -> h3, ## -> h4 ...
    return re.sub(r"<(/?)h([1-6])\b", lambda m: f"<{m.group(1)}h{min(6, int(m.group(2)) + 2)}", body)


def caption_of(path: Path, results: Path, captions: dict) -> str:
    """The caption of a figure: the first pattern of ``captions`` (``{track}``-style
    wildcards, relative to the results folder) that its path matches."""
    rel = path.relative_to(results).as_posix()
    for pattern, text in captions.items():
        regex = "^" + re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(pattern)) + "$"
        if re.match(regex, rel):
            return text
    return ""


def read_table(path: Path) -> pd.DataFrame:
    """A CSV output with its integer columns kept integers where cells are empty."""
    return pd.read_csv(path, keep_default_na=False, na_values=[""], dtype_backend="numpy_nullable")


#: the leaderboard's column naming the lines each run was scored without (when one was)
DROPPED = "lines dropped"


def dropped_by_track(run_inclusion_csv) -> dict:
    """track -> {run: the lines it was scored without, ``311 duplicate``} of the included runs
    of ``run_inclusion.csv`` that lost lines (:func:`reeval.io.notes.lost_lines`)."""
    runs = pd.read_csv(run_inclusion_csv, keep_default_na=False, dtype={"track": str, "run": str})
    if not {"included", "kind", *LOST} <= set(runs.columns):  # not a table the workflow wrote
        return {}
    runs = runs[runs["included"].astype(bool) & (runs["kind"] == "run")]
    out = {}
    for _, row in runs.iterrows():
        why = lost_lines(row)
        if why:
            out.setdefault(row["track"], {})[row["run"]] = why
    return out


def leaderboard(by_run: pd.DataFrame, dropped: dict | None = None) -> pd.DataFrame:
    """A track's runs ranked by MAP (best first; ASL instead when there is no MAP), with the
    :data:`LEADERBOARD` measures it has under their names as read; with ``dropped`` (run ->
    the lines it was scored without, :func:`dropped_by_track`), a column :data:`DROPPED`
    after the run's name, empty for a run that lost none."""
    cols = [c for c in LEADERBOARD if c in by_run.columns]
    key = "map" if "map" in cols else (cols[0] if cols else "run")
    ascending = key.startswith("ASL") or key == "run"
    board = by_run.sort_values([key, "run"], ascending=[ascending, True], kind="stable")[["run", *cols]]
    for c in ASL_WHOLE_RANKS & set(cols):  # search lengths as the ASL paper prints them: whole ranks
        board[c] = board[c].round(0).astype("Int64")
    board = board.rename(columns=LEADERBOARD).reset_index(drop=True)
    board.insert(0, "rank", np.arange(1, len(board) + 1))
    if dropped:
        board.insert(2, DROPPED, board["run"].astype(str).map(dropped).fillna(""))
    return board


#: below a leaderboard with a run that lost lines: what the column says
DROPPED_NOTE = (f"<p>{DROPPED}: the lines of the run its scores leave out, by the ingest report's reason "
                f"({', '.join(LOST)}: a document repeated within a topic, the first one in trec_eval's "
                "order kept; a score that is not a number; a line that cannot be read as six fields); trec_eval "
                "refuses a run with a duplicate or malformed line. Every count: "
                '<a href="summary/run_inclusion.csv">summary/run_inclusion.csv</a>.</p>')


def front_page(inclusion: pd.DataFrame, boards: dict, sections: list) -> str:
    """The front page: the studies' links, the inclusion of every track, each track's leaderboard."""
    included = inclusion[inclusion["included"].astype(bool)]
    parts = [f"<p>{len(included)} of {len(inclusion)} tracks included in the cross-track studies. "
             f"Sections: " + " · ".join(f'<a href="#{sid}">{html_text(title)}</a>' for sid, title in sections)
             + ' · <a href="#per-track">per-track figures</a>. Measures rounded to 4 decimals as trec_eval '
             "prints them, ASL to whole ranks as its paper does; the CSV and Parquet files keep full precision.</p>"]
    view = inclusion[["track", "included", "reason", "runs_included"]]
    parts.append(html_table(view, max_rows=len(view), links={"track": lambda t: f"#track-{anchor(str(t))}"}))
    open_all = len(boards) <= 3
    for track, board in boards.items():
        row = inclusion[inclusion.track.astype(str) == track]
        status = "included" if len(row) and bool(row.included.iloc[0]) else \
            f'<span class="out">left out: {html_text(str(row.reason.iloc[0]) if len(row) else "not in inclusion.csv")}</span>'
        lost = int((board[DROPPED] != "").sum()) if DROPPED in board else 0
        flag = f', <span class="out">{lost} scored without some of their lines</span>' if lost else ""
        parts.append(f'<details id="track-{anchor(track)}"{" open" if open_all else ""}><summary><b>'
                     f"{html_text(track)}</b>: {len(board)} runs, {status}{flag}</summary>"
                     f"{html_table(board, max_rows=len(board))}{DROPPED_NOTE if lost else ''}"
                     f'<p><a href="#figs-{anchor(track)}">its figures</a> · '
                     f'<a href="tracks/{html_text(track)}/measures_by_run.csv">measures_by_run.csv</a></p></details>')
    return "\n".join(parts)


def section(results: Path, title: str, folder: str, markdown_files, pngs: list, tables: list,
            captions: dict) -> str:
    """One study's section: its markdown, the figures the markdown did not show, its tables."""
    parts, embedded = [], set()
    for name in markdown_files:
        path = results / folder / name
        if path.is_file():
            parts.append(f'<div class="md">{markdown_html(path, results, embedded)}</div>')
    rest = [p for p in pngs if p.resolve() not in embedded]
    if rest:
        parts.append(f"<h3>Figures of {html_text(title)}</h3>")
        parts += [figure(p, results, caption_of(p, results, captions)) for p in rest]
    if tables:
        parts.append(f"<h3>Tables of {html_text(title)}</h3>")
        for path in tables:
            rel = path.relative_to(results).as_posix()
            parts.append(f'<h4 id="table-{anchor(rel)}"><a href="{html_text(rel)}">{html_text(rel)}</a></h4>')
            parts.append(html_table(read_table(path), source=rel))
    return "\n".join(parts)


def per_track_section(results: Path, tracks: list, pngs: list, captions: dict) -> str:
    """Every per-track figure, one collapsible block per track."""
    parts = []
    for track in tracks:
        mine = [p for p in pngs if p.relative_to(results).parts[:2] == ("tracks", track)]
        body = "".join(figure(p, results, caption_of(p, results, captions)) for p in mine) or \
            "<p>No per-track figure for this track.</p>"
        parts.append(f'<details id="figs-{anchor(track)}"><summary><b>{html_text(track)}</b>: '
                     f"{len(mine)} figures</summary>{body}</details>")
    return "\n".join(parts)


def report_html(results, files, inclusion_csv, title: str = "reeval report", captions: dict | None = None,
                run_inclusion_csv=None) -> str:
    """The whole report of a results folder as one HTML string.

    ``files``: the run's outputs to show (PNG figures, CSV tables, the tracks'
    ``measures_by_run.parquet``); ``captions``: figure path pattern (relative to ``results``,
    ``{track}`` wildcards) -> caption text; ``run_inclusion_csv``: its runs that lost lines
    are flagged on their leaderboards (:func:`dropped_by_track`).
    """
    results = Path(results)
    captions = captions or {}
    files = sorted({Path(f) for f in files})
    inclusion = read_table(Path(inclusion_csv)).astype({"track": str})
    dropped = dropped_by_track(run_inclusion_csv) if run_inclusion_csv else {}
    boards = {}
    for f in files:
        if f.name == "measures_by_run.parquet" and f.parent.parent.name == "tracks":
            boards[f.parent.name] = leaderboard(pd.read_parquet(f), dropped.get(f.parent.name))
    boards = dict(sorted(boards.items()))
    sections, bodies = [], []
    for sid, (name, folder, md) in SECTIONS.items():
        pngs = [f for f in files if f.suffix == ".png" and f.parent == results / folder]
        tables = [f for f in files if f.suffix == ".csv" and f.parent == results / folder]
        if not (pngs or tables or any((results / folder / m).is_file() for m in md)):
            continue
        sections.append((sid, name))
        bodies.append(f'<section id="{sid}"><h2>{html_text(name)}</h2>'
                      f"{section(results, name, folder, md, pngs, tables, captions)}</section>")
    track_pngs = [f for f in files if f.suffix == ".png" and f.parent.parts[:len(results.parts) + 1]
                  == (*results.parts, "tracks")]
    tracks = sorted(set(inclusion.track.astype(str)) | set(boards))
    nav = "".join(f'<a href="#{sid}">{html_text(name)}</a>' for sid, name in
                  [("front", "Tracks and runs"), *sections, ("per-track", "Per-track figures")])
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html_text(title)}</title><style>{STYLE}</style></head><body>",
        f"<nav>{nav}</nav>",
        f'<section id="front"><h1>{html_text(title)}</h1>{front_page(inclusion, boards, sections)}</section>',
        *bodies,
        f'<section id="per-track"><h2>Per-track figures</h2>{per_track_section(results, tracks, track_pngs, captions)}'
        "</section>",
        "</body></html>", ""])
