"""What does the agent protocol cost per decision?

    python benchmarks/bench_agent.py [--games 20] [--strategy simple] [--repeats 3]

Seat 0's transcript of real games (``oklasim.agent.transcript``: every
event and decision request a referee would send it) is played three ways,
and the time is divided by the number of decision requests:

* ``kernel``: the strategy's kernel alone, called on the seat's view at each
  decision (what the engine itself pays);
* ``in-process``: ``Agent.handle_line`` on every line (JSON decoding, view
  updates, checks, the kernel, JSON encoding);
* ``process``: an ``oklasim agent`` process over pipes, the referee writing
  each line and reading each answer (the full round trip a referee pays);
* ``echo``: the same exchange with a bare Python process that reads each
  line and answers each request with a fixed line: what the operating
  system and Python's pipes cost by themselves on this machine.

The protocol's overhead per decision is the difference from ``kernel``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

from common import machine_load

from oklasim.agent import Agent
from oklasim.agent.transcript import transcript
from oklasim.game.rules import Rules
from oklasim.strategies.registry import resolve


def in_process(lines: list[str], strategy: str) -> float:
    agent = Agent(Rules(), resolve(strategy))
    started = time.perf_counter()
    for line in lines:
        agent.handle_line(line)
    return time.perf_counter() - started


def kernel_only(lines: list[str], strategy: str) -> float:
    """The kernel calls alone: views captured at each decision, then timed."""
    agent = Agent(Rules(), resolve(strategy))
    seat = agent.seat
    kinds = {"take_upcard": 0, "draw": 1, "discard": 3}
    calls = []
    for line in lines:
        message = json.loads(line)
        if message["type"] == "decide" and message["decision"] in kinds:
            calls.append((kinds[message["decision"]], seat.view.copy()))
        agent.handle(message)
    started = time.perf_counter()
    for kind, view in calls:
        seat.strategy.decide(kind, view, seat.params)
    return time.perf_counter() - started


ECHO = """
import sys
print("hello", flush=True)
for line in iter(sys.stdin.readline, ""):
    if '"decide"' in line:
        sys.stdout.write('{"type": "answer"}\\n')
        sys.stdout.flush()
    elif '"quit"' in line:
        break
"""


def over_pipes(lines: list[str], strategy: str) -> float:
    return exchange([sys.executable, "-m", "oklasim.cli", "agent", "--strategy", strategy], lines)


def echo(lines: list[str], strategy: str) -> float:
    return exchange([sys.executable, "-c", ECHO], lines)


def exchange(command: list[str], lines: list[str]) -> float:
    agent = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    try:
        agent.stdout.readline()  # hello: the start-up is not part of a decision
        started = time.perf_counter()
        for line in lines:
            agent.stdin.write(line + "\n")
            if '"decide"' in line:
                agent.stdin.flush()
                agent.stdout.readline()
        seconds = time.perf_counter() - started
        agent.stdin.write('{"type": "quit"}\n')
        agent.stdin.flush()
    finally:
        agent.stdin.close()
        agent.wait(timeout=30)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--strategy", default="simple")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    lines = [json.dumps(m) for m, _ in transcript(Rules(), [args.strategy, "simple"], 1, args.games)]
    decisions = sum('"decide"' in line for line in lines)
    print(f"{args.games} games of {args.strategy} against simple: {len(lines)} lines, {decisions} decisions")
    print(machine_load())
    results = {}
    for name, run in (("kernel", kernel_only), ("in-process", in_process), ("process", over_pipes), ("echo", echo)):
        run(lines, args.strategy)  # warm-up: compiled kernels loaded, caches filled
        seconds = statistics.median(run(lines, args.strategy) for _ in range(args.repeats))
        results[name] = seconds / decisions * 1e6
        print(f"{name:<11} {results[name]:8.1f} µs per decision")
    print(f"overhead   {results['in-process'] - results['kernel']:8.1f} µs per decision in-process, "
          f"{results['process'] - results['kernel']:.1f} µs with the pipe round trip, "
          f"{results['process'] - results['echo']:.1f} µs beyond a bare echo process")


if __name__ == "__main__":
    main()
