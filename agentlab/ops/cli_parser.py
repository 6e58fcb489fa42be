"""argparse in the course's language, for ``agentlab`` and its subcommands.

argparse writes its own words (``usage:``, "the following arguments are
required") in English through gettext, process-wide. :class:`CourseParser`
sets the words a parser may set (usage prefix, group titles, ``-h``'s help)
and translates argparse's error messages from a table of their English
templates; a message the table does not know is shown as it came. It patches
nothing: other parsers keep argparse's English. :func:`run_command` ends a
command quietly on Ctrl-C or a closed pipe.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable
from typing import Any, NoReturn

from ..i18n import tr

# argparse's English error templates (Python 3.11 to 3.13), each with its catalog key.
ARGPARSE_ERRORS = [
    (re.compile(pattern, re.DOTALL), key)
    for pattern, key in [
        (r"argument (?P<name>.+?): (?P<message>.*)", "cli.argparse.argument"),
        (r"the following arguments are required: (?P<names>.*)", "cli.argparse.required"),
        (r"unrecognized arguments: (?P<args>.*)", "cli.argparse.unrecognized"),
        (r"invalid choice: (?P<value>.*) \(choose from (?P<choices>.*)\)", "cli.argparse.choice"),
        (r"invalid (?P<type>\w+) value: (?P<value>.*)", "cli.argparse.value"),
        (r"expected one argument", "cli.argparse.expected_one"),
        (
            r"ambiguous option: (?P<option>\S+) could match (?P<matches>.*)",
            "cli.argparse.ambiguous",
        ),
        (r"ignored explicit argument (?P<value>.*)", "cli.argparse.explicit"),
    ]
]


def translated(message: str) -> str:
    """One of argparse's error messages in the current language; any other text unchanged."""
    for pattern, key in ARGPARSE_ERRORS:
        match = pattern.fullmatch(message)
        if match:
            fields = match.groupdict()
            if "message" in fields:  # "argument --x: <a message of its own>"
                fields["message"] = translated(fields["message"])
            return tr(key, **fields)
    return message


class CourseFormatter(argparse.HelpFormatter):
    def add_usage(self, usage: Any, actions: Any, groups: Any, prefix: str | None = None) -> None:
        super().add_usage(
            usage, actions, groups, tr("cli.argparse.usage") if prefix is None else prefix
        )


class CourseParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` speaking the course's language; a usage error is one
    line on stderr and exit code 2."""

    def __init__(self, *, add_help: bool = True, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", CourseFormatter)
        # argparse would add -h with its English help text: add it here instead, in ours
        super().__init__(add_help=False, **kwargs)
        self._positionals.title = tr("cli.argparse.positionals")
        self._optionals.title = tr("cli.argparse.options")
        if add_help:
            self.add_argument("-h", "--help", action="help", help=tr("cli.argparse.help"))

    def error(self, message: str) -> NoReturn:
        self.exit(2, error_line(self.prog, translated(message)) + "\n")


def add_commands(parser: argparse.ArgumentParser, helps: dict[str, str]) -> list[Any]:
    """One subcommand per entry of ``helps`` (name: help), in a group titled in
    the course's language; returns their parsers in that order. They are named
    ``{run,demo,...}`` in usage and errors, never by the English ``dest``."""
    commands = parser.add_subparsers(
        dest="command",
        required=True,
        title=tr("cli.argparse.commands"),
        metavar="{" + ",".join(helps) + "}",
    )
    return [commands.add_parser(name, help=text) for name, text in helps.items()]


def error_line(prog: str, message: str) -> str:
    """``agentlab run：错误：...``: how every command reports an error, in one line."""
    return tr("cli.argparse.error", prog=prog, message=message)


def run_command(prog: str, command: Callable[[], int]) -> int:
    """``command()``'s exit code; Ctrl-C and a reader that went away end it quietly.

    Ctrl-C is one line on stderr and exit code 130, as shells expect; output
    piped into a reader that stopped early (``| head``) just ends, with code 1.
    """
    try:
        return command()
    except KeyboardInterrupt:  # Ctrl-C in a live demo: one sentence, not a traceback
        print(tr("cli.interrupted", prog=prog), file=sys.stderr)
        return 130
    except BrokenPipeError:  # `... | head`: the reader has what it wanted
        # stdout goes nowhere from now on, so exiting does not fail on flushing it again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
