"""What does one step of the loop cost, with and without an API key, now and before?

Every row runs the same scenario: the model asks for one tool call per step
(``tick``, which returns a small counter), and on the last step answers with
how many ticks it saw. Each row is timed at 20 and at 200 steps and reported
in microseconds per step: its best run, so noise from the other core does
not count.

Rows:

- ``plain loop, fake client``: the smallest loop one can write, talking to a
  Python object that hands back ready-made replies. The floor.
- ``agentlab own overhead``: ``run_agent`` (guards, registry, truncation,
  trace to a temporary folder) against the same kind of fake client, minus
  the time spent inside the fake client and the tool; streamed and not,
  with the trace file and without it (``trace_dir=False``).
- ``agentlab end to end``: ``run_agent`` with the scripted ``openai.OpenAI``
  client (the SDK's HTTP stack over an in-process transport); streamed,
  and without the trace file.
- ``seed-style loop, chat.completions.create``: the loop from the source
  articles, with the same scripted client. The SDK transforms the whole
  history on every call, so this grows with length.
- ``seed-style loop, client.post``: the same loop sending the same body
  through the SDK's ``client.post`` (what agentlab does): one scripted round
  trip per step.
- peers (smolagents, langgraph, pydantic-ai, openai-agents) when importable:
  install them with ``pip install -r benchmarks/requirements-peers.txt``.

Every row runs twice: with the scripted client's placeholder key (too short
to be a secret, so nothing is looked for) and with a real-looking key
(``sk-`` and 48 letters and digits, made up here), which the loop keeps out
of everything the run holds. The peers have no key and run once.

Goals (ratios within one run, since machines differ by 3x and more):

- P1: own overhead without a trace file at most 10 % of one scripted round
  trip at 20 steps, at most 3 % at 200, streamed and not;
- the trace file on its own: own overhead with the file minus without, per
  trace event (printed, not a goal);
- P2: end to end at most 1.15x the seed loop through ``client.post``
  (judged with the trace file, the run's default; printed without it too);
- all of it keyless and keyed;
- no slowdown: every row that runs in both trees within 10 % of the tree
  before issue 31 (:data:`BEFORE`).

That last one is measured here, in the same run: the package as it was at
:data:`BEFORE` is extracted (``git archive``) into the temporary folder once
and reused, and each tree runs in its own interpreter (a worker: this file
with ``--worker``, the tree first on ``PYTHONPATH``). The rows take turns
(see :func:`side_by_side`), and each row's runs alternate between the two
trees, so a slow spell of a shared machine falls on both.

    .venv/bin/python benchmarks/loop_overhead.py [--quick] [--before REV]
"""

from __future__ import annotations

import argparse
import functools
import gc
import io
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from openai.types.chat import ChatCompletion, ChatCompletionChunk

from agentlab import Budget, run_agent
from agentlab.clients import Conversation, ScriptedClient, call, say
from agentlab.clients.script import Turn
from agentlab.tools import Tool, ToolRegistry, ok

try:  # the peer rows and the keys live beside this script
    from benchmarks import peers
    from benchmarks.keys import KEY, PLACEHOLDER_KEY
except ImportError:  # run as a script: benchmarks/ is sys.path[0]
    import peers  # type: ignore[no-redef]
    from keys import KEY, PLACEHOLDER_KEY  # type: ignore[no-redef]

ROOT = Path(__file__).resolve().parent.parent
BEFORE = "54d7db8"
"""The tree before issue 31 (layers, the ladder, secrets in one place)."""
LENGTHS = (20, 200)
P1_SHARE = {20: 0.10, 200: 0.03}
"""Goal P1: own overhead without a trace file at most this share of one round trip."""
P2_RATIO = 1.15
"""Goal P2: end to end at most this many times the seed loop through client.post."""
SAME_SPEED = 1.10
"""No slowdown: a row's time now at most this many times its time before."""
SYSTEM = "You are a benchmark. Call tick until told to stop."
TASK = "Count the ticks."
run_clock = time.process_time
"""The clock runs are timed with: this process's CPU time. On a busy shared
machine a run of 10 ms and more is nearly always interrupted by other
processes, and wall time would count their turns; CPU time counts only this
run's work (a run here never waits: no sleeps, no network)."""


# -- the scenario ----------------------------------------------------------------


def tick() -> dict[str, Any]:
    return ok({"tick": 1})


TICK_SCHEMA = {"type": "object", "properties": {}}
TOOLS = ToolRegistry([Tool("tick", "Return one tick.", TICK_SCHEMA, tick)])


def ticker(steps: int) -> Callable[[Conversation], Turn]:
    """Call ``tick`` until ``steps - 1`` results are in, then answer from them."""

    def policy(conversation: Conversation) -> Turn:
        if conversation.request_number < steps:
            return call("tick")
        ticks = sum(r.get("data", {}).get("tick", 0) for r in conversation.tool_results())
        return say(f"I saw {ticks} ticks.")

    return policy


def answer_for(steps: int) -> str:
    return f"I saw {steps - 1} ticks."


def scripted_client(steps: int, key: str) -> ScriptedClient:
    return ScriptedClient(ticker(steps), api_key=key)


# -- a fake client: ready-made replies, no SDK HTTP stack --------------------------


def _completion(turn: dict[str, Any]) -> ChatCompletion:
    return ChatCompletion.model_validate(
        {
            "id": "fake",
            "object": "chat.completion",
            "created": 0,
            "model": "fake",
            "choices": [{"index": 0, "message": turn, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
    )


def _chunks(turn: dict[str, Any]) -> list[ChatCompletionChunk]:
    base = {"id": "fake", "object": "chat.completion.chunk", "created": 0, "model": "fake"}
    delta: dict[str, Any] = {"role": "assistant", "content": turn.get("content")}
    if turn.get("tool_calls"):
        delta["tool_calls"] = [{"index": 0, **tc} for tc in turn["tool_calls"]]
    chunks = [
        {**base, "choices": [{"index": 0, "delta": delta}]},
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        {
            **base,
            "choices": [],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        },
    ]
    return [ChatCompletionChunk.model_validate(c) for c in chunks]


class _FakeStream(list):
    """Enough of ``openai.Stream`` for the loop: iterable and a context manager."""

    def __enter__(self) -> _FakeStream:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


@functools.cache
def fake_replies(steps: int) -> dict[bool, list[Any]]:
    """The replies of a run of ``steps`` steps, not streamed and streamed,
    parsed once (the loop only reads them)."""
    replies: dict[bool, list[Any]] = {False: [], True: []}
    for step in range(1, steps + 1):
        turn: dict[str, Any] = {"role": "assistant", "content": answer_for(steps)}
        if step < steps:
            call = {"id": f"call_{step}", "type": "function"}
            call["function"] = {"name": "tick", "arguments": "{}"}
            turn = {"role": "assistant", "content": None, "tool_calls": [call]}
        replies[False].append(_completion(turn))
        replies[True].append(_chunks(turn))
    return replies


class FakeClient:
    """Answers ``client.post`` with pre-parsed replies.

    Every reply is built before the run (a fresh call id per step, as real
    services give: :func:`fake_replies`), so the time spent here is only
    handing one back. It
    carries ``api_key`` as an ``openai.OpenAI`` does: the loop reads the key
    from there.
    """

    def __init__(self, steps: int, key: str) -> None:
        self.api_key = key
        self.steps = steps
        self.requests = 0
        self.replies = fake_replies(steps)

    def post(self, path: str, *, body: dict[str, Any], stream: bool = False, **_: Any) -> Any:
        reply = self.replies[stream][self.requests]
        self.requests += 1
        return _FakeStream(reply) if stream else reply


@functools.cache
def fake_parts(steps: int, stream: bool) -> float:
    """CPU seconds the fake client and the tool take in one run, without the
    loop: every reply handed out and ``tick`` called once per tool call, best
    of 50. The own-overhead rows subtract it (about a microsecond a step)."""

    def once() -> float:
        client = FakeClient(steps, PLACEHOLDER_KEY)
        started = run_clock()
        for step in range(steps):
            client.post("/chat/completions", body={}, stream=stream)
            if step < steps - 1:
                tick()
        return run_clock() - started

    return min(once() for _ in range(50))


# -- the rows: each takes (steps, key) and returns the seconds of one checked run ---


def bare_loop(ask: Callable[[list], Any], use_tool: Callable[[Any], dict], steps: int) -> float:
    """Seconds for the smallest loop there is: ``ask`` the model with the
    history, run each tool call it names with ``use_tool``, until it answers."""
    history: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": TASK},
    ]
    started = run_clock()
    reply = ask(history)
    while reply.tool_calls:
        history.append(reply.to_dict())
        history += [
            {
                "role": "tool",
                "tool_call_id": c.id,
                "content": json.dumps(use_tool(c), ensure_ascii=False),
            }
            for c in reply.tool_calls
        ]
        reply = ask(history)
    took = run_clock() - started
    assert reply.content == answer_for(steps)
    return took


def plain_loop_fake(steps: int, key: str) -> float:
    client = FakeClient(steps, key)

    def ask(history: list) -> Any:
        return client.post("/chat/completions", body={"messages": history}).choices[0].message

    return bare_loop(ask, lambda c: tick(), steps)


def timed_run(
    client: Any,
    tools: ToolRegistry,
    steps: int,
    stream: bool,
    root: str | bool,
    on_event: Callable[[dict], None] | None = None,
) -> float:
    """Seconds for one ``run_agent`` of the scenario (checked to have answered)."""
    started = run_clock()
    result = run_agent(
        TASK,
        client=client,
        tools=tools,
        budget=Budget(max_steps=steps),
        system_prompt=SYSTEM,
        stream=stream,
        on_text=None,
        trace_dir=root,
        on_event=on_event,
    )
    took = run_clock() - started
    assert result.answer == answer_for(steps) and result.steps == steps, result.stop_reason
    return took


def agentlab_own(steps: int, key: str, stream: bool, trace_root: str | bool) -> float:
    """Seconds of run_agent's own work: total minus the fake client and the tool
    (``trace_root=False``: the trace stays in memory, no file)."""
    took = timed_run(FakeClient(steps, key), TOOLS, steps, stream, trace_root)
    return took - fake_parts(steps, stream)


def agentlab_e2e(steps: int, key: str, stream: bool, trace_root: str | bool) -> float:
    return timed_run(scripted_client(steps, key), TOOLS, steps, stream, trace_root)


def seed_loop(steps: int, key: str, send: str) -> float:
    """The source articles' loop over the scripted SDK client; ``send`` is
    "create" (``chat.completions.create``) or "post" (``client.post``)."""
    client = scripted_client(steps, key)
    schemas = TOOLS.schemas()

    def ask(history: list) -> Any:
        if send == "create":
            completion = client.chat.completions.create(model="m", messages=history, tools=schemas)
        else:
            body = {"model": "m", "messages": history, "tools": schemas}
            completion = client.post("/chat/completions", body=body, cast_to=ChatCompletion)
        return completion.choices[0].message

    return bare_loop(ask, lambda c: TOOLS.call(c.function.name, c.function.arguments), steps)


def trace_events(steps: int, key: str, stream: bool) -> int:
    """How many trace events one run of the scenario writes."""
    events: list[dict] = []
    timed_run(FakeClient(steps, key), TOOLS, steps, stream, False, events.append)
    return len(events)


PLAIN = "plain loop, fake client"
OWN = "agentlab own overhead"
OWN_STREAMED = "agentlab own overhead, streamed"
OWN_NO_FILE = "agentlab own overhead, no trace file"
OWN_STREAMED_NO_FILE = "agentlab own overhead, streamed, no trace file"
E2E = "agentlab end to end, scripted SDK client"
E2E_STREAMED = "agentlab end to end, streamed"
E2E_NO_FILE = "agentlab end to end, no trace file"
CREATE = "seed-style loop, chat.completions.create"
POST = "seed-style loop, client.post"
ROWS = [PLAIN, OWN, OWN_STREAMED, OWN_NO_FILE, OWN_STREAMED_NO_FILE, E2E, E2E_STREAMED]
ROWS += [E2E_NO_FILE, CREATE, POST]
ONLY_NOW = {CREATE}
"""Rows run in this tree only: the create() loop spends over 90 % of a step
in the SDK, and one run of 200 steps takes about ten seconds."""


def runners(trace_root: str) -> dict[str, Callable[[int, str], float]]:
    """Every row by name: ``run(steps, key)`` -> seconds of one checked run."""
    rows: dict[str, Callable[[int, str], float]] = {
        PLAIN: plain_loop_fake,
        OWN: lambda n, key: agentlab_own(n, key, False, trace_root),
        OWN_STREAMED: lambda n, key: agentlab_own(n, key, True, trace_root),
        OWN_NO_FILE: lambda n, key: agentlab_own(n, key, False, False),
        OWN_STREAMED_NO_FILE: lambda n, key: agentlab_own(n, key, True, False),
        E2E: lambda n, key: agentlab_e2e(n, key, False, trace_root),
        E2E_STREAMED: lambda n, key: agentlab_e2e(n, key, True, trace_root),
        E2E_NO_FILE: lambda n, key: agentlab_e2e(n, key, False, False),
        CREATE: lambda n, key: seed_loop(n, key, "create"),
        POST: lambda n, key: seed_loop(n, key, "post"),
    }
    for name, run in peers.available(TASK, answer_for):  # fake models: no key to carry
        rows[name] = lambda n, key, run=run: run(n)
    return rows


# -- a worker: one tree in one interpreter, running what the parent asks -----------


def serve() -> None:
    """``--worker``: answer one JSON request per line of stdin with one JSON
    value per line: the seconds of one run, or a count of trace events. A run
    that fails its check ends the worker with the traceback on stderr."""
    import agentlab

    replies, sys.stdout = sys.stdout, sys.stderr  # nothing else may reach the pipe
    with tempfile.TemporaryDirectory(prefix="agentlab-bench-") as trace_root:
        rows = runners(trace_root)
        hello = {"agentlab": agentlab.__file__, "rows": list(rows)}
        print(json.dumps(hello), file=replies, flush=True)
        for line in sys.stdin:
            ask = json.loads(line)
            # Every run starts from the same collector state: the last run's
            # garbage collected, everything alive set aside (gc.freeze), so no
            # run pays for a full collection over objects it did not make.
            gc.collect()
            gc.freeze()
            key = KEY if ask["keyed"] else PLACEHOLDER_KEY
            if "events" in ask:
                answer: float = trace_events(ask["steps"], key, ask["events"] == "streamed")
            else:
                answer = rows[ask["row"]](ask["steps"], key)
            print(json.dumps(answer), file=replies, flush=True)


class Worker:
    """A ``--worker`` process with ``root`` first on its import path. It
    starts at once; :meth:`ready` waits for it and checks which agentlab it
    imported."""

    def __init__(self, label: str, root: Path) -> None:
        self.label, self.root = label, root
        env = {**os.environ, "PYTHONPATH": str(root)}
        command = [sys.executable, str(Path(__file__).resolve()), "--worker"]
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT
        )

    def ready(self) -> Worker:
        hello = self._read()
        self.package = Path(hello["agentlab"]).parent
        self.rows = hello["rows"]
        if not self.package.is_relative_to(self.root):  # the comparison would be of one tree
            raise SystemExit(f"{self.label}: agentlab came from {self.package}, not {self.root}")
        return self

    def _read(self) -> Any:
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit(f"a worker for {self.label} stopped (its error is above)")
        return json.loads(line)

    def ask(self, **request: Any) -> Any:
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        return self._read()

    def close(self) -> None:
        self.process.stdin.close()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()


def tree_before(rev: str) -> tuple[str, Path]:
    """The package as it was at ``rev``: its commit, and a folder holding it
    (``<tmp>/agentlab-before-<commit>/agentlab``), extracted once and reused."""
    done = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--verify", f"{rev}^{{commit}}"],
        capture_output=True,
        text=True,
        check=True,
    )
    commit = done.stdout.strip()
    target = Path(tempfile.gettempdir()) / f"agentlab-before-{commit[:12]}"
    if not (target / "agentlab" / "__init__.py").is_file():
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", commit, "agentlab"], capture_output=True, check=True
        ).stdout
        partial = Path(tempfile.mkdtemp(prefix=target.name + "-", dir=target.parent))
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(partial, filter="data")
        try:
            partial.rename(target)  # whole or not at all: a half-written tree is never reused
        except OSError:  # another run got there first
            shutil.rmtree(partial)
    return commit, target


def tree_now() -> str:
    """This tree's commit, marked when the working tree differs from it."""

    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)
        return done.stdout.strip()

    # benchmarks/results/ is where `make bench` is writing this very output.
    dirty = git("status", "--porcelain", "--", "agentlab", "benchmarks/*.py")
    return git("rev-parse", "--short", "HEAD") + (" + uncommitted changes" if dirty else "")


# -- measuring ---------------------------------------------------------------------


Cell = tuple[str, int, bool, str]
"""(row, steps, keyed, tree)"""
MAX_BUDGETS = 6
"""A cell short of its runs may take this many times its time budget: the
200-step SDK rows take 0.3 s of CPU a run on a quiet machine, twice that on
a busy one, and their ratios need about ten rounds."""


def side_by_side(
    workers: dict[str, list[Worker]],
    cells: list[Cell],
    budget_s: float,
    min_runs: int,
    max_runs: int,
) -> dict[Cell, list[float]]:
    """Every run of every cell in µs/step, the cells taking turns.

    After one untimed warm-up run of every row, key and worker (lazy
    imports, first-use caches), each round runs every cell once, in the
    opposite order to the round before; a row's cells for the two trees sit
    side by side, so its runs alternate between the trees, and a tree's runs
    go to its workers in turn. A cell leaves the rounds once its runs have
    taken ``budget_s`` and it made ``min_runs`` of them, or they took
    :data:`MAX_BUDGETS` times ``budget_s``, or it made ``max_runs``: fast
    cells get many samples, the slowest a single run.
    """
    for row, steps, keyed, tree in cells:
        if steps == LENGTHS[0]:
            for worker in workers[tree]:
                worker.ask(row=row, steps=steps, keyed=keyed)
    samples: dict[Cell, list[float]] = {cell: [] for cell in cells}
    spent = dict.fromkeys(cells, 0.0)
    for round_ in range(max_runs):
        order = cells if round_ % 2 == 0 else cells[::-1]
        measured_any = False
        for cell in order:
            runs = len(samples[cell])
            done = spent[cell] >= budget_s and runs >= min_runs
            if done or spent[cell] >= MAX_BUDGETS * budget_s or runs >= max_runs:
                continue
            row, steps, keyed, tree = cell
            seconds = workers[tree][runs % len(workers[tree])].ask(
                row=row, steps=steps, keyed=keyed
            )
            spent[cell] += seconds
            samples[cell].append(seconds / steps * 1e6)
            measured_any = True
        if not measured_any:
            break
    return samples


# -- reading the figures -----------------------------------------------------------


Samples = dict[Cell, list[float]]


def per_round(runs: list[list[float]], combine: Callable[..., float]) -> float:
    """The median over the rounds of ``combine`` applied to the runs the cells
    made in that round.

    A cell runs once a round until it leaves, so the i-th runs of the cells
    were made in the same round, close together: a slow spell of the
    machine falls on all of them, and their ratio keeps what the code does.
    """
    return statistics.median(combine(*made) for made in zip(*runs, strict=False))


def ratio(a: float, b: float) -> float:
    return a / b


def goals(samples: Samples, tree: str, keyed: bool, events: dict) -> dict[str, dict[int, Any]]:
    """P1, P2, the trace file's price per event and the create() loop's
    slowness, per length, for one tree with one key."""

    def runs(row: str, n: int) -> list[float]:
        return samples[row, n, keyed, tree]

    out: dict[str, dict[int, Any]] = {"p1": {}, "p2": {}, "per_event": {}, "create": {}}
    for n in LENGTHS:
        post = runs(POST, n)
        # A round trip: the SDK and the scripted service for one step. Not streamed,
        # that is the seed loop through client.post; streamed, agentlab's streamed
        # step minus its own work (there is no seed loop for streams).
        streamed = [runs(OWN_STREAMED_NO_FILE, n), runs(E2E_STREAMED, n), runs(OWN_STREAMED, n)]
        out["p1"][n] = (
            per_round([runs(OWN_NO_FILE, n), post], ratio),
            per_round(streamed, lambda own, e2e, own_with_file: own / (e2e - own_with_file)),
        )
        out["p2"][n] = (
            per_round([runs(E2E, n), post], ratio),
            per_round([runs(E2E_NO_FILE, n), post], ratio),
        )
        out["per_event"][n] = tuple(
            per_round(
                [runs(with_file, n), runs(without, n)],
                lambda a, b, steps_per_event=n / events[n, stream]: (a - b) * steps_per_event,
            )
            for with_file, without, stream in (
                (OWN, OWN_NO_FILE, False),
                (OWN_STREAMED, OWN_STREAMED_NO_FILE, True),
            )
        )
        if (CREATE, n, keyed, tree) in samples:
            out["create"][n] = per_round([runs(CREATE, n), runs(E2E, n)], ratio)
    return out


def now_over_before(samples: Samples, row: str, n: int, keyed: bool) -> float | None:
    before = samples.get((row, n, keyed, "before"))
    return per_round([samples[row, n, keyed, "now"], before], ratio) if before else None


def met(ok: bool) -> str:
    return "met" if ok else "NOT met"


def print_table(samples: Samples, rows: list[str], keyed: bool) -> None:
    """Each cell's best run in µs/step, and now/before per round."""
    heads = [f"{tree}, {n}" for tree in ("now", "before") for n in LENGTHS]
    heads += [f"now/before, {n}" for n in LENGTHS]
    width = max(len(row) for row in rows)
    print(f"| {'µs/step at 20 and 200 steps':<{width}} | " + " | ".join(heads) + " |")
    print(f"|{'-' * (width + 2)}|" + "|".join("-" * (len(h) + 2) for h in heads) + "|")
    for row in rows:
        text = []
        for tree in ("now", "before"):
            for n in LENGTHS:
                runs = samples.get((row, n, keyed, tree))
                text.append(f"{min(runs):,.0f}" if runs else "-")
        for n in LENGTHS:
            change = now_over_before(samples, row, n, keyed)
            text.append(f"{change:.2f}x" if change is not None else "-")
        padded = [t.rjust(len(h)) for t, h in zip(text, heads, strict=True)]
        print(f"| {row:<{width}} | " + " | ".join(padded) + " |")


def print_goals(samples: Samples, keyed: bool, events: dict) -> None:
    now = goals(samples, "now", keyed, events["now", keyed])
    before = goals(samples, "before", keyed, events["before", keyed])
    for n in LENGTHS:
        (plain, streamed), (was_plain, was_streamed) = now["p1"][n], before["p1"][n]
        print(
            f"  P1 own overhead without a trace file, {n} steps (<= {P1_SHARE[n]:.0%} of a round "
            f"trip): {plain:.1%}, streamed {streamed:.1%}: "
            f"{met(max(plain, streamed) <= P1_SHARE[n])}"
            f"   (before: {was_plain:.1%}, streamed {was_streamed:.1%})"
        )
    for n in LENGTHS:
        (with_file, no_file), (was_with, was_no) = now["p2"][n], before["p2"][n]
        print(
            f"  P2 end to end over the client.post loop, {n} steps (<= {P2_RATIO}x): "
            f"{with_file:.3f}x: {met(with_file <= P2_RATIO)}; without the trace file "
            f"{no_file:.3f}x: {met(no_file <= P2_RATIO)}   (before: {was_with:.3f}x; {was_no:.3f}x)"
        )
    for n in LENGTHS:
        (plain, streamed), (was_plain, was_streamed) = now["per_event"][n], before["per_event"][n]
        count = events["now", keyed][n, False], events["now", keyed][n, True]
        print(
            f"  the trace file (not a goal), {n} steps: {plain:.1f} µs per event, streamed "
            f"{streamed:.1f} ({count[0]} and {count[1]} events a run)"
            f"   (before: {was_plain:.1f}, {was_streamed:.1f})"
        )
    if now["create"]:
        slower = ", ".join(f"{now['create'][n]:.1f}x at {n} steps" for n in now["create"])
        print(f"  the create() loop is slower than agentlab end to end: {slower}")


def print_same_speed(samples: Samples, rows: list[str], keyed: bool) -> bool:
    """Say whether every row of both trees (but the control) is within
    :data:`SAME_SPEED` of before; the plain loop is the control."""
    slower = []
    for row in rows:
        for n in LENGTHS:
            change = now_over_before(samples, row, n, keyed)
            if row != PLAIN and change is not None and change > SAME_SPEED:
                slower.append(f"{row} at {n} steps ({change:.2f}x)")
    control = ", ".join(f"{now_over_before(samples, PLAIN, n, keyed):.2f}x" for n in LENGTHS)
    print(
        f"  no slowdown (every row run in both trees, now <= {SAME_SPEED}x before): "
        f"{met(not slower)}" + (f": {'; '.join(slower)}" if slower else "")
    )
    print(
        f"  control: the plain loop is the same code in both trees, now/before {control} "
        "(how far from 1.00 a ratio lands with no change in the code)"
    )
    return not slower


ROUND_ORDER = [POST, E2E, E2E_NO_FILE, E2E_STREAMED, OWN_STREAMED, OWN_STREAMED_NO_FILE]
ROUND_ORDER += [OWN_NO_FILE, OWN, PLAIN, CREATE]
"""The rows in the order a round runs them: rows read together side by side."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs, no create() row")
    parser.add_argument("--before", default=BEFORE, help=f"the tree to compare with ({BEFORE})")
    parser.add_argument("--processes", type=int, default=2, help="interpreters per tree (2)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        serve()
        return
    started = time.perf_counter()
    budget_s, min_runs, max_runs = (0.25, 3, 20) if args.quick else (0.5, 10, 200)
    commit, old_root = tree_before(args.before)
    roots = {"now": ROOT, "before": old_root}
    workers = {
        tree: [Worker(tree, root) for _ in range(args.processes)] for tree, root in roots.items()
    }
    everyone = [worker for group in workers.values() for worker in group]
    try:
        for worker in everyone:
            worker.ready()
        now, before = workers["now"][0], workers["before"][0]
        rows = [row for row in now.rows if not (args.quick and row == CREATE)]
        in_turn = sorted(rows, key=lambda r: ROUND_ORDER.index(r) if r in ROWS else len(ROWS))
        cells = [
            (row, n, keyed, tree)
            for n in LENGTHS
            for keyed in (False, True)
            for row in in_turn
            if keyed is False or row in ROWS  # the peers have no key
            for tree in ("now", "before")
            if tree == "now" or (row in ROWS and row not in ONLY_NOW)
        ]
        events = {
            (tree, keyed): {
                (n, streamed): workers[tree][0].ask(
                    events="streamed" if streamed else "plain", steps=n, keyed=keyed
                )
                for n in LENGTHS
                for streamed in (False, True)
            }
            for tree in workers
            for keyed in (False, True)
        }
        print(
            f"date: {datetime.now():%Y-%m-%d %H:%M}  machine: {platform.machine()}, "
            f"{os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}; "
            f"load average {os.getloadavg()[0]:.2f} at the start"
        )
        print(
            f"measured in this run, side by side: now = this tree ({tree_now()}; agentlab from "
            f"{now.package}) and before = {commit[:7]} ({args.before}; agentlab from "
            f"{before.package}), {args.processes} interpreters each"
        )
        print(
            "scenario: one tool call per step, answer on the last; runs timed in CPU time (so "
            "other processes' turns on a busy machine do not count); after a warm-up the cells "
            f"take turns, each until its runs took {budget_s:.2f} s and it made {min_runs} "
            f"(at most {MAX_BUDGETS * budget_s:.2f} s, {max_runs} runs)",
            flush=True,
        )
        samples = side_by_side(workers, cells, budget_s, min_runs, max_runs)
    finally:
        for worker in everyone:
            worker.close()
    for n in LENGTHS:
        counts = [len(samples[cell]) for cell in cells if cell[1] == n]
        print(f"runs per cell at {n} steps: {min(counts)} to {max(counts)}")
    print(
        "tables: each cell's best run; every ratio (now/before, P1, P2, per event): the median "
        "over the rounds of the ratio of the runs made in that round"
    )
    same_speed = {}
    for keyed in (False, True):
        print(
            "\nwith a real-looking key ('sk-' and 48 letters and digits, made up):"
            if keyed
            else f"\nkeyless (the scripted client's placeholder {PLACEHOLDER_KEY!r}):"
        )
        shown = [row for row in rows if keyed is False or row in ROWS]
        print_table(samples, shown, keyed)
        print()
        print_goals(samples, keyed, events)
        same_speed[keyed] = print_same_speed(samples, shown, keyed)
    missing = peers.missing()
    if missing:
        print(f"\n(peers not installed: {', '.join(missing)})")
    print(
        f"\nno slowdown against {commit[:7]}: keyless {met(same_speed[False])}, keyed "
        f"{met(same_speed[True])}; load average {os.getloadavg()[0]:.2f} at the end; "
        f"took {time.perf_counter() - started:.0f} s"
    )


if __name__ == "__main__":
    main()
