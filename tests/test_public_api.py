"""reme_core's public names are imported on first use: the stub type checkers read and the
lazy table agree, every name resolves, and importing one part does not import the rest."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import time
from pathlib import Path

import reme_core

STUB = Path(reme_core.__file__).with_suffix(".pyi")


def _stub_names() -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    for node in ast.parse(STUB.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                out[alias.asname or alias.name] = (node.module, alias.name)
    return out


def test_the_stub_and_the_lazy_table_agree() -> None:
    assert _stub_names() == reme_core._EXPORTS
    assert sorted(reme_core.__all__) == sorted(reme_core._EXPORTS)
    for name in reme_core.__all__:
        assert getattr(reme_core, name) is not None


def test_a_submodule_imports_without_the_rest() -> None:
    code = (
        "import sys, reme_core.files.scanner\n"
        "print(sorted(m for m in sys.modules if m.startswith('reme_core.') and "
        "m.split('.')[1] in ('edit', 'query', 'vectors', 'workspace')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        reme_core.NoSuchName  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as exc:
        assert "NoSuchName" in str(exc)
    else:
        raise AssertionError("an unknown name resolved")


def test_a_search_of_an_unchanged_workspace_loads_no_parser(make_tree) -> None:
    """The cold `reme-tui search` path: open an indexed, unchanged workspace and search. The
    parsers, the rebuild and the edit modules are imported only when there is work for them."""
    root = make_tree({"daily/a.md": "# Alpha\n\nalpha note [[daily/b.md]]\n", "daily/b.md": "b\n"})
    old = time.time() - 3600  # not racily clean: the next diff trusts mtime and size
    for name in ("a.md", "b.md"):
        os.utime(root / "daily" / name, (old, old))
    reme_core.Workspace.open(root).close()
    code = (
        "import sys, reme_core\n"
        "ws = reme_core.Workspace.open(sys.argv[1])\n"
        "assert [h.path for h in ws.search('alpha').results] == ['daily/a.md']\n"
        "print(sorted(m for m in sys.modules if m.startswith(('reme_core.parse.parsing', "
        "'reme_core.parse.wikilinks', 'reme_core.parse.frontmatter', 'reme_core.indexing.rebuild', "
        "'reme_core.indexing.maintenance', 'reme_core.edit.file_ops'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(root)], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
