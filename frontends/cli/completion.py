"""``xactika completion bash|zsh``: a shell completion script, made from the CLI itself.

The script is generated from ``COMMANDS`` and each command's own argparse parser
(``build_parser()``), so a new command or flag completes without anyone editing a
script: subcommand names, each subcommand's flags, the choices of flags that have them
(``--color always``), and file names everywhere else. Values the parsers cannot list
come from the registries: ``--mode`` every game's modes, bot names for ``xactika bot``,
``--bots`` and ``--hint-bot``, and ``--seat N=`` a seat's specs (``bot:heuristic``).

    source <(xactika completion bash)      # in ~/.bashrc
    source <(xactika completion zsh)       # in ~/.zshrc (after compinit)
"""

from __future__ import annotations

import argparse
import importlib
import shlex
import sys
from collections.abc import Sequence

import attrs

from xactika.frontends.cli import COMMANDS
from xactika.frontends.cli.options import OneLineParser


@attrs.frozen
class Flag:
    """One option of a subcommand: its spellings, help, and what value it takes."""

    names: tuple[str, ...]
    help: str
    takes_value: bool
    choices: tuple[str, ...] = ()
    repeats: bool = False
    path: bool = False  # the value is a file name (its metavar says FILE, PATH, LOG, DIR)
    keyed: bool = False  # the value is N=CHOICE (``--seat 1=bot:random``)


def _actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """A parser's actions and those of its subcommands (``arena run --games``), once each."""
    out = []
    for action in parser._actions:
        out.append(action)
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                out += _actions(sub)
    return out


def flags(command: str) -> list[Flag]:
    """The options of ``xactika COMMAND``, read from its parser (none if it has none)."""
    module = importlib.import_module(COMMANDS[command][0])
    build = getattr(module, "build_parser", None)
    if build is None:
        return []
    found = [Flag(("-h", "--help"), "show the command's help", False)]
    seen: set[tuple[str, ...]] = set()
    for action in _actions(build()):
        if not action.option_strings or isinstance(action, argparse._HelpAction) \
                or tuple(action.option_strings) in seen:
            continue
        seen.add(tuple(action.option_strings))
        choices = tuple(str(c) for c in action.choices or ())
        if not choices and "--game" in action.option_strings:
            choices = _games()
        metavar = str(action.metavar or action.dest).upper()
        keyed = metavar.startswith("N=")
        if not choices:
            choices = _values(tuple(action.option_strings), metavar)
        found.append(Flag(
            tuple(action.option_strings),
            " ".join(str(action.help or "").split()).replace("%%", "%"),
            action.nargs != 0,
            choices,
            isinstance(action, argparse._AppendAction),
            any(word in metavar for word in ("FILE", "PATH", "LOG", "DIR", "OUT", "RECORD",
                                              "KEY", "CERT", "MANIFEST")),
            keyed,
        ))
    return found


def positional_values(command: str) -> tuple[str, ...]:
    """What the first positional argument of ``xactika COMMAND`` may be, when that is a
    known list (``xactika bot NAME``); empty when it is a file or free text."""
    if command == "bot":
        return _bot_specs()
    return ()


FILES = None
"""A positional argument that is a file (completed with file names)."""
_FILE_WORDS = ("FILE", "PATH", "LOG", "DIR", "RECORD")


def positionals(command: str) -> tuple[list[tuple[str, ...] | None], bool]:
    """Each positional argument of ``xactika COMMAND`` in order: its values (empty for
    free text: a host, a number, ``KEY=VALUE``) or :data:`FILES`; and whether the last
    repeats. ``xactika lobby HOST:PORT <Tab>`` offers the lobby's commands, not files."""
    module = importlib.import_module(COMMANDS[command][0])
    build = getattr(module, "build_parser", None)
    if build is None:
        return [FILES], True
    found: list[tuple[str, ...] | None] = []
    repeats = False
    for action in build()._actions:
        if action.option_strings:
            continue
        metavar = str(action.metavar or action.dest).upper()
        if action.choices:
            found.append(tuple(str(c) for c in action.choices))
        elif not found and positional_values(command):
            found.append(positional_values(command))
        elif any(word in metavar for word in _FILE_WORDS) or action.nargs == "...":
            found.append(FILES)
        else:
            found.append(())
        repeats = action.nargs in ("*", "+", "...")
    return found, repeats


def _values(names: tuple[str, ...], metavar: str) -> tuple[str, ...]:
    """A flag's values that the parser does not list but the registries do."""
    if "--mode" in names:
        return _modes()
    if "--seat" in names and metavar.startswith("N="):
        return (*(f"bot:{b}" for b in _bot_specs()), "cmd:", "human")
    if {"--bots", "--hint-bot"} & set(names) and metavar == "NAME":
        return _bot_specs()
    return ()


def _bot_specs() -> tuple[str, ...]:
    from xactika.core.bots.agents import agent_names

    names = agent_names()
    levels = tuple(f"strong:{n}" for n in range(1, 6)) if "strong" in names else ()
    return tuple(dict.fromkeys((*names, *levels)))


def _modes() -> tuple[str, ...]:
    import xactika.core  # noqa: F401  (registers the games)
    from xactika.core.engine.api import game_rules, games

    return tuple(dict.fromkeys(m for g in games() for m in game_rules(g).modes))


def _games() -> tuple[str, ...]:
    import xactika.core  # noqa: F401  (registers the games)
    from xactika.core.engine.api import games

    return games()


def bash() -> str:
    """A bash completion function for ``xactika``."""
    top = " ".join([*COMMANDS, "--help", "--version"])
    per_command = []
    choices = []
    keyed = []
    for name in COMMANDS:
        options = flags(name)
        valued = [n for f in options if f.takes_value and not f.choices and not f.path
                  for n in f.names]
        for f in options:
            if f.keyed and f.choices:
                pattern = "|".join(rf"{name}\ {shlex.quote(n)}" for n in f.names)
                keyed.append(f"        {pattern}) _xactika_keyed {shlex.quote(' '.join(f.choices))}"
                             "; return ;;")
        if valued:  # a number or a name follows: offer nothing rather than files
            pattern = "|".join(f"{name}\\ {shlex.quote(n)}" for n in valued)
            choices.append(f"        {pattern}) COMPREPLY=(); return ;;")
        words = " ".join(n for f in options for n in f.names)
        places, repeats = positionals(name)
        pos = " ".join(shlex.quote("@f" if v is FILES else " ".join(v) or "@n")
                       for v in places)
        per_command.append(f"        {shlex.quote(name)}) opts={shlex.quote(words)}; "
                           f"pos=({pos}); rep={int(repeats)} ;;")
        for f in options:
            if f.choices and not f.keyed:
                pattern = "|".join(f"{name}\\ {shlex.quote(n)}" for n in f.names)
                values = shlex.quote(" ".join(f.choices))
                choices.append(f"        {pattern}) COMPREPLY=($(compgen -W {values} "
                               f'-- "$cur")); return ;;')
    lines = [
        "# bash completion for xactika; made by 'xactika completion bash'.",
        "# Use: source <(xactika completion bash)   (e.g. in ~/.bashrc)",
        "# N=VALUE after a flag (--seat 1=bot:heuristic): bash splits words at '=' and ':',",
        "# so the word is read from the line, and what precedes the last of those is cut",
        "_xactika_keyed() {",
        '    local line="${COMP_LINE:0:COMP_POINT}" word pre=""',
        '    word="${line##*[[:space:]]}"',
        '    [[ $word =~ ^[0-9]+= ]] && pre="${BASH_REMATCH[0]}"',
        '    [[ -z $pre ]] && { COMPREPLY=(); return; }',
        '    COMPREPLY=($(compgen -P "$pre" -W "$1" -- "${word#"$pre"}"))',
        '    local cut="${word%"${word##*[=:]}"}"',
        '    COMPREPLY=("${COMPREPLY[@]#"$cut"}")',
        '    [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *: ]] &&',
        '        compopt -o nospace 2>/dev/null',
        "    return 0",
        "}",
        "# the positional argument the cursor is in, counted on the line (bash splits",
        "# HOST:PORT into three words); -1 once a flag came, whose values are not counted",
        "_xactika_place() {",
        '    local ws n i',
        '    read -r -a ws <<< "${COMP_LINE:0:COMP_POINT}"',
        '    n=${#ws[@]}',
        '    [[ "${COMP_LINE:0:COMP_POINT}" =~ [[:space:]]$ ]] || n=$((n - 1))',
        "    for ((i = 2; i < n; i++)); do",
        '        [[ ${ws[i]} == -* ]] && { echo -1; return; }',
        "    done",
        "    echo $((n - 2))",
        "}",
        "_xactika() {",
        "    local cur prev cmd opts line lineprev rep k v",
        "    local -a pos",
        '    cur="${COMP_WORDS[COMP_CWORD]}"',
        '    prev="${COMP_WORDS[COMP_CWORD-1]}"',
        '    line="${COMP_LINE:0:COMP_POINT}"',
        '    line="${line%"${line##*[[:space:]]}"}"',
        '    line="${line%"${line##*[![:space:]]}"}"',
        '    lineprev="${line##*[[:space:]]}"',
        "    if [[ $COMP_CWORD -eq 1 ]]; then",
        f'        COMPREPLY=($(compgen -W {shlex.quote(top)} -- "$cur"))',
        "        return",
        "    fi",
        '    cmd="${COMP_WORDS[1]}"',
        '    case "$cmd $lineprev" in',
        *keyed,
        "    esac",
        '    case "$cmd $prev" in',
        *choices,
        "    esac",
        '    case "$cmd" in',
        *per_command,
        "        *) opts=''; pos=(@f); rep=1 ;;",
        "    esac",
        '    if [[ "$cur" == -* ]]; then',
        '        COMPREPLY=($(compgen -W "$opts" -- "$cur"))',
        "        return",
        "    fi",
        "    k=$(_xactika_place)",
        "    v=@f",
        "    if (( k >= 0 )); then",
        "        if (( k < ${#pos[@]} )); then v=${pos[k]}",
        "        elif (( rep && ${#pos[@]} )); then v=${pos[${#pos[@]}-1]}",
        "        else v=@n; fi",
        "    fi",
        '    case "$v" in',
        '        @f) COMPREPLY=($(compgen -f -- "$cur")) ;;',
        "        @n) COMPREPLY=() ;;",
        '        *) COMPREPLY=($(compgen -W "$v" -- "$cur")) ;;',
        "    esac",
        "}",
        "complete -o filenames -F _xactika xactika",
    ]
    return "\n".join(lines) + "\n"


def _zsh_text(text: str) -> str:
    """Help text safe inside a single-quoted _arguments spec's [...]."""
    out = text.replace("\\", "").replace("'", "'\\''")
    for ch in "[]:":
        out = out.replace(ch, "\\" + ch)
    return out


def zsh() -> str:
    """A zsh completion function for ``xactika`` (works sourced or from $fpath)."""
    described = [f"    {shlex.quote(name + ':' + text)}" for name, (_, text) in COMMANDS.items()]
    cases = []
    for name in COMMANDS:
        specs = []
        for f in flags(name):
            what = _zsh_text(f.help[:70])
            value = ""
            if f.takes_value:
                value = (":value: " if f.keyed else
                         f":value:({' '.join(f.choices)})" if f.choices else
                         ":file:_files" if f.path else ":value: ")
            star = "*" if f.repeats else ""
            for n in f.names:
                specs.append(f"'{star}{n}[{what}]{value}'")
        places, repeats = positionals(name)
        for i, values in enumerate(places, 1):
            where = "*" if repeats and i == len(places) else str(i)
            specs.append(f"'{where}:file:_files'" if values is FILES else
                         f"'{where}:value:({' '.join(values)})'" if values else
                         f"'{where}:value: '")
        cases.append(f"      {shlex.quote(name)}) _arguments -s " + " ".join(specs) + " ;;")
    lines = [
        "#compdef xactika",
        "# zsh completion for xactika; made by 'xactika completion zsh'.",
        "# Use: source <(xactika completion zsh)   (in ~/.zshrc, after compinit)",
        "_xactika() {",
        "  local -a commands",
        "  commands=(",
        *described,
        "  )",
        "  if (( CURRENT == 2 )); then",
        "    _describe 'command' commands",
        "    return",
        "  fi",
        "  local cmd=$words[2]",
        "  words=(${words[2,-1]})",
        "  (( CURRENT-- ))",
        "  case $cmd in",
        *cases,
        "      *) _files ;;",
        "  esac",
        "}",
        'if [[ "$funcstack[1]" == "_xactika" ]]; then',
        '  _xactika "$@"',
        "else",
        "  compdef _xactika xactika",
        "fi",
    ]
    return "\n".join(lines) + "\n"


SHELLS = {"bash": bash, "zsh": zsh}


def main(argv: Sequence[str]) -> int:
    ap = OneLineParser(
        prog="xactika completion",
        description="Print a shell completion script for xactika. bash: add "
        "'source <(xactika completion bash)' to ~/.bashrc; zsh: add "
        "'source <(xactika completion zsh)' to ~/.zshrc after compinit.",
    )
    ap.add_argument("shell", choices=tuple(SHELLS), help="the shell to complete in")
    args = ap.parse_args(argv)
    sys.stdout.write(SHELLS[args.shell]())
    return 0


__all__ = ["Flag", "bash", "flags", "main", "positional_values", "zsh"]
