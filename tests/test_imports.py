"""The package's house rules, read from the source with ``ast``: modules import downward only (no
two modules import each other, nor any longer loop), and no module is over 500 lines."""

import ast
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "src" / "reeval"
MAX_LINES = 500


def _module_name(path: Path) -> str:
    """``src/reeval/io/trecio.py`` -> ``reeval.io.trecio``; a package's ``__init__.py`` -> the package."""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py")) if "__pycache__" not in p.parts}


def _imported(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that module ``name`` imports anywhere in its source (module level and
    inside functions): ``import a.b``, ``from a import b`` (``a.b`` when it is a module, else ``a``),
    relative imports resolved against the module's package."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                       for alias in node.names]
        else:
            continue
        found.update(t for t in targets if t in known and t != name)
    return found


def _graph() -> dict[str, set[str]]:
    sources = _sources()
    return {name: _imported(name, path, set(sources)) for name, path in sources.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each import loop among modules (packages' ``__init__`` left out: a package re-exporting its
    modules is the one upward edge allowed), as the list of modules met around it."""
    modules = {m: {t for t in targets if not _is_package(t)} for m, targets in graph.items()
               if not _is_package(m)}
    loops, state = [], {}

    def visit(node, stack):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(modules.get(node, ())):
            if state.get(nxt) == "open":
                loops.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = "done"

    for module in sorted(modules):
        if module not in state:
            visit(module, [])
    return loops


def _is_package(name: str) -> bool:
    return (PACKAGE.parent / Path(*name.split(".")) / "__init__.py").exists()


def test_no_two_modules_import_each_other():
    graph = _graph()
    pairs = sorted({tuple(sorted((a, b))) for a, targets in graph.items() for b in targets
                    if a in graph.get(b, ()) and not (_is_package(a) or _is_package(b))})
    assert pairs == [], "modules importing each other (give each pair one direction)"


def test_no_module_takes_part_in_an_import_loop():
    assert _cycles(_graph()) == [], "import loops among the package's modules"


def test_the_import_reader_sees_imports_inside_functions_and_relative_ones(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from .b import x\n    import reeval.io.trecio\n"
                      "from reeval.stats import paired\n")
    known = {"reeval.io.trecio", "reeval.stats", "reeval.stats.paired", "reeval.io.b"}
    assert _imported("reeval.io.m", module, known) == {
        "reeval.io.b", "reeval.io.trecio", "reeval.stats.paired"}


def test_no_module_is_over_500_lines():
    long = {name: n for name, path in _sources().items()
            if (n := len(path.read_text().splitlines())) > MAX_LINES}
    assert long == {}, f"modules over {MAX_LINES} lines: split them along a seam"
