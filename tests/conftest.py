"""Shared fixtures: a private copy of the teaching data for every test."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SEED_QUESTION = "分析 data/input/sales.csv，告诉我销售额最高的类别、各类别销售额和总销售额。"


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """A copy of the repository's data/ folder that a test may change freely."""
    copy = tmp_path / "data"
    shutil.copytree(REPO / "data", copy)
    return copy


def write_csv(data_dir: Path, name: str, text: str, encoding: str = "utf-8") -> Path:
    path = data_dir / "input" / name
    path.write_text(text, encoding=encoding)
    return path
