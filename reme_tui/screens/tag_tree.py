"""Tags as a tree (palette "Tags tree"): nested tags (`project/alpha/x`) under their parents,
each with the count of notes `tag:` finds for it (its nested tags' notes included); Enter on a
tag lists its notes, Enter on a note opens it. Arrows move, Right/Left expand and collapse.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Label, OptionList, Tree
from textual.widgets.option_list import Option
from textual.widgets.tree import TreeNode

from reme_core import TagCount
from reme_tui.screens.tags import TagListing
from reme_tui.text import hints
from reme_tui.widgets.safe_text import drawable

TREE_CSS = """
TagTreeScreen { align: center middle; }
TagTreeScreen > Vertical {
    width: 80%; max-width: 100; height: 80%;
    border: thick $accent; background: $surface; padding: 1 2;
}
TagTreeScreen .title { text-style: bold; margin-bottom: 1; }
TagTreeScreen Tree, TagTreeScreen OptionList { height: 1fr; margin: 1 0; }
TagTreeScreen #tag-tree-status { color: $text-muted; width: 1fr; }
"""


def tag_forest(tags: list[TagCount]) -> dict[str, list[TagCount]]:
    """Each tag's children, by the parent's lower-cased name ("" for the top level), sorted
    by name; `list_tags` lists every parent of a nested tag, so no level is missing."""
    children: dict[str, list[TagCount]] = {}
    for tag in sorted(tags, key=lambda t: t.tag.lower()):
        parent = tag.tag.rpartition("/")[0].lower()
        children.setdefault(parent, []).append(tag)
    return children


class TagTreeScreen(TagListing):
    """The tag hierarchy with counts, then a tag's notes; dismisses with a note's path."""

    DEFAULT_CSS = TREE_CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back / close", id="tag_tree.back"),
        Binding("right", "expand", "Expand", show=False, id="tag_tree.expand"),
        Binding("left", "collapse", "Collapse", show=False, id="tag_tree.collapse"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Tags", classes="title", id="tag-tree-title")
            tree: Tree[TagCount] = Tree("#", id="tag-tree")
            tree.show_root = False
            tree.auto_expand = False  # Enter lists the notes; →/←/Space fold
            yield tree
            yield OptionList(id="tag-tree-notes")
            yield Label("Reading tags…", id="tag-tree-status")

    def on_mount(self) -> None:
        self.query_one(OptionList).display = False
        self.query_one(Tree).focus()
        self.call_after_refresh(self._load)  # after the dialog's first frame: see `_load`

    @on(TagListing.Loaded)
    def _loaded(self, message: TagListing.Loaded) -> None:
        forest = tag_forest(message.tags)
        tree: Tree[TagCount] = self.query_one(Tree)
        tree.clear()

        def grow(node: TreeNode[TagCount], key: str) -> None:
            for tag in forest.get(key, []):
                leaf = tag.tag.rpartition("/")[2]
                label = Text.assemble(("#" + drawable(leaf), "bold"), f"  {tag.count}")
                below = tag.tag.lower() in forest
                child = node.add(label, data=tag, allow_expand=below)
                if below:
                    grow(child, tag.tag.lower())

        grow(tree.root, "")
        tree.root.expand()
        n = len(message.tags)
        self._status(hints.tag_tree_hint(n))
        tree.cursor_line = 0

    @on(Tree.NodeSelected, "#tag-tree")
    def _tag_chosen(self, event: Tree.NodeSelected[TagCount]) -> None:
        event.stop()
        tag = event.node.data
        if tag is None:
            return
        self.shown = tag
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(Option(Text(drawable(p)), id=p) for p in tag.paths)
        options.highlighted = 0 if tag.paths else None
        self.query_one(Tree).display = False
        options.display = True
        options.focus()
        self.query_one("#tag-tree-title", Label).update(Text(f"Notes tagged #{drawable(tag.tag)}"))
        self._status(hints.tagged_notes_hint(tag.count, "the tree"))

    @on(OptionList.OptionSelected, "#tag-tree-notes")
    def _note_chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_expand(self) -> None:
        """Open the tag under the cursor (its nested tags show)."""
        node = self.query_one(Tree).cursor_node
        if node is not None and self.shown is None:
            node.expand()

    def action_collapse(self) -> None:
        """Fold the tag under the cursor, or go up to its parent when it is folded."""
        tree: Tree[TagCount] = self.query_one(Tree)
        node = tree.cursor_node
        if node is None or self.shown is not None:
            return
        if node.is_expanded:
            node.collapse()
        elif node.parent is not None and node.parent is not tree.root:
            tree.move_cursor(node.parent)

    def _status(self, text: str) -> None:
        self.query_one("#tag-tree-status", Label).update(text)

    def action_back(self) -> None:
        """From a tag's notes back to the tree; from the tree, close."""
        if self.shown is None:
            self.dismiss(None)
            return
        self.shown = None
        self.query_one(OptionList).display = False
        tree = self.query_one(Tree)
        tree.display = True
        tree.focus()
        self.query_one("#tag-tree-title", Label).update("Tags")
