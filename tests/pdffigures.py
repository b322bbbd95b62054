"""Reading a figure's PDF as a venue's PDF check does (pypdf): the page width, the fonts'
types and every text's size at the printed size. Used by the camera-ready tests."""

from __future__ import annotations

import math
from pathlib import Path

from pypdf import PdfReader

MAX_WIDTH_IN, MIN_TEXT_PT = 7.0, 7.0


def _fonts(resources, seen=None) -> dict:
    """{font name: subtype} of a resource dictionary and the form XObjects it holds."""
    seen = set() if seen is None else seen
    out = {}
    if not resources:
        return out
    resources = resources.get_object()
    for name, font in (resources.get("/Font") or {}).items():
        font = font.get_object()
        out[f"{name} {font.get('/BaseFont', '')}"] = str(font.get("/Subtype"))
    for xobj in (resources.get("/XObject") or {}).values():
        ref = id(xobj)
        xobj = xobj.get_object()
        if ref in seen or xobj.get("/Subtype") != "/Form":
            continue
        seen.add(ref)
        out.update(_fonts(xobj.get("/Resources"), seen))
    return out


def figure_facts(path) -> dict:
    """``width_in``, ``fonts`` ({name: subtype}) and ``texts`` ([(text, size in pt)]) of
    every page of the PDF at ``path``; a text's size is its font size times the scale of
    its text and current matrices (so a rotated label counts at its real size)."""
    reader = PdfReader(str(path))
    facts = {"width_in": 0.0, "fonts": {}, "texts": []}
    for page in reader.pages:
        facts["width_in"] = max(facts["width_in"], float(page.mediabox.width) / 72)
        facts["fonts"].update(_fonts(page.get("/Resources")))

        def visit(text, cm, tm, font, size):
            if text.strip() and size:
                a, b, c, d = (tm[0] * cm[0] + tm[1] * cm[2], tm[0] * cm[1] + tm[1] * cm[3],
                              tm[2] * cm[0] + tm[3] * cm[2], tm[2] * cm[1] + tm[3] * cm[3])
                facts["texts"].append((text.strip(), size * math.sqrt(abs(a * d - b * c))))

        page.extract_text(visitor_text=visit)
    return facts


def camera_ready_problems(path) -> list[str]:
    """What a venue's check would reject in the PDF at ``path``: Type 3 fonts, texts under
    7 pt, a page wider than 7 in; empty when it is camera-ready."""
    f = figure_facts(path)
    name = Path(path).name
    problems = [f"{name}: Type 3 font {font}" for font, kind in f["fonts"].items() if kind == "/Type3"]
    problems += [f"{name}: {size:.2f} pt text {text!r}" for text, size in f["texts"] if size < MIN_TEXT_PT - 0.01]
    if f["width_in"] > MAX_WIDTH_IN + 0.01:
        problems.append(f"{name}: {f['width_in']:.2f} in wide")
    if not f["texts"]:
        problems.append(f"{name}: no text found (a figure has at least axis labels)")
    return problems
