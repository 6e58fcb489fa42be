"""The repository keeps its promises: light import, same deps everywhere,
secrets out of git, and Chinese chart labels that really render."""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import sys
import tomllib
import warnings
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def requirement_names(requirements: list[str]) -> set[str]:
    return {
        r.split("[")[0].split("=")[0].split("<")[0].split(">")[0].strip().lower()
        for r in requirements
    }


def environment_yml() -> tuple[set[str], set[str]]:
    """The conda and the pip requirements environment.yml lists."""
    import yaml  # comes with jupyterlab's dependencies

    env = yaml.safe_load((REPO / "environment.yml").read_text(encoding="utf-8"))
    conda, pip = set(), set()
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            pip |= set(dep["pip"])
        else:
            conda.add(dep)
    return conda, pip


def locked_versions() -> dict[str, str]:
    return {
        name.lower().replace("_", "-"): version
        for name, _, version in (
            line.partition("==")
            for line in (REPO / "requirements.lock").read_text(encoding="utf-8").splitlines()
        )
        if version
    }


def test_environment_yml_names_the_same_packages_as_pyproject():
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = set(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        wanted |= set(extra)
    conda, pip = environment_yml()
    conda -= {"python=3.11", "pip"}
    assert requirement_names(list(conda | pip)) == requirement_names(list(wanted))


def test_environment_yml_pins_what_the_lock_pins():
    conda, pip = environment_yml()
    locked = locked_versions()
    pinned = {}
    for requirement in conda | pip:
        name, sep, version = requirement.replace("==", "=").partition("=")
        if name not in ("python", "pip"):
            assert sep, f"{requirement} is not pinned"
            pinned[name.lower().replace("_", "-")] = version
    assert pinned and all(locked.get(name) == version for name, version in pinned.items()), {
        name: (version, locked.get(name)) for name, version in pinned.items()
    }


def test_every_dependency_is_pinned_in_the_lock():
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = requirement_names(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        names |= requirement_names(extra)
    locked = {
        line.split("==")[0].lower().replace("_", "-")
        for line in (REPO / "requirements.lock").read_text(encoding="utf-8").splitlines()
        if "==" in line
    }
    assert names <= locked


def test_import_agentlab_is_light():
    code = (
        "import sys, agentlab\n"
        "print(sorted(m for m in ('pandas', 'matplotlib') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    assert out.stderr == ""


def test_env_and_venv_are_ignored_and_env_example_has_no_key():
    ignored = (REPO / ".gitignore").read_text(encoding="utf-8").split()
    assert ".env" in ignored and ".venv/" in ignored
    example = (REPO / ".env.example").read_text(encoding="utf-8")
    assert "replace-with-your-api-key" in example


def test_chinese_chart_labels_render_with_a_real_font(tmp_path):
    from matplotlib import font_manager

    from agentlab import Budget, run_agent
    from agentlab.clients import scripted
    from agentlab.course.report import chinese_font, plot_steps_by_outcome
    from agentlab.tools import sales_tools

    runs = {
        "正常完成": run_agent(
            "分析 sales.csv",
            client=scripted("honest_analyst"),
            tools=sales_tools(),
            budget=Budget(4),
        ),
        "永不停止": run_agent(
            "分析 sales.csv", client=scripted("never_stops"), tools=sales_tools(), budget=Budget(4)
        ),
    }
    png = tmp_path / "chart.png"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "Glyph ... missing from font" would fail here
        fig = plot_steps_by_outcome(runs, cap=4, save_to=png)
    assert png.stat().st_size > 10_000
    family = chinese_font()
    assert family == "Noto Sans CJK SC"
    title = fig.axes[0].title
    assert font_manager.findfont(title.get_fontproperties(), fallback_to_default=False).endswith(
        "NotoSansCJKsc-Regular.otf"
    )


@pytest.mark.parametrize(
    "name", ["Makefile", ".ci/run", "README.md", ".env.example", "environment.yml"]
)
def test_top_level_files_exist(name):
    assert (REPO / name).is_file()


def test_the_teaching_data_is_package_data_and_kept_once():
    """Every file of the package that is not Python (the data under agentlab/data/,
    the message catalogs, the display's templates) is matched by pyproject's
    package-data globs (else the wheel would silently leave it out), and there is no
    second copy of the data at the top of the repository."""
    from agentlab.tools.sales import COURSE_DATA_DIR

    package = REPO / "agentlab"
    assert COURSE_DATA_DIR.resolve() == package / "data"
    globs = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "setuptools"
    ]["package-data"]["agentlab"]
    files = [
        p
        for p in package.rglob("*")
        if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts
    ]
    assert {"data/input/sales.csv", "data/sandbox/meeting.md", "locale/zh.toml"} <= {
        p.relative_to(package).as_posix() for p in files
    }
    for path in files:
        assert any(path.relative_to(package).match(g) for g in globs), path
    assert not (REPO / "data").exists()


CHINESE_NUMERALS = {"两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}


NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_a_list_announced_as_n_things_has_n_items(notebook):
    """“先交代三件事：” followed by four bullets reads as a slip to a student; the count
    a sentence announces matches the bullets (or table rows) right after it."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    wrong = []
    for index, cell in enumerate(cells):
        if cell["cell_type"] != "markdown":
            continue
        lines = "".join(cell["source"]).splitlines()
        for at, line in enumerate(lines):
            announced = re.search(r"([两三四五六七八九])件事[^：]*：$", line)
            if not announced:
                continue
            rest = lines[at + 1 :]
            while rest and not rest[0].strip():
                rest = rest[1:]
            if rest and rest[0].startswith("- "):
                items = len(list(itertools.takewhile(lambda s: s.startswith("- "), rest)))
            elif rest and rest[0].startswith("|"):
                rows = list(itertools.takewhile(lambda s: s.startswith("|"), rest))
                items = len(rows) - 2  # the header and the |---| line
            else:
                continue
            if items != CHINESE_NUMERALS[announced.group(1)]:
                wrong.append(f"cell {index}: {announced.group(0)} then {items} items")
    assert not wrong, wrong


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_chinese_text_quotes_with_chinese_quotation_marks(notebook):
    """Chinese prose quotes with “…”; a straight "…" beside Chinese text (outside code)
    is a half-width slip, and one chapter using it while the others do not reads as
    two different hands."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    wrong = []
    for index, cell in enumerate(cells):
        if cell["cell_type"] != "markdown":
            continue
        text = re.sub(r"```.*?```", "", "".join(cell["source"]), flags=re.S)
        text = re.sub(r"`[^`]*`", "`…`", text)
        for hit in re.finditer(r'[\u4e00-\u9fff]"|"[\u4e00-\u9fff]', text):
            wrong.append(f"cell {index}: …{text[max(0, hit.start() - 8) : hit.end() + 8]}…")
    assert not wrong, wrong


def test_the_readme_shows_budget_as_it_is():
    """Both README blocks list every Budget field with its default (Budget writes them once)."""
    import ast
    import dataclasses
    import re

    from agentlab import Budget

    fields = [(f.name, f.default) for f in dataclasses.fields(Budget)]
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\nBudget\(\n(.*?)\n\)", readme, re.DOTALL)
    assert len(blocks) == 2, "one Budget block in each language"
    for block in blocks:
        shown = []
        for line in block.splitlines():
            name, value = line.split("#")[0].strip().rstrip(",").split("=")
            shown.append((name, ast.literal_eval(value)))
        assert sorted(shown) == sorted(fields), block
