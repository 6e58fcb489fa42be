"""Re-run notebooks and store only the outputs that really changed (``make notebooks``).

    python tests/refresh_notebooks.py NOTEBOOK...

Each notebook is executed afresh in its own folder, keyless (the caller sets
the environment, as the Makefile does). Then, cell by cell, a new output that
equals the stored one once nbval's sanitizer has masked what truly varies
(``tests/nbval_sanitize.cfg``: object addresses, timings, positions) is not
written: the stored one stays. Pictures are not compared (nbval does not
compare them either, and a timing chart differs on every run): after a change
that should redraw a chart, run with ``--all`` to store every fresh output.
So a change's notebook diff shows only the cells whose outputs changed; a
notebook in which nothing changed is not rewritten at all. Prints one line per
notebook saying how many cells changed.
"""

from __future__ import annotations

import configparser
import json
import re
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

SANITIZE = Path(__file__).with_name("nbval_sanitize.cfg")


def maskers() -> list[tuple[re.Pattern[str], str]]:
    config = configparser.ConfigParser(interpolation=None)
    config.read(SANITIZE, encoding="utf-8")
    return [(re.compile(config[s]["regex"]), config[s]["replace"]) for s in config.sections()]


def masked(outputs: list, rules: list[tuple[re.Pattern[str], str]]) -> str:
    """The outputs as nbval compares them: no execution counts, varying parts masked."""

    def mask(value: object) -> object:  # images are not compared, as nbval does not
        if isinstance(value, str):
            for pattern, replacement in rules:
                value = pattern.sub(replacement, value)
            return value
        if isinstance(value, list):
            return [mask(v) for v in value]
        if isinstance(value, dict):
            skipped = {"execution_count", "image/png", "image/jpeg"}
            return {k: mask(v) for k, v in value.items() if k not in skipped}
        return value

    # a stored text may be split into lines: join them, as nbval does
    joined = [json.loads(json.dumps(o)) for o in outputs]
    for output in joined:
        for bundle in (output, output.get("data", {})):
            for key, value in bundle.items():
                if isinstance(value, list) and all(isinstance(v, str) for v in value):
                    bundle[key] = "".join(value)
    return json.dumps(mask(joined), sort_keys=True, ensure_ascii=False)


def coalesced(outputs: list) -> list:
    """Consecutive stream outputs of one stream as one (as nbval and Jupyter show them)."""
    merged: list = []  # new dicts where streams are joined: the outputs are left as they are
    for output in outputs:
        previous = merged[-1] if merged else None
        if (
            output.get("output_type") == "stream"
            and previous is not None
            and previous.get("output_type") == "stream"
            and previous["name"] == output["name"]
        ):
            merged[-1] = {**previous, "text": "".join(previous["text"]) + "".join(output["text"])}
        else:
            merged.append(output)
    return merged


def refresh(path: Path, rules: list[tuple[re.Pattern[str], str]], every: bool = False) -> int:
    """Execute ``path`` and keep what did not change; the number of cells that did."""
    stored = nbformat.read(path, as_version=4)
    fresh = nbformat.read(path, as_version=4)
    NotebookClient(fresh, timeout=600, resources={"metadata": {"path": str(path.parent)}}).execute()
    changed = keep_changed(stored, fresh, rules, every)
    if changed:
        nbformat.write(stored, path)
    return changed


def keep_changed(stored, fresh, rules: list[tuple[re.Pattern[str], str]], every: bool) -> int:
    """Copy into ``stored`` the outputs of ``fresh`` that changed; the number of cells.
    Everything else of ``stored`` stays, its cells' metadata too (a folded cell stays folded)."""
    changed = 0
    for old, new in zip(stored.cells, fresh.cells, strict=True):
        if old.cell_type != "code":
            continue
        never_run = old.execution_count is None  # nbval would compare nothing for it
        if (
            not every
            and not never_run
            and masked(coalesced(old.outputs), rules) == masked(coalesced(new.outputs), rules)
        ):
            continue
        old.outputs, old.execution_count = new.outputs, new.execution_count
        changed += 1
    return changed


def main(arguments: list[str]) -> int:
    rules, every = maskers(), "--all" in arguments
    for name in (a for a in arguments if a != "--all"):
        changed = refresh(Path(name), rules, every)
        print(f"{name}: {changed} cell(s) with new outputs", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
