"""oklasim inside the EAAI referee: our Java adapter (interop/eaai) plays the unmodified GinRummyGame.play().

Compiles the adapter with the referee's GPL sources (../shared/peers/gin-rummy-eaai, never copied into the
project, or OKLASIM_EAAI_SOURCES) into a temporary folder; skipped when javac or the sources are missing.
The referee's games are not reproducible (its random generators are unseeded), so the agreement with
oklasim's engine is checked at the 99.9% level while the figures shown are 95% intervals.
"""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from processes import wait_for

from oklasim.analysis.match import match
from oklasim.analysis.stats import proportion
from oklasim.game.rules import Rules

REPO = Path(__file__).resolve().parent.parent
SOURCES = Path(os.environ.get("OKLASIM_EAAI_SOURCES", REPO.parent / "shared" / "peers" / "gin-rummy-eaai" / "ginrummy"))
ADAPTER = REPO / "interop" / "eaai" / "oklasim" / "eaai"
JAVA_GAMES = 300
ENGINE_GAMES = 10_000

pytestmark = pytest.mark.skipif(
    shutil.which("javac") is None or shutil.which("java") is None or not (SOURCES / "GinRummyGame.java").exists(),
    reason="needs javac/java and the EAAI referee sources (../shared/peers/gin-rummy-eaai)",
)


def agent_command() -> str:
    script = Path(sys.executable).parent / "oklasim"
    return str(script) if script.exists() else f"{sys.executable} -m oklasim.cli"


@pytest.fixture(scope="module")
def build(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("eaai")
    sources = sorted(map(str, SOURCES.glob("*.java"))) + sorted(map(str, ADAPTER.glob("*.java")))
    done = subprocess.run(["javac", "-nowarn", "-d", str(out), *sources], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return out


def java(build: Path, games: int, strategy: str, seed: int, **kwargs) -> subprocess.Popen:
    command = ["java", f"-Doklasim.command={agent_command()}", f"-Doklasim.seed={seed}", "-cp", str(build),
               "oklasim.eaai.OklasimMatch", str(games), strategy]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)


def agents_with_seed(seed: int) -> list[int]:
    """Process ids of the agents started with this (unique) seed, found by reading /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"agent" in argv and str(seed).encode() in argv:
                found.append(int(entry.name))
    return found


@pytest.mark.slow
def test_simple_in_the_eaai_referee_wins_as_in_our_engine(build):
    seed = random.randrange(10**9, 2 * 10**9)
    process = java(build, JAVA_GAMES, "simple", seed)
    out, err = process.communicate(timeout=600)
    assert process.returncode == 0, f"seed {seed}: {err}"
    result = json.loads(out)
    assert result["games"] == JAVA_GAMES and result["forfeits"] == 0, f"seed {seed}: {result}"
    assert agents_with_seed(seed) == []  # the agent ended with the Java side
    theirs = proportion(result["wins"], JAVA_GAMES)
    ours = match("simple", "eaai:original", rules=Rules.preset("eaai"), games=ENGINE_GAMES, seed=13).a.games_won
    spread = math.sqrt(theirs.mean * (1 - theirs.mean) / JAVA_GAMES + ours.mean * (1 - ours.mean) / ours.n)
    assert abs(theirs.mean - ours.mean) <= 3.29 * spread, (
        f"seed {seed}: EAAI referee {theirs.mean:.3f} [{theirs.low:.3f}, {theirs.high:.3f}] vs oklasim engine "
        f"{ours.mean:.3f} [{ours.low:.3f}, {ours.high:.3f}]"
    )


@pytest.mark.parametrize("strategy", ["greedy", "eaai", "threshold"])
def test_other_strategies_play_without_forfeits(build, strategy):
    process = java(build, 20, strategy, 1)
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    assert json.loads(out)["forfeits"] == 0


def test_unknown_strategy_is_one_clear_error(build):
    process = java(build, 1, "nonesuch", 2)
    _, err = process.communicate(timeout=120)
    assert process.returncode != 0
    assert "oklasim agent refused strategy: unknown strategy 'nonesuch'" in err


def writes(pid: int) -> int:
    """The write calls process ``pid`` has made (from /proc); 0 once it is gone."""
    try:
        io = Path(f"/proc/{pid}/io").read_text()
    except OSError:
        return 0
    return next(int(line.split()[1]) for line in io.splitlines() if line.startswith("syscw:"))


def test_agent_ends_when_the_referee_is_killed(build):
    """Killed mid-game: once the agent has answered the referee's first decisions. Without bytecode to cache, the
    agent writes nothing before its hello, and after it only its answers (and on a first run the kernels it
    compiles), one write each. The timeouts are safety nets: a slow machine only waits longer."""
    seed = random.randrange(2 * 10**9, 3 * 10**9)
    process = java(build, 100_000, "simple", seed, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert wait_for(lambda: agents_with_seed(seed), 300), "the agent never started"
    (agent,) = agents_with_seed(seed)
    assert wait_for(lambda: writes(agent) > 1 + 10, 900), "the agent never answered 10 decisions"
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=60)
    assert wait_for(lambda: not agents_with_seed(seed), 300), "the agent outlived the referee"
