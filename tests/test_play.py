"""``oklasim play`` driven through a pseudo-terminal, as a person would, plus the table it runs on."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

pexpect = pytest.importorskip("pexpect")

from oklasim.agent import Agent  # noqa: E402
from oklasim.analysis.match import match  # noqa: E402
from oklasim.analysis.stats import proportion  # noqa: E402
from oklasim.game.rules import Rules  # noqa: E402
from oklasim.strategies.registry import resolve  # noqa: E402
from oklasim.table.referee import AgentSeat, Table  # noqa: E402

OKLASIM = [sys.executable, "-m", "oklasim.cli"]
PROMPTS = [
    r"take the upcard \S+\? \[t\]ake / \[p\]ass > ",
    r"the wall: .* > ",
    r"draw: \[p\]ile \(\S+\) / \[s\]tock > ",
    r"1-\d+ > ",
    r"discard a card, or 'knock CARD' > ",
    r"\*\*\* game over: (.*) \*\*\*",
]


def start(*args, timeout=60):
    child = pexpect.spawn(OKLASIM[0], OKLASIM[1:] + ["play", *args], encoding="utf-8", timeout=timeout)
    child.delaybeforesend = None  # a person types slower than this, but the program must not care
    return child


def turn_move(screen: str) -> str:
    """A plain player's move after the draw: knock when offered, else throw the first deadwood card."""
    knock = re.findall(r"you may knock: discarding (\S+)", screen)
    if knock:
        return f"knock {knock[-1]}"
    hand = re.findall(r"your hand (.*?)   deadwood", screen)[-1]
    loose = re.sub(r"\[[^\]]*\]", "", hand).split()
    return loose[0] if loose else re.findall(r"\b[A2-9TJQK][scdh]\b", hand)[-1]


def play_on(child, moves: int | None = None, on_turn=None) -> str | None:
    """Answer prompts like a plain player until the game ends (returns its last line) or ``moves`` are made."""
    made = 0
    while moves is None or made < moves:
        which = child.expect(PROMPTS)
        if which == 5:
            return child.match.group(0)
        if which == 0:
            child.sendline("p")
        elif which == 1:
            child.sendline("n")
        elif which == 2:
            child.sendline("s")
        elif which == 3:
            child.sendline("1")
        else:
            if on_turn is not None:
                on_turn(child)
            child.sendline(turn_move(child.before))
        made += 1
    return None


def finish(child) -> int:
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus


def test_a_person_plays_a_whole_game_and_illegal_moves_are_refused(tmp_path):
    child = start("--against", "greedy", "--seed", "5")
    refused = []

    def try_bad_moves(child):
        if refused:
            return
        screen = child.before
        hand = re.findall(r"your hand (.*?)   deadwood", screen)[-1]
        assert re.search(r"knock limit \d+|gin only", screen) and "pile" in screen and "you 0" in screen
        child.sendline("Zz")
        child.expect("unknown card 'Zz'")
        held = set(re.findall(r"\b[A2-9TJQK][scdh]\b", hand))
        missing = next(c for c in ("As", "2c", "Kd", "Qh", "7s") if c not in held)
        child.sendline(missing)
        child.expect(f"you do not hold {missing}")
        if "you may knock" not in screen:
            child.sendline(f"knock {sorted(held)[0]}")
            child.expect("you cannot knock discarding")
        child.sendline("help")
        child.expect("moves: at the upcard offer")
        child.expect("discard a card, or 'knock CARD' > ")
        child.before = screen  # the move is chosen from the hand shown before the refusals
        refused.append(True)

    last = play_on(child, on_turn=try_bad_moves)
    assert refused and last is not None and re.search(r"totals you \d+, greedy \d+", last)
    assert finish(child) == 0


def test_a_saved_game_resumes_where_it_stopped(tmp_path):
    whole = start("--seed", "21")
    ending = play_on(whole)
    assert finish(whole) == 0
    save = tmp_path / "game.json"
    first = start("--seed", "21", "--save", str(save))
    play_on(first, moves=25)
    first.expect(PROMPTS[:5])
    first.sendline("quit")
    first.expect("the game is saved in")
    assert finish(first) == 0
    assert len(json.loads(save.read_text())["moves"]) == 25
    second = start("--resume", str(save))
    second.expect("25 moves replayed")
    assert play_on(second) == ending  # the same game as the one played without a break
    assert finish(second) == 0
    again = subprocess.run(OKLASIM + ["play", "--resume", str(save)], capture_output=True, text=True, timeout=60)
    assert again.returncode == 1 and "is over" in again.stderr


def test_coach_shows_the_advice_at_knock_decisions():
    child = start("--seed", "3", "--coach", timeout=120)
    seen = []

    def look(child):
        if "you may knock" in child.before and not seen:
            assert "coach |" in child.before and "recommendation:" in child.before
            seen.append(True)

    while not seen:
        assert play_on(child, moves=1, on_turn=look) is None, "the game ended with no knock decision"
    child.sendline("quit")
    assert finish(child) == 0


def test_interrupted_and_bad_starts_are_one_line():
    child = start("--seed", "1")
    child.expect(PROMPTS[:5])
    child.sendeof()
    child.expect("game stopped at the end of the input")
    assert finish(child) == 1
    child = start("--seed", "1")
    child.expect(PROMPTS[:5])
    child.sendintr()  # Ctrl-C: as every command, 130
    child.expect("Error: game interrupted")
    assert finish(child) == 130
    for args, words in [(["--against", "nonesuch"], "unknown strategy"), (["--rules", "nope"], "neither a preset")]:
        done = subprocess.run(OKLASIM + ["play", *args], capture_output=True, text=True, timeout=60)
        assert done.returncode == 1 and words in done.stderr and "Traceback" not in done.stderr


def test_the_table_scores_like_the_engine():
    """Bots on the Python table win as often as in the engine (the table referees the person's games)."""
    rules = Rules()
    wins = 0
    games = 200
    for g in range(games):
        seats = [AgentSeat(Agent(rules, resolve(name), g)) for name in ("simple", "greedy")]
        wins += Table(rules, seats, seed=g).play_game()["winner"] == 0
    table = proportion(wins, games)
    engine = match("simple", "greedy", rules=rules, games=4000, seed=2).a.games_won
    assert engine.low - 0.1 < table.mean < engine.high + 0.1, (table, engine)


@pytest.mark.parametrize("preset", ["openspiel", "pagat", "eaai", "north_american"])
def test_the_table_plays_every_preset(preset):
    """Bots finish games under every preset's rules (the wall's last chance, ties, spade doubling, bonuses)."""
    rules = Rules.preset(preset)
    for g in range(30):
        seats = [AgentSeat(Agent(rules, resolve(name), g)) for name in ("greedy", "simple")]
        result = Table(rules, seats, seed=g).play_game()
        if result["winner"] is None:  # only a void or tied single hand has no winner
            assert rules.single_hand and result["scores"][0] == result["scores"][1]
            continue
        assert rules.single_hand or max(result["scores"]) >= rules.target_score
        assert result["totals"][result["winner"]] >= result["scores"][result["winner"]]
