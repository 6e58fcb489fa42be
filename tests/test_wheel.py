"""The wheel works outside the repository, as a student would use it.

Builds the wheel from a copy of the package's sources, installs it with the
pinned versions of ``requirements.lock`` (used as constraints) into a new
virtual environment, copies ``notebooks/`` to a folder outside the
repository and runs every chapter there in that environment's kernel. Then:
no cell failed or wrote to stderr, ``agentlab`` came from the wheel, traces
landed beside the notebooks and sandbox copies in the temporary folder, and
nothing was written inside the installed package. The CLI and ``agentlab
doctor`` are run from the wheel too.

Slow (a venv and an install): ``make wheel-test`` runs it, and CI runs
that; ``make test`` skips it. It prints how long each phase took.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from .conftest import REPO

pytestmark = pytest.mark.skipif(
    os.environ.get("AGENTLAB_WHEEL_TEST") != "1", reason="slow: run by `make wheel-test`"
)
SOURCES = ("pyproject.toml", "README.md", "agentlab")
NOT_SOURCES = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc")


def timed(label: str, command: list[str], **options) -> subprocess.CompletedProcess:
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False, **options)
    print(f"\n[wheel-test] {label}: {time.perf_counter() - started:.1f} s", flush=True)
    assert done.returncode == 0, f"{label} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {
        p.relative_to(folder).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in folder.rglob("*")
    }


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> dict:
    """The built wheel, a clean venv holding it, and a student's environment."""
    root = tmp_path_factory.mktemp("wheel-world")
    assert not root.resolve().is_relative_to(REPO)
    source = root / "source"
    source.mkdir()
    for name in SOURCES:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, source / name, ignore=NOT_SOURCES)
        else:
            shutil.copy2(REPO / name, source / name)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    timed(
        "build the wheel",
        [
            *pip,
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(root / "dist"),
            str(source),
        ],
    )
    (wheel,) = (root / "dist").glob("agentlab-*.whl")

    venv = root / "venv"
    timed("create the venv", [sys.executable, "-m", "venv", str(venv)])
    python = str(venv / "bin" / "python")
    home = root / "home"
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("AGENTLAB_RUNS_DIR", "PYTHONPATH", "VIRTUAL_ENV") and not k.endswith("_KEY")
    }
    env.update(
        PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
        AGENTLAB_OFFLINE="1",
        # A student's machine: the user's Jupyter, IPython and matplotlib
        # settings are not read, and temporary files land where we can look.
        JUPYTER_CONFIG_DIR=str(home / "jupyter-config"),
        JUPYTER_DATA_DIR=str(home / "jupyter-data"),
        IPYTHONDIR=str(home / "ipython"),
        MPLCONFIGDIR=str(home / "matplotlib"),
        TMPDIR=str(home / "tmp"),
    )
    (home / "tmp").mkdir(parents=True)
    timed(
        "install the wheel with the lock's versions",
        [
            python,
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            "-c",
            str(REPO / "requirements.lock"),
            str(wheel),
            "ipykernel",
            "nbclient",
        ],
        env=env,
    )
    # As `make` does: build matplotlib's font cache once, at install time.
    timed("build the font cache", [python, "-c", "import matplotlib.font_manager"], env=env)
    site = Path(
        timed(
            "find site-packages",
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            env=env,
        ).stdout.strip()  # noqa: E501
    )
    return {
        "root": root,
        "wheel": wheel,
        "venv": venv,
        "python": python,
        "env": env,
        "home": home,
        "package": site / "agentlab",
    }


def test_the_wheel_holds_the_teaching_data(world):
    names = zipfile.ZipFile(world["wheel"]).namelist()
    assert "agentlab/data/input/sales.csv" in names
    assert "agentlab/data/sandbox/meeting.md" in names
    assert {"agentlab/course/templates/run.html", "agentlab/course/templates/run.css"} <= set(names)
    assert not any(n.startswith(("tests/", "notebooks/", "data/")) for n in names)
    assert (world["package"] / "data" / "input" / "sales.csv").is_file()


def test_every_notebook_runs_outside_the_repository(world):
    student = world["root"] / "student"
    shutil.copytree(REPO / "notebooks", student, ignore=shutil.ignore_patterns("runs", ".ipy*"))
    before = snapshot(world["package"])
    done = timed(
        "run every notebook",
        [world["python"], str(REPO / "tests" / "run_notebooks.py"), str(student)],
        env=world["env"],
        cwd=student,
    )
    report = json.loads(done.stdout)
    assert sorted(report) == sorted(p.name for p in (REPO / "notebooks").glob("*.ipynb"))
    for name, seen in report.items():
        print(f"[wheel-test]   {name}: {seen['seconds']} s", flush=True)
        assert seen["error"] is None, f"{name}: {seen['error']}"
        assert seen["stderr_cells"] == [], name
        prefix, module = seen["where"]
        assert Path(prefix) == world["venv"], name
        assert Path(module).is_relative_to(world["package"]), name
    assert snapshot(world["package"]) == before, "something was written inside the package"
    traces = list((student / "runs").glob("*/trace.jsonl"))
    assert traces, "traces go to ./runs beside the notebooks"
    # Chapter 01 writes its to-do list with a file tool: into a sandbox copy in the
    # temp folder, which goes when the kernel exits; nowhere else.
    events = [
        json.loads(line) for t in traces for line in t.read_text(encoding="utf-8").splitlines()
    ]
    wrote = [e for e in events if e.get("tool") == "write_text" and e.get("status") == "ok"]
    assert wrote, "no file tool wrote anything"
    assert not list(student.rglob("todo-list.md")) and not list(world["home"].rglob("todo-list.md"))
    assert not list((world["home"] / "tmp").glob("agentlab-sandbox-*")), (
        "sandbox copies left behind"
    )


def test_the_cli_and_doctor_work_from_the_wheel(world, tmp_path):
    question = "分析 data/input/sales.csv，哪个类别销售额最高？"
    agentlab = str(world["venv"] / "bin" / "agentlab")
    before = snapshot(world["package"])
    done = timed(
        "agentlab run",
        [agentlab, "run", question, "--scripted", "honest_analyst"],
        env=world["env"],
        cwd=tmp_path,
    )
    result = json.loads(done.stdout)
    assert result["status"] == "completed"
    assert "显示器" in result["summary"]["answer"] and "9692" in result["summary"]["answer"]
    doctor = timed(
        "agentlab doctor",
        [agentlab, "doctor"],
        env={**world["env"], "AGENTLAB_LANG": "en"},
        cwd=tmp_path,
    )
    # No checkout here: checked against the dependencies the wheel declares.
    assert "dependencies agentlab declares are installed" in doctor.stdout, doctor.stdout
    assert "Noto Sans CJK SC" in doctor.stdout
    assert snapshot(world["package"]) == before
