"""The rules that keep ccreport easy to carry on, as tests (docs/architecture.md explains the map).

* Stage packages import only downward: source → model → render → site → live, with share and
  inspect beside site (they use source, model and render only); ``ccreport.fs`` and the package
  root sit below everything; ``cli`` sits on top. No import cycle between modules, function-level
  imports included (they only hide a cycle).
* No module over 500 lines, no function over 50 lines or 7 parameters (click command functions in
  cli/ take one parameter per option and are excepted).
* ``duplicates`` (the workplace's copy finder) reports no pair inside ccreport/.
* Tests mirror the packages and share helpers through conftest and helper modules: no test module
  imports another.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
from pathlib import Path

import pytest

from util import ROOT, TESTS

PKG = ROOT / "ccreport"
# Each stage and what it may import from ccreport (besides itself, the root and ccreport.fs).
ALLOWED = {
    "source": set(),
    "model": {"source"},
    "render": {"source", "model"},
    "site": {"source", "model", "render"},
    "share": {"source", "model", "render"},
    "inspect": {"source", "model", "render"},
    "live": {"source", "model", "render", "site"},
    # the MCP server: on top of the stages it reads through (tail's locate, the export's redaction)
    "agent": {"source", "model", "render", "site", "share", "inspect"},
}
BOTTOM = {"__init__", "__main__", "fs", "layout"}


def modules() -> dict[str, Path]:
    out = {}
    for p in sorted(PKG.rglob("*.py")):
        parts = p.relative_to(ROOT).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    return out


def imports_of(name: str, path: Path, known: dict) -> set[str]:
    """Every ccreport module ``name`` imports, anywhere in the file (function bodies included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{a.name}" for a in node.names] + [base]
        else:
            continue
        for t in targets:
            while t and t not in known:
                t = t.rpartition(".")[0]
            if t and t != name and t != "ccreport":
                found.add(t)
    return found


def stage_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports_of(name, path, known) for name, path in known.items()}


def test_stages_import_only_downward():
    wrong = []
    for mod, deps in graph().items():
        stage = stage_of(mod)
        if stage in ("cli", "__main__"):
            continue
        for dep in deps:
            target = stage_of(dep)
            if target in BOTTOM or target == stage:
                continue
            if stage in BOTTOM or target not in ALLOWED.get(stage, set()):
                wrong.append(f"{mod} imports {dep}")
    assert wrong == []


def test_no_import_cycles():
    g = graph()
    state: dict[str, int] = {}
    cycles = []

    def visit(node, path):
        state[node] = 1
        for dep in sorted(g.get(node, ())):
            if state.get(dep) == 1:
                cycles.append(" → ".join(path[path.index(dep):] + [dep]) if dep in path else f"{node} → {dep}")
            elif dep not in state:
                visit(dep, path + [dep])
        state[node] = 2

    for node in sorted(g):
        if node not in state:
            visit(node, [node])
    assert cycles == []


def test_the_rules_see_a_violation():
    """The checks above read real imports: a stage importing upward would be caught."""
    known = modules()
    deps = imports_of("ccreport.site.build", known["ccreport.site.build"], known)
    assert any(stage_of(d) == "render" for d in deps)
    assert "site" not in ALLOWED["render"] and "live" not in ALLOWED["site"]


def _params(f: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    a = f.args
    names = [x.arg for x in a.posonlyargs + a.args] + [x.arg for x in a.kwonlyargs]
    names += [a.vararg.arg] if a.vararg else []
    names += [a.kwarg.arg] if a.kwarg else []
    return len([n for n in names if n not in ("self", "cls")])


def _is_click_command(f) -> bool:
    return any("command" in ast.unparse(d) for d in f.decorator_list)


def test_modules_and_functions_stay_small():
    too_big = []
    for name, path in modules().items():
        src = path.read_text(encoding="utf-8")
        lines = len(src.splitlines())
        if lines > 500:
            too_big.append(f"{name}: {lines} lines")
        for f in ast.walk(ast.parse(src)):
            if not isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            length = f.end_lineno - f.lineno + 1
            if length > 50:
                too_big.append(f"{name}.{f.name}: {length} lines")
            if _params(f) > 7 and not (stage_of(name) == "cli" and _is_click_command(f)):
                too_big.append(f"{name}.{f.name}: {_params(f)} parameters")
    assert too_big == []


def test_no_copies_inside_the_package():
    tool = shutil.which("duplicates")
    if tool is None:
        pytest.skip("the duplicates command is not on this machine")
    out = subprocess.run([tool, "--repo", str(PKG), "--seconds", "60"], capture_output=True, text=True, cwd=PKG).stdout
    assert out.startswith("no duplicates"), out


def test_tests_mirror_the_packages_and_import_no_test_module():
    stages = {p.name for p in PKG.iterdir() if p.is_dir() and (p / "__init__.py").exists()} | {"cli"}
    misplaced, cross = [], []
    for path in TESTS.rglob("test_*.py"):
        folder = path.parent.relative_to(TESTS).parts
        if folder and folder[0] not in stages:
            misplaced.append(str(path.relative_to(TESTS)))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            cross += [f"{path.name} imports {n}" for n in names if n.split(".")[-1].startswith("test_")]
    assert misplaced == [] and cross == []
