"""The completion of the unseen cards: whatever events show, every card stays in exactly one place, and what the
observer knows never moves."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oklasim._kernels import layout as L
from oklasim.game.cards import N_CARDS
from oklasim.game.rules import Rules
from oklasim.sim.board import IllegalMove
from oklasim.sim.completion import CompletedBoard, Unseen


def places(game: CompletedBoard) -> list[int]:
    """Every card's count over the hands, the stock and the pile (each must be 1)."""
    counts = [0] * N_CARDS
    for seat in range(game.players):
        for card in range(N_CARDS):
            counts[card] += game.hand(seat) >> card & 1
    for card in game.stock().tolist():
        counts[card] += 1
    view = game.board[0]
    for card in view[L.V_PILE : L.V_PILE + view[L.V_PILE_SIZE]].tolist():
        counts[card] += 1
    return counts


@settings(max_examples=60, deadline=None)
@given(players=st.integers(2, 4), observer=st.sampled_from([None, 0, 1]), seed=st.integers(0, 2**32 - 1),
       moves=st.lists(st.tuples(st.booleans(), st.integers(0, 3), st.integers(0, N_CARDS - 1)), max_size=30))
def test_moving_unseen_cards_keeps_every_card_in_one_place(players, observer, seed, moves):
    rules = Rules(players=players)
    rng = np.random.default_rng(seed)
    game = CompletedBoard(rules, observer)
    known = 0
    if observer is not None:
        known = int(sum(1 << int(c) for c in rng.choice(N_CARDS, rules.hand_size, replace=False)))
    upcard = next(c for c in range(N_CARDS) if not known >> c & 1)
    game.deal(0, 0, [0] * players, upcard, known)
    observed = game.hand(observer) if observer is not None else None
    for to_stock, seat, card in moves:
        seat %= players
        try:
            game.place_on_stock(card) if to_stock else game.place_in_hand(seat, card)
        except Unseen:
            assert card == upcard or known >> card & 1 or (not to_stock and seat == observer)
            continue
        assert (int(game.stock()[0]) == card) if to_stock else (game.hand(seat) >> card & 1)
        assert places(game) == [1] * N_CARDS
        assert observer is None or game.hand(observer) == observed  # the observer's cards never move
        for other in range(players):
            assert game.board[other, L.V_HAND] == game.hand(other)  # each row shows its hand as the hidden row does


def test_a_card_taken_from_the_pile_is_known_and_stays():
    game = CompletedBoard(Rules(), observer=0)
    game.deal(0, 0, [0, 0], upcard=51, known_hand=sum(1 << c for c in range(10)))
    with pytest.raises(IllegalMove, match="not seat 0's decision: seat 1 is to play"):
        game.apply(0, L.D_TAKE_UPCARD, 1)
    game.apply(1, L.D_TAKE_UPCARD, 1)  # seat 1 takes the upcard: the observer saw where it went
    assert game.held_known[1] == 1 << 51
    with pytest.raises(Unseen):
        game.place_on_stock(51)
    game.place_in_hand(1, 51)  # already there: nothing moves
    assert game.hand(1) >> 51 & 1
