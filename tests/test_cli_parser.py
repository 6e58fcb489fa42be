"""argparse in the course's language: what plain argparse says, translated.

Plain ``argparse.ArgumentParser`` is the reference: in English the course's
parser must say exactly what it says, and in Chinese none of its English
templates may be left.
"""

from __future__ import annotations

import argparse
import re

import pytest

from agentlab.i18n import set_language, tr
from agentlab.ops.cli_parser import CourseParser, add_commands, translated


def build(parser_class: type[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    parser = parser_class(prog="tool")
    run, _ = (
        add_commands(parser, {"run": "run it", "demo": "show it"})
        if (parser_class is CourseParser)
        else _plain_commands(parser)
    )
    run.add_argument("question")
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--mode", choices=["a", "b"])
    run.add_argument("--record")
    run.add_argument("--replay")
    run.add_argument("--stream", action="store_true")
    return parser


def _plain_commands(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    commands = parser.add_subparsers(dest="command", required=True, metavar="{run,demo}")
    return [commands.add_parser("run"), commands.add_parser("demo")]


BAD = [
    [],
    ["fly"],
    ["run"],
    ["run", "q", "--seed", "x"],
    ["run", "q", "--mode", "c"],
    ["run", "q", "--record"],
    ["run", "q", "--re", "f"],
    ["run", "q", "--stream=1"],
    ["run", "q", "--nope"],
]
"""Argument lists that hit each of argparse's error templates."""
ENGLISH_TEMPLATES = re.compile(
    r"argument |required|invalid |unrecognized|expected |ambiguous|ignored explicit|error"
)


def error_of(parser: argparse.ArgumentParser, argv: list[str], capsys) -> str:
    with pytest.raises(SystemExit) as info:
        parser.parse_args(argv)
    assert info.value.code == 2
    return capsys.readouterr().err


@pytest.fixture
def english():
    set_language("en")
    yield
    set_language("zh")


@pytest.mark.parametrize("argv", BAD, ids=" ".join)
def test_in_english_the_errors_are_argparses_own(argv, capsys, english):
    reference = error_of(build(argparse.ArgumentParser), argv, capsys).splitlines()[-1]
    assert error_of(build(CourseParser), argv, capsys) == reference + "\n"


@pytest.mark.parametrize("argv", BAD, ids=" ".join)
def test_in_chinese_no_english_template_is_left(argv, capsys):
    message = error_of(build(CourseParser), argv, capsys)
    assert message.startswith("tool") and "：错误：" in message
    assert len(message.splitlines()) == 1  # one line, no usage block
    assert not ENGLISH_TEMPLATES.search(message), message


def test_help_speaks_the_course_language(capsys):
    with pytest.raises(SystemExit):
        build(CourseParser).parse_args(["run", "--help"])
    text = capsys.readouterr().out
    assert text.startswith(tr("cli.argparse.usage"))
    for key in ("cli.argparse.positionals", "cli.argparse.options", "cli.argparse.help"):
        assert tr(key) in text
    assert "usage:" not in text and "options:" not in text and "show this help" not in text


def test_a_message_of_our_own_passes_unchanged():
    assert translated("需要一个正整数，收到的是 '0'") == "需要一个正整数，收到的是 '0'"
    inner = translated("argument --max-steps: 需要一个正整数")
    assert inner == tr("cli.argparse.argument", name="--max-steps", message="需要一个正整数")


def test_add_help_false_leaves_out_help_as_argparse_does(capsys, english):
    """``add_help`` is argparse's own keyword: False means no -h/--help at all."""
    for parser_class in (argparse.ArgumentParser, CourseParser):
        parser = parser_class(prog="tool", add_help=False)
        assert "--help" not in parser.format_help()
    reference = error_of(argparse.ArgumentParser(prog="tool", add_help=False), ["-h"], capsys)
    course = error_of(CourseParser(prog="tool", add_help=False), ["-h"], capsys)
    assert course == reference.splitlines()[-1] + "\n"
    assert "--help" in CourseParser(prog="tool", add_help=True).format_help()
