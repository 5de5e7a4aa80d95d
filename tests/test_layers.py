"""The house's layers, as import contracts: each module's imports (at any depth of the file,
lazy ones included) checked against the rule of its layer.

- the games are pure: no I/O library, nothing of the application, only vision's vocabulary;
- vision knows no game and nothing of the companion, the web or the LEDs;
- hardware and web only render: hardware imports none of the rest, and the web talks to the
  referee through commands and the hub, never to its insides, the camera or the reader;
- no module imports itself back through others (no cycles).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("companion", "vision", "hardware", "web")
IO = {"sqlite3", "cv2", "flask", "gpiozero", "socket", "subprocess", "picamera2", "waitress",
      "requests", "os", "shutil", "tempfile", "threading", "time", "pathlib", "io", "urllib"}


def modules() -> dict[str, Path]:
    found = {}
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def imports(name: str, path: Path) -> Iterator[str]:
    """Every module `name` imports, relative imports made absolute."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            yield target
            yield from (f"{target}.{a.name}" for a in node.names)


MODULES = modules()
IMPORTS = {name: sorted(set(imports(name, path))) for name, path in MODULES.items()}


def _of(prefix: str) -> list[str]:
    return [m for m in MODULES if m == prefix or m.startswith(prefix + ".")]


def _broken(layer: str, allowed) -> list[str]:
    return [f"{m} imports {i}" for m in _of(layer) for i in IMPORTS[m] if not allowed(i)]


def _within(name: str, *prefixes: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def test_the_games_are_pure():
    def allowed(i: str) -> bool:
        top = i.split(".")[0]
        if top in IO:
            return False
        if top in PACKAGES:
            return _within(i, "companion.games", "vision.types")
        return True

    assert _broken("companion.games", allowed) == []


def test_vision_imports_no_game_and_nothing_of_the_companion():
    assert _broken("vision", lambda i: not _within(i, "companion", "web", "hardware")) == []


def test_hardware_only_renders():
    assert _broken("hardware", lambda i: not _within(i, "companion", "vision", "web")) == []


def test_the_web_talks_to_the_referee_only_through_commands_and_the_hub():
    outside = ("vision", "hardware", "companion.referee", "companion.service",
               "companion.pipeline", "companion.games.tightrope.interpreter",
               "companion.games.tightrope.log", "companion.games.tightrope.cardtable")
    assert _broken("web", lambda i: not _within(i, *outside)) == []


def test_there_are_no_import_cycles():
    def target(i: str) -> str:  # "pkg.mod.name" is the module pkg.mod, "pkg.mod" itself
        return i if i in MODULES else i.rpartition(".")[0]

    graph = {m: {target(i) for i in IMPORTS[m]} & set(MODULES) - {m} for m in MODULES}
    cycles = []
    state: dict[str, int] = {}  # 1 on the path, 2 done

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                cycles.append(" -> ".join(path[path.index(n):] + [n]))
            elif n not in state:
                visit(n, path + [n])
        state[m] = 2

    for m in sorted(MODULES):
        if m not in state:
            visit(m, [m])
    assert cycles == []


@pytest.mark.parametrize("layer", ["companion.games", "vision", "hardware", "web"])
def test_each_layer_has_modules(layer):
    """The contracts above check something: every layer they name exists."""
    assert _of(layer)
