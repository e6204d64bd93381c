"""reme_core's and reme_tui's modules import one way: no cycle, counting the imports made only
for type checking and those inside functions, since each is a dependency of the design; and
reme_tui's layers point down (widgets draw, services call the workspace, screens and the app
compose them, the CLI and the MCP server are entry points side by side)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import reme_core
import reme_tui

CORE = Path(reme_core.__file__).parent
TUI = Path(reme_tui.__file__).parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(CORE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The package modules a file imports (a `from pkg import name` of a submodule counts)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level:
            raise AssertionError(f"{path}: a relative import, which this check would not see")
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        found.update(n for n in names if n in modules)
    return found


def _graph(package: Path = CORE) -> dict[str, set[str]]:
    files = {_module_name(p): p for p in package.rglob("*.py")}
    modules = set(files)
    # Package __init__ files only re-export (reme_core's is the public API): left out, since
    # importing a submodule does not depend on what its package re-exports.
    return {
        name: _imports(path, modules) - {name}
        for name, path in files.items()
        if path.name != "__init__.py"
    }


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle, as the modules along it, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(name: str) -> list[str] | None:
        state[name] = 1
        stack.append(name)
        for dep in sorted(graph.get(name, ())):
            if state.get(dep) == 1:
                return [*stack[stack.index(dep) :], dep]
            if dep not in state and (found := visit(dep)) is not None:
                return found
        stack.pop()
        state[name] = 2
        return None

    for name in sorted(graph):
        if name not in state and (found := visit(name)) is not None:
            return found
    return None


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_reme_core_never_imports_the_ui() -> None:
    for path in CORE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith(("reme_tui", "textual")), path
            if isinstance(node, ast.Import):
                for alias in node.names:
                    assert not alias.name.startswith(("reme_tui", "textual")), path


@pytest.mark.parametrize("package", [CORE, TUI], ids=["reme_core", "reme_tui"])
def test_no_import_cycle(package: Path) -> None:
    graph = _graph(package)
    assert len(graph) > 40
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


# reme_tui's layers, lowest first: what each may not import. `text` (every sentence people
# read) and the small leaf modules import no other layer; `messages` carry no widget;
# `widgets` only draw and post messages; `services` are the workspace calls the workers make;
# `screens` are dialogs; `app` composes them. `cli` and `agents` (the MCP server) share
# `text`, never each other's modules: only `cli.mcp` (the subcommand) starts the server, and
# only `cli.program` starts the browser.
_TUI_LAYERS = ["text", "messages", "widgets", "services", "screens", "app", "cli", "agents"]
_LEAVES = {"settings", "state", "crash_log", "opening", "__main__"}


def _layer(module: str) -> str:
    part = module.split(".")[1]
    return "text" if part in _LEAVES - {"__main__"} else part


def _forbidden(module: str) -> set[str]:
    """The reme_tui layers `module` may not import."""
    layer = _layer(module)
    if layer == "__main__":
        return set()
    if layer == "agents":
        return set(_TUI_LAYERS) - {"text", "agents"}
    if layer == "cli":
        allowed = {"text", "cli"}
        allowed |= {"app"} if module == "reme_tui.cli.program" else set()
        allowed |= {"agents"} if module == "reme_tui.cli.mcp" else set()
        return set(_TUI_LAYERS) - allowed
    return set(_TUI_LAYERS[_TUI_LAYERS.index(layer) + 1 :])


def _layer_breaches(graph: dict[str, set[str]]) -> list[str]:
    return sorted(
        f"{name} -> {dep}"
        for name, deps in graph.items()
        for dep in deps
        if _layer(dep) in _forbidden(name)
    )


def test_the_layer_check_finds_an_upward_import() -> None:
    graph = {
        "reme_tui.messages": {"reme_tui.widgets.search.pane"},
        "reme_tui.widgets.outline": {"reme_tui.messages", "reme_tui.text.words"},
        "reme_tui.agents.mcp_read_tools": {"reme_tui.cli.commands"},
        "reme_tui.cli.queries": {"reme_tui.agents.mcp_server"},
        "reme_tui.cli.mcp": {"reme_tui.agents.mcp_server"},
    }
    assert _layer_breaches(graph) == [
        "reme_tui.agents.mcp_read_tools -> reme_tui.cli.commands",
        "reme_tui.cli.queries -> reme_tui.agents.mcp_server",
        "reme_tui.messages -> reme_tui.widgets.search.pane",
    ]


def test_reme_tui_imports_down_its_layers() -> None:
    graph = _graph(TUI)
    assert {_layer(name) for name in graph} <= {*_TUI_LAYERS, "__main__"}, "a layer unnamed here"
    assert _layer_breaches(graph) == []


def _workspace_uses(path: Path) -> list[str]:
    """Where a module names the `Workspace`, reads a `.ws` or looks one up with getattr."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Name) and node.id == "Workspace":
            found.append(f"{path.name}:{node.lineno} Workspace")
        elif isinstance(node, ast.alias) and node.name == "Workspace":
            found.append(f"{path.name} imports Workspace")
        elif isinstance(node, ast.Attribute) and node.attr == "ws":
            found.append(f"{path.name}:{node.lineno} .ws")
        elif isinstance(node, ast.Constant) and node.value == "ws":
            found.append(f"{path.name}:{node.lineno} 'ws'")
    return found


def test_widgets_never_reach_the_workspace(tmp_path: Path) -> None:
    """Widgets draw and post messages; the workspace calls are services run by workers."""
    old = tmp_path / "reader.py"
    old.write_text('ws = getattr(self.app, "ws", None)\nfrom reme_core import Workspace\n')
    assert sorted(_workspace_uses(old)) == ["reader.py imports Workspace", "reader.py:1 'ws'"]
    uses = [u for p in sorted((TUI / "widgets").rglob("*.py")) for u in _workspace_uses(p)]
    assert uses == []
