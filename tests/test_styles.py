"""The public style counts (``V_STYLE``): what each seat's showdowns showed of how it plays.

The engine counts them at its showdowns; a seat at another referee's table
(the agent) counts them from the final hands it is shown; ``expert`` reads
them to tell a player that holds hands it could knock with from one that
knocks at once. Checked here against a recount in plain Python with the
reference deadwood, game by game.
"""

from __future__ import annotations

import numpy as np
import pytest

from oklasim._kernels import layout as L
from oklasim.agent import Agent, ProtocolError
from oklasim.agent.transcript import transcript
from oklasim.game import reference
from oklasim.game.rules import Rules
from oklasim.sim.board import GameBoard
from oklasim.strategies.registry import resolve

DRAWS = ("take_upcard", "draw_stock", "draw_pile")
KNOCKER_AND_HOLDER = ["eaai", "threshold:gin_only"]


def played(rules: Rules, names: list[str], seed: int, game: int) -> GameBoard:
    """Game ``game`` of ``seed`` played to its end on a GameBoard by the named strategies."""
    strategies = [resolve(name) for name in names]
    board = GameBoard(rules, seed, game)
    while (asked := board.next_decision()) is not None:
        seat, kind = asked
        strategy = strategies[seat]
        board.apply(seat, kind, int(strategy.decide(kind, board.view(seat), strategy.vector())))
    return board


def shown(counts: np.ndarray, seat: int, draws: int, deadwood: int, knocked: bool) -> None:
    """Add a showing to ``seat``'s row of ``counts`` by the layout's words: draws (capped), deadwood, knocked, present;
    the first SHOWN_SLOTS * SHOWN_PER_SLOT of them."""
    showing = ((min(draws, L.SHOWN_MAX_DRAWS) << L.SHOWN_DRAWS_SHIFT) | (deadwood << L.SHOWN_DEADWOOD_SHIFT)
               | (int(knocked) << L.SHOWN_KNOCKED_SHIFT) | (1 << L.SHOWN_PRESENT_SHIFT))
    for index in range(L.SHOWN_SLOTS * L.SHOWN_PER_SLOT):
        slot, position = divmod(index, L.SHOWN_PER_SLOT)
        packed = int(counts[seat, L.STYLE_SHOWN + slot])
        if not (packed >> (L.SHOWN_BITS * position + L.SHOWN_PRESENT_SHIFT)) & 1:
            counts[seat, L.STYLE_SHOWN + slot] = packed | (showing << (L.SHOWN_BITS * position))
            return


def recount(board: GameBoard) -> np.ndarray:
    """(knocks, held, gins, the showings) per seat from the game's records, final hands and draws, by the rule's
    words."""
    counts = np.zeros((L.MAX_SEATS, L.STYLE_FIELDS), dtype=np.int64)
    draws = {}
    for event in board.history:
        if event.name in DRAWS:
            draws[event.hand, event.seat] = draws.get((event.hand, event.seat), 0) + 1
    for hand, (record, hands) in enumerate(zip(board.records, board.final_hands)):
        knocker, limit = int(record[L.H_KNOCKER]), int(record[L.H_KNOCK_LIMIT])
        if knocker < 0:
            continue  # a void hand shows nothing
        if record[L.H_KNOCKER_DEADWOOD] > 0:
            counts[knocker, L.STYLE_KNOCKS] += 1
            shown(counts, knocker, draws.get((hand, knocker), 0), int(record[L.H_KNOCKER_DEADWOOD]), True)
        else:
            counts[knocker, L.STYLE_GINS] += 1
        for seat, cards in enumerate(hands):
            seat_draws, deadwood = draws.get((hand, seat), 0), reference.deadwood(cards)
            if seat != knocker and seat_draws and limit > 0 and deadwood <= limit:
                counts[seat, L.STYLE_HELD] += 1
                shown(counts, seat, seat_draws, deadwood, False)
    return counts


def style_of(view: np.ndarray) -> np.ndarray:
    return view[L.V_STYLE : L.V_STYLE + L.STYLE_FIELDS * L.MAX_SEATS].reshape(L.MAX_SEATS, L.STYLE_FIELDS)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_engine_counts_what_its_showdowns_show(players):
    rules = Rules(players=players)
    names = (KNOCKER_AND_HOLDER + ["threshold:early_then_gin", "simple"])[:players]
    seen = np.zeros((L.MAX_SEATS, L.STYLE_FIELDS), dtype=np.int64)
    for game in range(6):
        board = played(rules, names, seed=5, game=game)
        expected = recount(board)
        for seat in range(players):
            assert (style_of(board.view(seat)) == expected).all(), (game, seat)
        seen += expected
    assert seen[0, L.STYLE_KNOCKS] > 0 and seen[1, L.STYLE_HELD] > 0  # the knocker knocks, the holder holds
    assert seen[1, L.STYLE_KNOCKS] == 0  # gin_only never knocks short of gin
    assert players > 2 or seen[1, L.STYLE_GINS] > 0  # with 7 cards each gin is rare


def test_a_new_game_starts_its_counts_again():
    rules = Rules()
    board = played(rules, KNOCKER_AND_HOLDER, seed=5, game=1)
    assert style_of(board.view(0)).any()
    fresh = GameBoard(rules, 5, 2)
    fresh.next_decision()
    assert not style_of(fresh.view(0)).any()


def test_the_agent_counts_the_final_hands_it_is_shown_as_the_engine_does():
    """A transcript shows every hand after the hand, as the EAAI referee does: the agent's counts are the engine's at
    the end of each game, void hands and its own hand included."""
    rules = Rules.preset("eaai")
    agent = Agent(rules, resolve("simple"), 7)
    game = 0
    for message, _ in transcript(rules, KNOCKER_AND_HOLDER, 7, 4):
        if message["type"] == "game_over":
            assert (style_of(agent.seat.view) == recount(played(rules, KNOCKER_AND_HOLDER, 7, game))).all()
            game += 1
        agent.handle(message)
    assert game == 3


def test_a_final_hand_counts_once_and_a_void_hand_not_at_all():
    rules = Rules.preset("eaai")
    messages = [m for m, _ in transcript(rules, KNOCKER_AND_HOLDER, 7, 2)]
    first_show = next(i for i, m in enumerate(messages) if m["type"] == "final_hand")
    agent = Agent(rules, resolve("simple"), 7)
    for message in messages[: first_show + 1]:
        agent.handle(message)
    again = agent.handle(messages[first_show])
    assert again["type"] == "error" and "already shown" in again["message"]
    seat = agent.seat
    seat.knocker = -1  # as after a void hand
    before = style_of(seat.view).copy()
    seat.final_hand(1 - messages[first_show]["seat"], 0b1111111111)
    assert (style_of(seat.view) == before).all()
    with pytest.raises(ProtocolError):
        seat.final_hand(5, 0)


def test_expert_reads_the_counts_to_choose_its_knock_timing():
    """With the holder timing set apart (knock in every draw) expert knocks late only once an opponent has held."""
    from oklasim.strategies.families import expert as X

    params = resolve("expert(holder_above=0.5,holding_prior=0,holding_weight=2,holder_early_draws=99)").vector()
    view = np.zeros(L.V_SIZE, dtype=np.int64)
    view[L.V_PLAYERS], view[L.V_SEAT] = 2, 0
    assert X.knock_timing_nb(view, params)[0] == params[X.EARLY_DRAWS]
    view[L.V_STYLE + L.STYLE_FIELDS + L.STYLE_HELD] = 3
    assert X.knock_timing_nb(view, params)[0] == 99
    view[L.V_STYLE + L.STYLE_FIELDS + L.STYLE_KNOCKS] = 4  # 3 held of 7 showings, prior 0 worth 2: 1/3
    assert X.knock_timing_nb(view, params)[0] == params[X.EARLY_DRAWS]
    view[L.V_STYLE + L.STYLE_FIELDS + L.STYLE_GINS] = 4  # and 4 gins: 7 of 11, 7/13 > 0.5
    assert X.knock_timing_nb(view, params)[0] == 99


def test_the_showings_keep_the_first_of_the_game_in_order():
    from oklasim._kernels import engine_nb as E

    board = np.zeros((L.BOARD_ROWS, L.V_SIZE), dtype=np.int64)
    board[0, L.V_PLAYERS] = 2
    expected = np.zeros((L.MAX_SEATS, L.STYLE_FIELDS), dtype=np.int64)
    slot = L.V_STYLE + L.STYLE_FIELDS * 1
    for n in range(L.SHOWN_SLOTS * L.SHOWN_PER_SLOT + 3):  # three past the room: not shown
        draws, deadwood, knocked = 3 + n, n % 11, n % 2
        E.show_nb(board, slot, draws, deadwood, knocked)
        shown(expected, 1, draws, deadwood, bool(knocked))
    assert (board[0, slot : slot + L.STYLE_FIELDS] == expected[1]).all()
    assert (board[1, slot : slot + L.STYLE_FIELDS] == expected[1]).all()  # every seat sees it


def showings(view, seat, knocks=(), held=()):
    """Show knocks short of gin and hands held, each (draws, deadwood), for ``seat`` in ``view``."""
    row = view[L.V_STYLE + L.STYLE_FIELDS * seat : L.V_STYLE + L.STYLE_FIELDS * (seat + 1)].reshape(1, -1)
    for knocked, events in ((True, knocks), (False, held)):
        for draws, deadwood in events:
            shown(row, 0, draws, deadwood, knocked)


def timing_by_hand(knocks, held, prior, weight, slip):
    """The likeliest knock timing, the nearest the prior among equals, computed plainly over the showings listed."""
    switch0, threshold0 = prior
    events = [(min(d, L.SHOWN_MAX_DRAWS), k, True, 1.0) for d, k in knocks]
    events += [(min(d, L.SHOWN_MAX_DRAWS), k, False, 1.0) for d, k in held]
    events += [(switch0, 10, True, weight), (switch0 + 1, threshold0 + 1, False, weight)]
    events += [(switch0 + 1, threshold0, True, weight)] if threshold0 > 0 else []
    timings = list(np.ndindex(L.SHOWN_MAX_DRAWS + 1, 11))
    log_p = [round(sum(w * np.log(1 - slip if (d <= s or k <= t) == knocked else slip)
                       for d, k, knocked, w in events), 9) for s, t in timings]
    likeliest = [timing for timing, p in zip(timings, log_p) if p == max(log_p)]
    return min(likeliest, key=lambda st: (abs(st[0] - switch0) + abs(st[1] - threshold0), st))


def test_the_knock_timing_follows_what_the_showdowns_show():
    from oklasim._kernels.opponents_nb import opponents_knock_timing_nb as fitted

    view = np.zeros(L.V_SIZE, dtype=np.int64)
    view[L.V_PLAYERS], view[L.V_SEAT] = 2, 0
    assert fitted(view, 2, 0, 1.0, 0.1) == (2, 0)  # nothing seen: the prior
    assert fitted(view, 6, 4, 1.0, 0.1) == (6, 4)
    showings(view, 0, knocks=[(1, 9)] * 3)  # our own showdowns say nothing of the opponent
    assert fitted(view, 2, 0, 1.0, 0.1) == (2, 0)
    showings(view, 1, knocks=[(4, 9), (6, 8), (9, 10)])  # a knocker: it knocks high, late
    assert fitted(view, 2, 0, 1.0, 0.1) == (9, 0)  # the nearest the prior of the timings that knock all three
    waiter = np.zeros(L.V_SIZE, dtype=np.int64)
    waiter[L.V_PLAYERS], waiter[L.V_SEAT] = 2, 0
    showings(waiter, 1, knocks=[(2, 8), (7, 2), (9, 3)], held=[(6, 7), (8, 9), (10, 6)])  # early anything, later low
    assert fitted(waiter, 2, 0, 1.0, 0.1) == (2, 3)
    holder = np.zeros(L.V_SIZE, dtype=np.int64)
    holder[L.V_PLAYERS], holder[L.V_SEAT] = 2, 1
    showings(holder, 0, held=[(1, 5), (2, 3), (2, 6), (3, 2), (4, 4)])  # a holder from its first draws
    assert fitted(holder, 2, 0, 1.0, 0.1) == (0, 0)


@pytest.mark.parametrize("seed", range(20))
def test_the_knock_timing_is_the_likeliest_of_its_model(seed):
    from oklasim._kernels.opponents_nb import opponents_knock_timing_nb as fitted

    rng = np.random.default_rng(seed)
    knocks = [(int(d), int(k)) for d, k in zip(rng.integers(0, 20, 6), rng.integers(1, 11, 6))][: rng.integers(0, 7)]
    held = [(int(d), int(k)) for d, k in zip(rng.integers(1, 20, 6), rng.integers(0, 11, 6))][: rng.integers(0, 7)]
    prior = (int(rng.integers(0, L.SHOWN_MAX_DRAWS)), int(rng.integers(0, 10)))
    weight, slip = float(rng.uniform(0, 3)), float(rng.uniform(0.02, 0.4))
    view = np.zeros(L.V_SIZE, dtype=np.int64)
    view[L.V_PLAYERS], view[L.V_SEAT] = 3, 2
    showings(view, 0, knocks=knocks[::2], held=held[::2])  # two opponents, pooled
    showings(view, 1, knocks=knocks[1::2], held=held[1::2])
    assert fitted(view, *prior, weight, slip) == timing_by_hand(knocks, held, prior, weight, slip)


def present_showings(row: np.ndarray) -> int:
    return sum((int(row[L.STYLE_SHOWN + k]) >> (L.SHOWN_BITS * p + L.SHOWN_PRESENT_SHIFT)) & 1
               for k in range(L.SHOWN_SLOTS) for p in range(L.SHOWN_PER_SLOT))


def test_an_agent_that_remembers_its_opponents_runs_the_counts_on_across_games():
    """``remember_opponents``: each game's counts add to those of the games before (the showings until full); without
    it each game starts again (checked above)."""
    rules = Rules.preset("eaai")
    agent = Agent(rules, resolve("simple"), 7, remember_opponents=True)
    total = np.zeros((L.MAX_SEATS, L.STYLE_FIELDS), dtype=np.int64)
    game = 0
    for message, _ in transcript(rules, KNOCKER_AND_HOLDER, 7, 4):
        if message["type"] == "game_over":
            total += recount(played(rules, KNOCKER_AND_HOLDER, 7, game))
            seen = style_of(agent.seat.view)
            counts = [L.STYLE_KNOCKS, L.STYLE_HELD, L.STYLE_GINS]
            assert (seen[:, counts] == total[:, counts]).all(), game
            for seat in range(2):
                shown_so_far = total[seat, L.STYLE_KNOCKS] + total[seat, L.STYLE_HELD]
                assert present_showings(seen[seat]) == min(shown_so_far, L.SHOWN_SLOTS * L.SHOWN_PER_SLOT)
            game += 1
        agent.handle(message)
    assert game == 3 and total[0, L.STYLE_KNOCKS] > 0 and total[1, L.STYLE_HELD] > 0


def test_remembered_counts_follow_each_opponent_to_its_new_seat():
    from oklasim.agent.seat import SeatView

    rules = Rules(players=3)
    seat = SeatView(rules, resolve("simple"), remember_opponents=True)
    seat.new_hand(0, 0, (1 << rules.hand_size) - 1, 40)
    for who in range(3):
        seat.board[:3, L.V_STYLE + L.STYLE_FIELDS * who + L.STYLE_KNOCKS] = 10 + who  # seat who: 10 + who knocks
    seat.game_over()
    assert not style_of(seat.view).any()  # the board's new game cleared them
    seat.new_hand(2, 0, (1 << rules.hand_size) - 1, 40)  # this seat now sits at 2: the one after it at 0, then 1
    for viewer in range(3):
        assert list(style_of(seat.board[viewer])[:3, L.STYLE_KNOCKS]) == [11, 12, 10]
