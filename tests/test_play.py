"""``oklasim play`` driven through a pseudo-terminal, as a person would, plus the table it runs on."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

pexpect = pytest.importorskip("pexpect")

from oklasim.game.rules import Rules  # noqa: E402
from oklasim.table.terminal import Quit, play  # noqa: E402

OKLASIM = [sys.executable, "-m", "oklasim.cli"]
PROMPTS = [
    r"take the upcard \S+\? \[t\]ake / \[n\]o > ",
    r"'knock CARD', or \[n\]o \(the hand is void\) > ",
    r"draw: \[p\]ile \(\S+\) / \[s\]tock > ",
    r"1-\d+ > ",
    r"discard a card, or 'knock CARD' > ",
    r"press Enter for the next hand > ",
    r"\*\*\* game over: (.*) \*\*\*",
]
TURN, NEXT, GAME_OVER = 4, 5, 6  # the prompt after the draw, the one between hands, the game's end
ASKS = PROMPTS[:GAME_OVER]  # every prompt that waits for a line
PLAIN = {0: "n", 1: "n", 2: "s", 3: "1", NEXT: ""}  # a plain player's answer to each prompt but the turn's


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
    """Answer prompts like a plain player until the game ends (returns its last line) or ``moves`` are made
    (Enter between hands is not a move)."""
    made = 0
    while moves is None or made < moves:
        which = child.expect(PROMPTS)
        if which == GAME_OVER:
            return child.match.group(0)
        if which == TURN and on_turn is not None:
            on_turn(child)
        plain_answer(child, which)
        made += which != NEXT
    return None


def plain_answer(child, which: int) -> None:
    child.sendline(turn_move(child.before) if which == TURN else PLAIN[which])


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
        child.expect(f"{missing} is not in the hand")
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
    first.expect(ASKS)
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


def test_the_coach_advises_the_first_offer_from_the_deal_alone(monkeypatch):
    """Before any turn the history is empty: the coach tells the advisor the deal (the person, offered the upcard
    first, did not deal) rather than no advice."""
    from oklasim._kernels import layout as L
    from oklasim.sim.board import GameBoard
    from oklasim.table import coach as table_coach

    monkeypatch.setattr(table_coach, "COACH_SAMPLES", 300)  # the words are tested here, not the advice
    game = GameBoard(Rules(), 4)
    seat, kind = game.next_decision()
    assert kind == L.D_TAKE_UPCARD
    told = table_coach.coach_brief(game.view(seat), [], "simple", Rules())
    assert told.action != "none" and "\n" not in told.sentence
    assert any("pass the upcard" in line for line in told.details)


def test_the_coach_speaks_one_sentence_at_each_decision_and_why_shows_its_numbers(monkeypatch):
    """One 'coach |' line at every decision but the melds to lay; 'why' at the knock decision shows the advisor's
    table, the hand's history given (the opponent's play counts)."""
    from oklasim.table import coach as table_coach

    monkeypatch.setattr(table_coach, "COACH_SAMPLES", 300)
    shown: list[str] = []
    asked: list[tuple[str, list[str]]] = []  # each prompt, with what was shown since the one before
    told = [0]

    def ask(prompt: str) -> str:
        block, told[0] = shown[told[0]:], len(shown)
        if asked and asked[-1][0] == "why":
            asked.append(("numbers", block))
            raise Quit
        asked.append((prompt, block))
        if any(line.startswith("you may knock") for line in block):
            asked.append(("why", []))
            return "why"
        return plain_moves(prompt, "\n".join(shown[-40:]))

    play(Rules(), "greedy", 5, coach=True, ask=ask, say=shown.append)
    decisions = [(prompt, block) for prompt, block in asked if any(re.fullmatch(p, prompt) for p in PROMPTS[:5])]
    for prompt, block in decisions:
        melds = re.fullmatch(PROMPTS[3], prompt)  # nothing said on the melds to lay
        assert sum(line.startswith("coach | ") for line in block) == (0 if melds else 1), block
    last, numbers = asked[-1]
    assert len(decisions) > 3 and last == "numbers"
    assert not any(line.startswith("coach | ") for line in numbers)
    assert any("recommendation:" in line for line in numbers)
    assert any("weighted by how likely" in line for line in numbers)


def test_interrupted_and_bad_starts_are_one_line():
    child = start("--seed", "1")
    child.expect(ASKS)
    child.sendeof()
    child.expect("game stopped at the end of the input")
    assert finish(child) == 1
    child = start("--seed", "1")
    child.expect(ASKS)
    child.sendintr()  # Ctrl-C: as every command, 130
    child.expect("Error: game interrupted")
    assert finish(child) == 130
    for args, words in [(["--against", "nonesuch"], "unknown strategy"), (["--rules", "nope"], "neither a preset")]:
        done = subprocess.run(OKLASIM + ["play", *args], capture_output=True, text=True, timeout=60)
        assert done.returncode == 1 and words in done.stderr and "Traceback" not in done.stderr


def scripted(moves_for, rules: Rules, seed: int, **options) -> list[str]:
    """``play`` with typed moves from ``moves_for(prompt, screen)``; returns what was shown."""
    shown: list[str] = []
    play(rules, "greedy", seed, ask=lambda prompt: moves_for(prompt, "\n".join(shown[-40:])), say=shown.append,
         **options)
    return shown


def plain_moves(prompt: str, screen: str) -> str:
    """A plain player's move for ``scripted``: as ``play_on`` answers the prompts."""
    for which, move in PLAIN.items():
        if re.fullmatch(PROMPTS[which], prompt):
            return move
    return turn_move(screen)


def test_every_hand_is_shown_at_its_end_and_voids_are_announced():
    shown = scripted(plain_moves, Rules(max_draws=6), seed=2)
    assert shown.count("the hand is void: it reached the limit of 6 draws") >= 1
    ends = [k for k, line in enumerate(shown) if line.startswith("the hand is void")]
    assert shown[ends[0] + 1].startswith("your hand: ") and shown[ends[0] + 2].startswith("greedy's hand: ")
    shown = scripted(plain_moves, Rules(), seed=5)
    downs = [k for k, line in enumerate(shown) if " down: " in line]
    assert downs and all(any(line.startswith("your hand: ") for line in shown[k : k + 12]) for k in downs)


@pytest.mark.parametrize("players", [3, 4])
def test_three_and_four_players_sit_at_the_table(players):
    shown = scripted(plain_moves, Rules(players=players), seed=7)
    assert re.match(rf"\*\*\* game over: .*; totals you \d+(, greedy \(seat \d\) \d+){{{players - 1}}} \*\*\*",
                    shown[-1].strip()), shown[-1]


def test_pass_and_pile_have_their_own_keys():
    shown = scripted(lambda prompt, screen: "p" if "take the upcard" in prompt and "'p'" not in screen
                     else plain_moves(prompt, screen), Rules(), seed=4)
    assert "  no: 'p' is not one of: t, n, no" in shown


def test_resume_keeps_the_bot_and_the_coach_and_refuses_another(tmp_path):
    save = tmp_path / "game.json"
    first = start("--seed", "8", "--against", "greedy", "--coach", "--save", str(save))
    play_on(first, moves=3)
    first.expect(ASKS)
    first.sendline("quit")
    assert finish(first) == 0
    saved = json.loads(save.read_text())
    assert saved["against"] == "greedy" and saved["coach"] is True and len(saved["moves"]) == 3
    for args, words in [(["--against", "simple"], "is against greedy, not simple: leave out --against"),
                        (["--seed", "9"], "has seed 8: leave out --seed"),
                        (["--rules", "pagat"], "has its own rules: leave out --rules")]:
        done = subprocess.run(OKLASIM + ["play", "--resume", str(save), *args], capture_output=True, text=True,
                              timeout=60)
        assert done.returncode == 1 and words in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


# -- saves that replay exactly, saves that cannot be written or would overwrite a game ----------------------


def saved_game(path, moves: int, seed: int = 21, refusals=()) -> list[str]:
    """A game against greedy saved in ``path`` after ``moves`` moves (each of ``refusals`` typed, and refused,
    before the first); returns what was shown."""
    typed = list(refusals)
    shown: list[str] = []

    def ask(prompt: str) -> str:
        if typed:
            return typed.pop(0)
        if len(json.loads(path.read_text())["moves"]) >= moves:
            raise Quit
        return plain_moves(prompt, "\n".join(shown[-40:]))

    play(Rules(), "greedy", seed, save=str(path), ask=ask, say=shown.append)
    return shown


def resumed(path, *args) -> subprocess.CompletedProcess:
    return subprocess.run(OKLASIM + ["play", "--resume", str(path), *args], capture_output=True, text=True,
                          timeout=60, input="quit\n")


def test_a_refused_move_is_not_saved_and_the_save_replays_exactly(tmp_path):
    save = tmp_path / "game.json"
    shown = saved_game(save, 5, refusals=["Zz", "x"])
    assert sum(line.startswith("  no: ") for line in shown) == 2
    record = json.loads(save.read_text())
    assert len(record["moves"]) == 5 and not {"Zz", "x"} & set(record["moves"])
    done = resumed(save)
    assert done.returncode == 0 and "5 moves replayed" in done.stdout, done.stderr


@pytest.mark.parametrize("edit, words", [
    (lambda r: {**r, "moves": 5}, "its 'moves' is not a list of moves"),
    (lambda r: {**r, "seed": [1]}, "its 'seed' is not a whole number"),
    (lambda r: {**r, "moves": r["moves"][:2] + ["Zz"] + r["moves"][2:]}, "its move 3 'Zz' is refused"),
    (lambda r: {**r, "moves": r["moves"][:1] + ["t"] + r["moves"][1:]}, "does not replay: its move 2 't' is refused"),
])
def test_a_save_that_does_not_replay_exactly_is_refused_at_resume(tmp_path, edit, words):
    """Never half-replayed: one line, a non-zero exit, nothing shown or played (and the save left as it was)."""
    save = tmp_path / "game.json"
    saved_game(save, 6)
    save.write_text(json.dumps(edit(json.loads(save.read_text()))))
    before = save.read_text()
    done = resumed(save)
    assert done.returncode == 1 and words in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert done.stdout == "" and save.read_text() == before


def test_save_refuses_to_overwrite_an_unfinished_game(tmp_path):
    save = tmp_path / "game.json"
    saved_game(save, 3)
    before = save.read_text()
    done = subprocess.run(OKLASIM + ["play", "--seed", "2", "--save", str(save)], capture_output=True, text=True,
                          timeout=60, input="quit\n")
    assert done.returncode == 1 and done.stdout == "" and save.read_text() == before
    assert done.stderr.strip() == (f"Error: {save} holds an unfinished game: go on with it with --resume {save}, "
                                   "or give --overwrite to start a new one there")
    other = tmp_path / "notes.json"
    other.write_text("[]")
    done = subprocess.run(OKLASIM + ["play", "--save", str(other)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "exists and is not a saved game" in done.stderr and other.read_text() == "[]"
    done = subprocess.run(OKLASIM + ["play", "--seed", "2", "--save", str(save), "--overwrite"], capture_output=True,
                          text=True, timeout=60, input="quit\n")
    record = json.loads(save.read_text())
    assert done.returncode == 0 and record["seed"] == 2 and record["moves"] == []


@pytest.mark.parametrize("where", ["/sys/x.json", "/proc/x.json"])
def test_a_save_that_cannot_be_written_is_refused_before_the_first_move(where):
    done = subprocess.run(OKLASIM + ["play", "--seed", "2", "--save", where], capture_output=True, text=True,
                          timeout=60, input="n\n")
    assert done.returncode == 1 and done.stdout == "", done.stdout  # no table shown, no move asked
    assert done.stderr.startswith(f"Error: cannot save to {where}: ") and len(done.stderr.splitlines()) == 1


def test_keys_typed_ahead_do_not_answer_the_next_hands_first_offer():
    """Lines typed while a hand ends (here with the knock that ends it) are dropped: the hand's end waits for a
    fresh Enter, and lines typed after that Enter are dropped when the next hand starts, whose first question
    waits for a fresh answer."""
    child = start("--seed", "5", "--against", "greedy")
    try:
        knock_with_keys_typed_ahead(child)
    finally:
        child.terminate(force=True)


def play_to_my_knock(child) -> str:
    """Plain moves until a knock of the person's is offered after a draw; returns the screen then."""
    while True:
        which = child.expect(PROMPTS)
        assert which != GAME_OVER, "the game ended with no knock of yours"
        if which == TURN and "you may knock" in child.before:
            return child.before
        plain_answer(child, which)


def knock_with_keys_typed_ahead(child) -> None:
    child.send(turn_move(play_to_my_knock(child)) + "\nt\nt\ns\n")  # the knock, then keys typed ahead
    which = child.expect(PROMPTS)
    if which == 3:  # the knock asks which melds to lay: the first typed-ahead line answers it, refused
        pytest.skip("this seed's knock asks for an arrangement")
    assert which == NEXT and "points: " in child.before, child.before  # the hand's end, shown and waiting
    child.send("\nt\ns\n")  # Enter, then keys typed ahead again
    which = child.expect(PROMPTS)
    assert re.search(r"=== hand \d+: ", child.before) and which in (0, 2), child.before  # the next hand's first
    child.sendline("hand")  # read after whatever input is pending: shows the table again
    child.expect("your hand")
    answered = child.before  # what the pending input did, if anything
    assert "no: " not in answered and "you take the upcard" not in answered and "you draw" not in answered, answered
    child.sendline("quit")
    assert finish(child) == 0


def test_a_hand_ends_with_its_facts_and_waits_for_enter_where_quit_stops(tmp_path):
    """Every hand sorted into melds, deadwood before and after the layoffs, the points counted and the score,
    then the next hand is dealt only after Enter; 'quit' there stops with every move saved."""
    save = tmp_path / "game.json"
    child = start("--seed", "5", "--against", "greedy", "--save", str(save))
    child.sendline(turn_move(play_to_my_knock(child)))
    assert child.expect(PROMPTS) == NEXT, child.before
    end = child.before
    assert re.search(r"your hand: (\[[^\]]+\] )+.*deadwood \d+ \(knocked\)", end), end
    assert re.search(r"greedy's hand: .*deadwood \d+ before layoffs, \d+ after", end), end
    assert re.search(r"points: .* = \d+ to (you|greedy)\r?\n", end), end
    ended = int(re.search(r"hand (\d+): .*; score you \d+, greedy \d+", end).group(1))
    assert f"=== hand {ended + 1}: " not in end, end
    child.sendline("")
    child.expect(f"=== hand {ended + 1}: ")  # dealt once Enter is pressed
    while (which := child.expect(PROMPTS)) != NEXT:
        assert which != GAME_OVER, "the game ended after its first hand"
        plain_answer(child, which)
    child.sendline("quit")
    child.expect("stopped; the game is saved in")
    assert finish(child) == 0
    moves = json.loads(save.read_text())["moves"]
    again = start("--resume", str(save))
    again.expect(f"{len(moves)} moves replayed")
    assert again.expect(PROMPTS) == NEXT and re.search(r"hand \d+: .*; score you", again.before)  # shown again
    again.sendline("quit")
    assert finish(again) == 0
