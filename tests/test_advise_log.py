"""The hand's public log in every view, and the opponent's turns replayed from it as the advisor's history is."""

import random

import numpy as np
import pytest

from oklasim._kernels import advise_history_nb as H
from oklasim._kernels import layout as L
from oklasim._kernels.advise_log_nb import log_evidence_nb, opponent_turns_nb
from oklasim._kernels.engine_nb import log_turn_nb
from oklasim.advise.history import history_text, parse_history, replay
from oklasim.game.rules import Rules
from oklasim.sim.board import GameBoard

# What a replayed snapshot holds of the completion or of the typed history, not of the hand: the opponent's cards
# (a stand-in either way), the card it drew (set by the weighing), the hand's number and the game's style counts (a
# typed history starts a game).
NOT_COMPARED = [L.V_HAND, L.V_DRAWN, L.V_HAND_NUMBER, *range(L.V_STYLE, L.V_STYLE_END)]


def public(snapshots):
    """The snapshots without the slots above, nor the stale pile slots above the pile's size (never read)."""
    out = snapshots.copy()
    out[:, :, NOT_COMPARED] = 0
    for row in out.reshape(-1, L.V_SIZE):
        row[L.V_PILE + row[L.V_PILE_SIZE] : L.V_PILE + 52] = 0
    return out
ASKED = (L.D_TAKE_UPCARD, L.D_DRAW, L.D_KNOCK, L.D_DISCARD)
DRAW_OF = {"take_upcard": L.LOG_PILE, "draw_pile": L.LOG_PILE, "draw_stock": L.LOG_STOCK, "pass": L.LOG_PASS}


def random_answer(rnd, view, kind):
    """A legal answer at random: plenty of pile takes and knocks, so that histories vary."""
    if kind in (L.D_TAKE_UPCARD, L.D_DRAW):
        return rnd.randint(0, 1)
    if kind == L.D_KNOCK:
        options = [c for c in range(52) if view[L.V_KNOCK_DISCARDS] >> c & 1]
        return rnd.choice(options) if options and rnd.random() < 0.2 else L.NO_CARD
    if kind == L.D_DISCARD:
        return rnd.choice([c for c in range(52) if view[L.V_HAND] >> c & 1 and c != view[L.V_FORBIDDEN]])
    return 0


def seat_zero_decisions(rules, seed, games=2):
    """(view of seat 0, decision, the hand's events so far) at every decision of seat 0 in random play."""
    rnd = random.Random(seed)
    for game in range(games):
        board = GameBoard(rules, seed, game)
        hand_events = []
        while (asked := board.next_decision()) is not None:
            for event in board.events():
                if event.name == "deal" and event.seat == 0:
                    hand_events = []
                hand_events.append(event)
            seat, kind = asked
            view = board.view(seat)
            if seat == 0 and kind in ASKED:
                yield view.copy(), kind, [e for e in map(lambda e: e.seen_by(0), hand_events) if e is not None]
            board.apply(seat, kind, random_answer(rnd, view, kind))


@pytest.mark.parametrize("preset, players", [("seeds", 2), ("eaai", 2), ("seeds", 3), ("seeds", 4)])
def test_the_log_tells_every_turn_in_order(preset, players):
    checked = 0
    for view, _, events in seat_zero_decisions(Rules.preset(preset).replace(players=players), 5):
        turns = [e for e in events if e.name in DRAW_OF]
        discards = [e.a for e in events if e.name == "discard"]
        assert view[L.V_LOG_TURNS] == len(turns)
        logged = [log_turn_nb(view, i) for i in range(len(turns))]
        assert [(s, d) for s, d, _ in logged] == [(e.seat, DRAW_OF[e.name]) for e in turns]
        assert [c for _, _, c in logged if c != L.NO_CARD] == discards
        checked += 1
    assert checked > 50


@pytest.mark.parametrize("preset, discard_taken", [("seeds", False), ("eaai", False), ("seeds", True)])
def test_the_opponents_turns_from_the_log_are_those_of_the_history_replay(preset, discard_taken):
    """At every decision of seat 0, its view alone gives the opponent's turns and its views at each exactly as the
    advisor's replay of the same hand typed as a history (``advise.history.replay``)."""
    rules = Rules.preset(preset).replace(discard_taken_card=discard_taken)
    checked = windows = 0
    for view, kind, events in seat_zero_decisions(rules, 11):
        text = history_text(events, 0)
        if not text:
            continue  # no turn yet: nothing to replay
        turns, snapshots, prior, ok = log_evidence_nb(view, 0, 3)
        assert ok and prior.tolist() == [-1, 0, L.NO_CARD]
        scores = tuple(int(s) for s in view[L.V_SCORES : L.V_SCORES + 2])
        replayed = replay(parse_history(text), int(view[L.V_UPCARD]), rules, scores, int(view[L.V_HAND]))
        assert np.array_equal(turns, replayed.turns), text
        assert np.array_equal(public(snapshots), public(replayed.snapshots)), text
        checked += 1
        if len(turns) > 3:  # the window: the latest three, the stock draws before it shape the hand
            last, _, window_prior, _ = log_evidence_nb(view, 3, 2)
            assert np.array_equal(last[:, : H.T_ELIGIBLE], turns[-3:, : H.T_ELIGIBLE])
            stock = np.isin(turns[:-3, H.T_KIND], (H.TURN_STOCK, H.TURN_FORCED_STOCK)).sum()
            assert window_prior.tolist() == [min(stock, 2), 0, L.NO_CARD]
            windows += 1
    assert checked > 100 and windows > 20


def test_a_log_out_of_step_with_the_view_is_not_read():
    view = next(v for v, kind, _ in seat_zero_decisions(Rules(), 3) if kind == L.D_KNOCK)
    assert opponent_turns_nb(view) > 0
    for changed in (L.V_DRAWS, L.V_LOG_TURNS):
        bad = view.copy()
        bad[changed] += 1
        assert opponent_turns_nb(bad) == -1 or not log_evidence_nb(bad, 0, 3)[3]
    three = view.copy()
    three[L.V_PLAYERS] = 3
    assert opponent_turns_nb(three) == -1


def test_the_strategies_default_to_the_advisors_history_model():
    from oklasim._kernels.advise_log_nb import DEFAULT_PLAYED_DRAWS, DEFAULT_WINDOW
    from oklasim.advise.request import Request

    assert (DEFAULT_WINDOW, DEFAULT_PLAYED_DRAWS) == (Request().window, Request().played_draws)


def test_a_hand_longer_than_the_log_is_counted_not_logged():
    from oklasim._kernels import engine_nb as E

    board = E.new_board()
    board[:, L.V_PLAYERS] = 2
    for turn in range(L.MAX_LOG_TURNS):
        E.log_draw_nb(board, turn % 2, L.LOG_STOCK)
        E.log_discard_nb(board, turn % 52)
    full = board[0, L.V_LOG : L.V_LOG_END].copy()
    assert log_turn_nb(board[1], L.MAX_LOG_TURNS - 1) == (1, L.LOG_STOCK, (L.MAX_LOG_TURNS - 1) % 52)
    E.log_draw_nb(board, 0, L.LOG_PILE)
    E.log_discard_nb(board, 7)
    assert board[0, L.V_LOG_TURNS] == board[1, L.V_LOG_TURNS] == L.MAX_LOG_TURNS + 1
    assert np.array_equal(board[0, L.V_LOG : L.V_LOG_END], full)
    assert opponent_turns_nb(board[0]) == -1
