"""The package's layout shows the chain: each top-level folder is a layer, and a layer imports only the layers
before it (function-level imports included), so the folder list reads from the kernels to the command line."""

import ast
from pathlib import Path

import oklasim

PACKAGE = Path(oklasim.__file__).parent
LAYERS = ["_kernels", "game", "strategies", "sim", "runs", "analysis", "studies", "advise", "agent", "env", "table", "review", "web",
          "cli"]
# The package's face: the public API, the errors every layer raises, what a strategy file imports.
FACE = {"__init__.py": len(LAYERS), "errors.py": -1, "strategy_api.py": LAYERS.index("strategies")}


def rank_of(parts: list[str]) -> int:
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
