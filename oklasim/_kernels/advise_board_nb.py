"""The one builder of a board at a mid-hand position, for situations, the advisor and its worlds.

``situation.board_for`` (every card known), the advisor's position
(``advise.position.view_of``) and its worlds (``advise_worlds_nb.template_nb``,
from one seat's view) all build their boards here, so that who passed the
first upcard, the phase, the pile and every public slot are set one way, by
the engine's own functions where the engine has one.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .cards_nb import N_CARDS
from .engine_nb import load_rules_nb, pile_pop_nb, pile_push_nb, publish_nb, start_hand_nb
from .layout import (
    HIDDEN,
    MAX_SEATS,
    NO_CARD,
    PHASE_OFFER,
    R_DISCARD_TAKEN_CARD,
    R_PLAYERS,
    S_DECK,
    S_FIRST_TAKER,
    S_HANDS,
    S_OFFERS,
    S_PHASE,
    S_STOCK_POS,
    S_TURN,
    V_DISCARDED,
    V_DRAWN,
    V_DRAWS,
    V_FORBIDDEN,
    V_LOG_END,
    V_LOG_TURNS,
    V_MY_DRAWS,
    V_PASSED,
    V_STYLE,
    V_STYLE_END,
    V_TAKEN,
)

# The style counts of a position no showdown of the game comes before (the advisor's, a situation's).
NO_STYLES = np.zeros(V_STYLE_END - V_STYLE, dtype=np.int64)
# The log of a position told without the turns that led to it: none (a strategy reading the log falls back).
NO_LOG = np.zeros(V_LOG_END - V_LOG_TURNS, dtype=np.int64)


@njit(cache=True)
def first_taker_nb(players, dealer, passes, phase):
    """The seat that took the first upcard: the one after the ``passes`` who passed it (-1: nobody, or not yet)."""
    if phase == PHASE_OFFER or passes >= players:
        return -1
    return (dealer + 1 + passes) % players


@njit(cache=True)
def draws_by_seat_nb(players, me, draws, mine):
    """Every seat's draws this hand, given all ``draws`` and ``mine``, at ``me``'s turn: the turns went round.

    Between two of my draws every other seat drew once; the draws left over
    came before my first, from the seats just before me (my right first).
    """
    out = np.zeros(MAX_SEATS, dtype=np.int64)
    out[me] = mine
    rest = max(draws - mine, 0)
    others = players - 1
    for k in range(others):
        seat = (me - 1 - k) % players
        out[seat] = rest // others + (1 if k < rest % others else 0)
    return out


@njit(cache=True)
def mid_hand_board_nb(board, rules, dealer, hand_number, scores, upcard, pile, stock, hands, taken, discarded, my_draws,
                      passes, draws, turn, phase, drawn, styles, log):
    """Set ``board`` at a position of the hand; ``turn`` acts next, in ``phase`` (``PHASE_*``).

    ``pile`` bottom first and ``stock`` top first hold exactly their cards
    (stand-ins where unknown: a world fills them in); ``hands``, ``taken``
    (cards each seat took from the pile), ``discarded``, ``my_draws`` and
    ``scores`` have a slot per seat. ``passes`` seats passed the first
    upcard, round the table from the dealer's left; ``draws`` counts every
    draw of the hand (a taken upcard too). ``drawn`` is the card ``turn``
    has just drawn (NO_CARD before its draw); taken from the pile, it is
    barred from the discard unless the rules allow it. ``styles`` are the
    game's public style counts so far (the ``V_STYLE`` slots of a view),
    ``log`` the hand's public log (its ``V_LOG_TURNS`` to ``V_LOG_END`` slots; ``NO_LOG``: not told).
    """
    board[:, :] = 0
    load_rules_nb(board, rules)
    players = rules[R_PLAYERS]
    start = N_CARDS - stock.shape[0] - 1  # the upcard, then the stock
    board[HIDDEN, S_DECK + start] = upcard
    for k in range(stock.shape[0]):
        board[HIDDEN, S_DECK + start + 1 + k] = stock[k]
    board[HIDDEN, S_STOCK_POS] = start
    for seat in range(players):
        board[HIDDEN, S_HANDS + seat] = hands[seat]
    start_hand_nb(board, dealer, hand_number, scores)  # turns the upcard over onto the pile
    first = 0
    if pile.shape[0] > 0 and pile[0] == upcard:
        first = 1
    else:
        pile_pop_nb(board)  # the upcard was taken: it is in a hand now
    for k in range(first, pile.shape[0]):
        pile_push_nb(board, pile[k])
    for seat in range(players):
        publish_nb(board, V_TAKEN + seat, taken[seat])
        publish_nb(board, V_DISCARDED + seat, discarded[seat])
        board[seat, V_MY_DRAWS] = my_draws[seat]
    for k in range(styles.shape[0]):
        publish_nb(board, V_STYLE + k, styles[k])
    for k in range(log.shape[0]):
        publish_nb(board, V_LOG_TURNS + k, log[k])
    for k in range(passes):
        publish_nb(board, V_PASSED + (dealer + 1 + k) % players, 1)
    publish_nb(board, V_DRAWS, draws)
    board[HIDDEN, S_TURN] = turn
    board[HIDDEN, S_PHASE] = phase
    board[HIDDEN, S_OFFERS] = passes  # the offers refused
    board[HIDDEN, S_FIRST_TAKER] = first_taker_nb(players, dealer, passes, phase)
    board[turn, V_DRAWN] = drawn
    if drawn != NO_CARD and taken[turn] >> drawn & 1 and rules[R_DISCARD_TAKEN_CARD] == 0:
        board[turn, V_FORBIDDEN] = drawn
