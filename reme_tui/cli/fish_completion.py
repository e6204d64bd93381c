"""The fish completion script, written from the same argparse tree as the bash and zsh ones
(shtab writes those; it has no fish). `reme-tui --print-completion fish | source`."""

from __future__ import annotations

import argparse


def _quote(text: str) -> str:
    """A fish single-quoted string."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _option_lines(parser: argparse.ArgumentParser, condition: str) -> list[str]:
    """One `complete` line per option of `parser`, offered where `condition` holds."""
    lines = []
    for action in parser._actions:
        if not action.option_strings or action.help == argparse.SUPPRESS:
            continue
        parts = ["complete -c reme-tui -n", _quote(condition)]
        for option in action.option_strings:
            if option.startswith("--"):
                parts += ["-l", option[2:]]
            else:
                parts += ["-s", option[1:]]
        if action.nargs != 0:  # takes a value: its choices, folders, or nothing offered
            parts.append("-x")
            if action.choices:
                parts += ["-a", _quote(" ".join(str(c) for c in action.choices))]
            elif action.dest == "workspace":
                parts += ["-a", "'(__fish_complete_directories)'"]
        if action.help:
            parts += ["-d", _quote(action.help.split("(")[0].strip())]
        lines.append(" ".join(parts))
    return lines


def _valued(parser: argparse.ArgumentParser) -> str:
    """The options of `parser` that take a value, space-separated."""
    return " ".join(o for a in parser._actions if a.nargs != 0 for o in a.option_strings)


def fish_script(parser: argparse.ArgumentParser) -> str:
    """Completion of the commands, each one's options, folders for the browser's PATH and
    files for a command's arguments."""
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {a.dest: a.help or "" for a in commands._choices_actions}
    top = "__fish_use_subcommand"
    lines = [
        "# reme-tui completion for fish: reme-tui --print-completion fish | source",
        "complete -c reme-tui -f",
        # The browser's PATH: folders, except as the value of an option.
        f"complete -c reme-tui -n '{top}; and not __fish_prev_arg_in {_valued(parser)}'"
        " -a '(__fish_complete_directories)'",
        *_option_lines(parser, top),
    ]
    for name, sub in sorted(commands.choices.items()):
        lines.append(f"complete -c reme-tui -n {top} -a {name} -d {_quote(helps.get(name, ''))}")
        seen = f"__fish_seen_subcommand_from {name}"
        lines += _option_lines(sub, seen)
        if any(not a.option_strings for a in sub._actions):
            lines.append(f"complete -c reme-tui -n {_quote(seen)} -F")
    return "\n".join(lines) + "\n"
