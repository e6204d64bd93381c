"""Known-item and cross-language query sets made from the public vaults (DEVELOPERS.md).

Known item: the query is a note's file name (without `.md`), the relevant answer that note
(and any other note of that file name: such a query is ambiguous, and counted). The vaults
are copied once into `work/` (git-ignored) with their folders:
`Learning-Record-Write-By-Obsidian` whole (2,154 notes; its 136 notes with Chinese names make
the Chinese set, 200 of the others the English one); `Pokerole-Obsidian-SRD` and
`obsidian-secops` as a seeded sample of 1,000 notes each (embedding all 10k notes with the
bundled embedder would take hours on 2 cores), 200 known items from each sample.

Cross-language: `CROSS` below, Chinese queries for English notes of
Learning-Record-Write-By-Obsidian (notes whose text has almost no Chinese). Each query is the
note's English title translated by hand for this benchmark (product names kept as Chinese
writers keep them); the search is limited to the note's folder (a path filter), as a person
narrowing to "my JavaScript notes" would.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from benchmarks.quality import QuerySet

VAULTS = Path(os.environ.get("REME_VAULTS", Path(__file__).with_name(".vaults")))
LEARNING = "Learning-Record-Write-By-Obsidian"
SAMPLED = {"Pokerole-Obsidian-SRD": 1000, "obsidian-secops": 1000}
KNOWN_ITEMS = 200
SEED = 28
_HAN = re.compile(r"[\u3400-\u9fff]")

CROSS = {
    "sorted/Python/python-import.md": "Python 导入系统",
    "sorted/designpatterns/javascript-design-pattern-abstract-factory.md": "抽象工厂设计模式",
    "sorted/godot/godot-scene.md": "Godot 场景",
    "sorted/javascript/javascript-function-rest-parameters.md": "函数的剩余参数",
    "sorted/Linux/linux-sftp-lock-down.md": "锁定 SFTP 用户",
    "sorted/designpatterns/javascript-design-pattern-facade.md": "外观模式",
    "sorted/Linux/linux-how-to-change-password.md": "修改密码的过程",
    "sorted/dotNET/dotnet-create-new-repository.md": "创建新仓库",
    "sorted/Linux/macos-brew.md": "苹果电脑的包管理器",
    "sorted/javascript/javascript-in-browser.md": "浏览器中的脚本",
    "sorted/Linux/linux-io.md": "Linux 输入输出",
    "sorted/VersionControl/github-pull-request.md": "拉取请求",
    "sorted/productivity/windows-practical-commands.md": "实用命令",
    "sorted/dotNET/aspnet-core-environment.md": "ASP.NET 运行环境",
    "sorted/javascript/react-component-lifecycle.md": "组件的生命周期",
    "sorted/Network/computer-network-tcp-segment-structure.md": "TCP 报文段结构",
    "sorted/c++/c++-compilation/c++-compile.md": "C++ 编译",
    "sorted/javascript/javascript-dom-document.md": "文档对象",
    "sorted/javascript/react-api-forwardref.md": "React 转发引用",
    "sorted/code-snippets/htmlcss/css-sticky-and-overflow.md": "粘性定位与溢出",
    "sorted/devops/docker/dockerfile-syntax.md": "Dockerfile 语法",
    "sorted/designpatterns/javascript-design-pattern-bridge.md": "桥接模式",
    "sorted/typescript/typescript-d-ts-file.md": "类型声明文件",
    "sorted/javascript/nodejs-module-imports.md": "Node 导入模块",
    "sorted/dotNET/csharp/csharp-attribute.md": "C# 特性",
    "sorted/productivity/vim/neovim-generate-toc-for-markdown.md": "为 Markdown 生成目录",
    "sorted/dotNET/unity/unity-asset.md": "Unity 资源",
    "sorted/dotNET/csharp/csharp-conversion.md": "C# 类型转换",
    "sorted/dotNET/unity/unity-script.md": "Unity 脚本",
    "sorted/javascript/npm-publish-package.md": "发布 npm 包",
    "sorted/webdev/web-dev-optimization-terminology.md": "网页开发优化术语",
    "sorted/javascript/javascript-api-fetch.md": "fetch 接口",
    "sorted/Linux/linux-command-list.md": "Linux 命令列表",
    "sorted/Python/python-flask-quickstart.md": "Flask 快速入门",
    "sorted/javascript/nodejs-child-process.md": "Node 子进程",
    "sorted/javascript/nodejs-module-system.md": "Node 模块系统",
    "sorted/VersionControl/git-tag.md": "Git 标签",
    "sorted/dotNET/csharp/csharp-generic-terminology.md": "C# 泛型术语",
    "sorted/VersionControl/git-rebase.md": "Git 变基",
    "sorted/designpatterns/javascript-design-pattern-flyweight.md": "享元模式",
    "sorted/javascript/threejs-reference-camera.md": "three.js 相机",
    "sorted/webdev/css-positioning.md": "CSS 定位",
    "sorted/Linux/linux-change-root-jail.md": "更改根目录的监狱",
    "sorted/Java/java-junit.md": "Java 单元测试",
    "sorted/javascript/electron-context-isolation.md": "Electron 上下文隔离",
    "sorted/javascript/javascript-regex-method.md": "正则表达式的方法",
    "sorted/designpatterns/javascript-design-pattern-prototype.md": "原型模式",
    "sorted/dotNET/csharp/csharp-array.md": "C# 数组",
    "sorted/javascript/nodejs-debug-in-vscode.md": "在 VSCode 中调试 Node",
    "sorted/Python/pydantic-field.md": "Pydantic 字段",
    "sorted/javascript/threejs-reference-matrix4.md": "three.js 四维矩阵",
    "sorted/javascript/nextjs-dynamic-route.md": "Next.js 动态路由",
    "sorted/Database/mongodb/mongodb-nodejs.md": "用 Node 操作 MongoDB",
    "sorted/webdev/web-dev.md": "网页开发",
    "sorted/markdown-and-write-tool/plantuml-command.md": "PlantUML 命令",
}


def _copy(src: Path, dest: Path, notes: list[Path]) -> None:
    """The chosen notes of `src` into `dest` with their folders (once; kept for the vectors)."""
    if dest.is_dir():
        return
    tmp = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    for note in notes:
        target = tmp / note.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(note, target)
    tmp.rename(dest)


def _notes(root: Path) -> list[Path]:
    skip = (".obsidian", ".git", ".reme-tui", ".trash")
    return sorted(p for p in root.rglob("*.md") if not any(s in p.parts for s in skip))


def _known(
    name: str, root: Path, notes: list[Path], count: int, every: list[Path]
) -> list[tuple[str, dict[str, int], None]]:
    """`count` known items sampled from `notes`. A query that is the file name of several of
    `every` note (the same name in two folders) is ambiguous: each of those notes is a right
    answer (a person typing it cannot say which they mean); how many are is said on stderr."""
    by_name: dict[str, list[str]] = {}
    for p in every:
        by_name.setdefault(p.stem, []).append(p.relative_to(root).as_posix())
    picked = random.Random(SEED).sample(notes, min(count, len(notes)))
    ambiguous = sum(len(by_name[p.stem]) > 1 for p in picked)
    print(f"{name}: {ambiguous} of {len(picked)} known items are ambiguous", file=sys.stderr)
    return [(p.stem, dict.fromkeys(by_name[p.stem], 1), None) for p in picked]


def query_sets(work: Path, only: list[str]) -> Iterator[QuerySet]:
    """The vault rows (`learning-en`, `learning-zh`, `learning-xlang`, `pokerole`, `secops`)."""
    from benchmarks.quality import QuerySet

    wanted = lambda name: not only or name in only  # noqa: E731
    src = VAULTS / LEARNING
    if any(map(wanted, ("learning-en", "learning-zh", "learning-xlang"))):
        if not src.is_dir():
            print(f"skipped {LEARNING}: not in {VAULTS}", file=sys.stderr)
        else:
            root = work / "learning"
            _copy(src, root, _notes(src))
            notes = _notes(root)
            zh = [p for p in notes if _HAN.search(p.stem)]
            en = [p for p in notes if not _HAN.search(p.stem)]
            if wanted("learning-en"):
                yield QuerySet(
                    "learning-en", root, _known("learning-en", root, en, KNOWN_ITEMS, notes)
                )
            if wanted("learning-zh"):
                yield QuerySet("learning-zh", root, _known("learning-zh", root, zh, len(zh), notes))
            if wanted("learning-xlang"):
                cross = [
                    (query, {path: 1}, path.rsplit("/", 1)[0])
                    for path, query in CROSS.items()
                    if (root / path).is_file()
                ]
                yield QuerySet("learning-xlang", root, cross)
    for name, size in SAMPLED.items():
        short = name.split("-")[0].lower().replace("obsidian", "secops")
        if not wanted(short):
            continue
        src = VAULTS / name
        if not src.is_dir():
            print(f"skipped {name}: not in {VAULTS}", file=sys.stderr)
            continue
        notes = _notes(src)
        root = work / short
        _copy(src, root, random.Random(SEED).sample(notes, min(size, len(notes))))
        sample = _notes(root)
        yield QuerySet(short, root, _known(short, root, sample, KNOWN_ITEMS, sample))
