"""The package's layout shows the chain: each top-level folder is a layer, and a layer imports only the layers
before it (function-level imports included), so the folder list reads from the kernels to the command line."""

import ast
from pathlib import Path

import oklasim

PACKAGE = Path(oklasim.__file__).parent
LAYERS = ["_kernels", "game", "strategies", "sim", "runs", "analysis", "studies", "advise", "agent", "env", "table", "review", "web",
          "cli"]
# The package's face: the public API, the errors every layer raises, what a strategy file imports (below the
# strategies, which import it, above the kernels and the game, which it is made of).
FACE = {"__init__.py": len(LAYERS), "errors.py": -1, "strategy_api.py": LAYERS.index("strategies") - 0.5}


def rank_of(parts: list[str]) -> float:
    """The layer of a module given by its dotted name below ``oklasim``."""
    if not parts:
        return -1  # ``from oklasim import __version__, lazy_exports``: the package's own names, usable anywhere
    first = parts[0] if parts[0] in LAYERS else f"{parts[0]}.py"
    return LAYERS.index(first) if first in LAYERS else FACE[first]


def imports_of(path: Path):
    """(line, dotted module below oklasim) of every absolute oklasim import in ``path``."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "oklasim":
            parts = node.module.split(".")[1:]
            if parts:
                yield node.lineno, parts
            else:  # from oklasim import a, b: each name may be a layer
                yield from ((node.lineno, [alias.name]) for alias in node.names
                            if alias.name not in ("__version__", "lazy_exports"))
        elif isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name.split(".")[1:]) for alias in node.names
                        if alias.name.split(".")[0] == "oklasim" and "." in alias.name)


def test_every_top_level_name_is_a_layer_or_the_face():
    names = {p.name for p in PACKAGE.iterdir() if p.name != "__pycache__" and not p.name.endswith(".egg-info")}
    assert names <= set(LAYERS) | set(FACE), sorted(names - set(LAYERS) - set(FACE))
    assert set(LAYERS) <= names


def test_no_layer_imports_a_later_one():
    wrong = []
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        mine = rank_of(parts)
        for line, target in imports_of(path):
            if rank_of(target) > mine:
                wrong.append(f"{path.relative_to(PACKAGE)}:{line} imports oklasim.{'.'.join(target)}")
    assert not wrong, "\n".join(wrong)


def test_a_backward_import_is_caught(tmp_path):
    """The check above can fail: a game module importing the engine is a later layer."""
    path = tmp_path / "bad.py"
    path.write_text("def f():\n    from oklasim.sim.engine import simulate\n")
    assert [rank_of(target) for _, target in imports_of(path)] == [LAYERS.index("sim")]
    assert rank_of(["game", "cards"]) < LAYERS.index("sim")
    assert rank_of(["game", "rules"]) < rank_of(["strategy_api"]) < rank_of(["strategies", "registry"])


# Modules over the size where a reader loses the thread, and the reason each gives at its top for staying whole.
LONG = 520
REASONS = {"_kernels/engine_nb.py": "Why one module", "studies/knock_thresholds.py": "One study per module",
           "strategies/families/expert.py": "One file of some"}


def test_a_long_module_says_at_its_top_why_it_is_whole():
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text()
        name = str(path.relative_to(PACKAGE))
        if text.count("\n") > LONG:
            assert name in REASONS, f"{name} has {text.count(chr(10))} lines and no reason to stay whole"
            assert REASONS[name] in text[:6000], f"{name}: the reason is not at its top"


# No import circle: the graph of imports between the package's modules, function-level ones included, has no cycle.
# ``from oklasim.x import y`` is an arrow to the module ``oklasim.x.y`` when there is one, else to ``oklasim.x``. A
# package's lazy exports (``lazy_exports(__name__, {name: module})``) are arrows from the package to those modules:
# ``from oklasim.runs import RunSpec`` imports ``oklasim.runs.batch`` then and there. ``from oklasim import
# lazy_exports, __version__`` is no arrow: those are the root's own names, defined before any import (rank -1 above).


def module_names(package: Path, root: str = "oklasim") -> dict[Path, str]:
    """The dotted name of every module below ``package``; a package is its ``__init__.py``."""
    names = {}
    for path in package.rglob("*.py"):
        parts = [root, *path.relative_to(package).with_suffix("").parts]
        names[path] = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    return names


def arrows_of(path: Path, name: str, modules: set[str], root: str = "oklasim"):
    """(line, module) for every module of the package that the module ``name`` at ``path`` imports."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]

    def inside(module: str) -> bool:
        return module == root or module.startswith(f"{root}.")

    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(filter(None, [package.rsplit(".", node.level - 1)[0], base]))
            if not inside(base):
                continue
            for alias in node.names:
                if f"{base}.{alias.name}" in modules:
                    yield node.lineno, f"{base}.{alias.name}"
                elif not (base == root and alias.name in ("__version__", "lazy_exports")):
                    yield node.lineno, base
        elif isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names if inside(alias.name))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "lazy_exports"
              and len(node.args) == 2 and isinstance(node.args[1], ast.Dict)):
            yield from ((node.lineno, f"{name}.{value.value}") for value in node.args[1].values)


def import_graph(package: Path, root: str = "oklasim") -> dict[str, set[str]]:
    names = module_names(package, root)
    graph = {name: set() for name in names.values()}
    for path, name in names.items():
        graph[name] |= {target for _, target in arrows_of(path, name, set(graph), root) if target != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The shortest circle back to each module that lies on one, but for the modules of a circle already found."""
    found, done = [], set()
    for start in sorted(graph):
        if start in done:
            continue
        paths, seen = {start: [start]}, {start}  # breadth first from ``start``: the shortest way back to it
        queue = [start]
        while queue:
            here = queue.pop(0)
            if start in graph[here]:
                found.append(paths[here] + [start])
                done |= set(paths[here])
                break
            for there in sorted(graph[here] - seen):
                seen.add(there)
                paths[there] = paths[here] + [there]
                queue.append(there)
    return found


def test_no_import_circle():
    circles = cycles(import_graph(PACKAGE))
    assert not circles, "import circles:\n" + "\n".join(" -> ".join(circle) for circle in circles)


def test_an_import_circle_is_caught(tmp_path):
    """The check above can fail: two modules importing each other, one of them inside a function, and a module
    importing a name its package exports lazily from that module."""
    package = tmp_path / "demo"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from demo.b import B\nA = 1\n")
    (package / "b.py").write_text("def f():\n    from demo import a\n")
    (package / "sub" / "__init__.py").write_text("from demo import lazy_exports\n"
                                                 "__getattr__, __dir__ = lazy_exports(__name__, {'C': 'c'})\n")
    (package / "sub" / "c.py").write_text("from .d import D\nC = 3\n")
    (package / "sub" / "d.py").write_text("from demo.sub import C\nD = 4\n")
    assert cycles(import_graph(package, "demo")) == [["demo.a", "demo.b", "demo.a"],
                                                      ["demo.sub", "demo.sub.c", "demo.sub.d", "demo.sub"]]
    assert cycles({"x": {"y"}, "y": set()}) == []
