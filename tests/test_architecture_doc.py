"""docs/architecture.md names every module of the package, and only modules that exist."""

import re

from conftest import ROOT

DOC = ROOT / "docs" / "architecture.md"
PACKAGE = ROOT / "src" / "reeval"


def _tree_modules() -> set[str]:
    """Module paths (relative to src/reeval) drawn in the doc's tree block: two spaces of
    indent per folder level below ``src/reeval/``."""
    block = DOC.read_text().split("<!-- tree")[1].split("<!-- /tree -->")[0]
    lines = block.split("```")[1].splitlines()[1:]
    found, folders = set(), []
    for line in lines:
        m = re.match(r"^((?:  )+)(\S+)", line)
        if not m:
            continue
        depth, name = len(m.group(1)) // 2 - 1, m.group(2)
        folders = folders[:depth]
        if name.endswith("/"):
            folders.append(name)
        elif name.endswith(".py"):
            found.add("".join(folders) + name)
    return found


def test_the_tree_lists_every_module_and_no_other():
    modules = {str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
               if p.name != "__init__.py" and "__pycache__" not in p.parts}
    drawn = _tree_modules()
    assert drawn, "no tree found in docs/architecture.md"
    assert sorted(modules - drawn) == [], "modules missing from docs/architecture.md"
    assert sorted(drawn - modules) == [], "docs/architecture.md names modules that do not exist"


def test_every_path_the_doc_cites_exists():
    for path in re.findall(r"`((?:tests|scripts|workflow/rules|docs)/[\w/.]+\.(?:py|smk|md))`", DOC.read_text()):
        assert (ROOT / path).exists(), path
