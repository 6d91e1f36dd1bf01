"""The research environment's kernels: the actions, and the observation and mask of a seat's view.

The encoding is documented plane by plane in ``oklasim/env/__init__.py``; the
constants here are its single source. Everything a seat is shown is computed
from its view row alone (``layout.V_*``) and the decision it is asked, never
from the hidden row or another seat's row, so an observation cannot leak.

N games at once: ``env_vector_nb``. Both are kept apart from ``engine_nb`` so
that editing them never recompiles the engine.
"""

from __future__ import annotations

import numpy as np
from numba import int8, int64, njit

from . import engine_nb as E
from .cards_nb import BIT, FULL_DECK, N_CARDS, N_SUITS, count_cards_nb
from .layout import (
    BIG_GIN,
    D_ARRANGE,
    D_DISCARD,
    D_DRAW,
    D_KNOCK,
    D_TAKE_UPCARD,
    LOG_PILE,
    MAX_ARRANGEMENTS,
    MAX_LOG_TURNS,
    MAX_SEATS,
    NO_CARD,
    R_TARGET_SCORE,
    V_ARRANGEMENTS,
    V_BIG_GIN,
    V_DEALER,
    V_DISCARDED,
    V_DRAWS,
    V_FORBIDDEN,
    V_HAND,
    V_HAND_NUMBER,
    V_KNOCK_DISCARDS,
    V_KNOCK_LIMIT,
    V_LAST_CHANCE,
    V_LOG_TURNS,
    V_MULTIPLIER,
    V_MY_DRAWS,
    V_N_ARRANGEMENTS,
    V_PASSED,
    V_PILE,
    V_PILE_MASK,
    V_PILE_SIZE,
    V_PLAYERS,
    V_RULES,
    V_SCORES,
    V_SEAT,
    V_STOCK_LEFT,
    V_TAKEN,
    V_UPCARD,
)
from .linking import lazy_njit, stack_array_nb
from .melds_nb import MAX_MELDS_IN_ARRANGEMENT, run_suit_nb

# The layout below, as a number for provenance (a dataset's manifest): changed with any id or offset.
ENCODING_VERSION = 1

# -- Actions: one fixed id per answer of every decision the step machine asks -------------------------------
A_PASS = 0  # D_TAKE_UPCARD 0
A_TAKE = 1  # D_TAKE_UPCARD 1
A_STOCK = 2  # D_DRAW 0
A_PILE = 3  # D_DRAW 1
A_DISCARD = 4  # + card: D_DISCARD card
A_KNOCK = A_DISCARD + N_CARDS  # + card: D_KNOCK card (at the fiftieth card: take the last discard, knock with card)
A_BIG_GIN = A_KNOCK + N_CARDS  # D_KNOCK BIG_GIN
A_PLAY_ON = A_BIG_GIN + 1  # D_KNOCK NO_CARD: no knock (at the fiftieth card: leave the last discard, the hand is void)
A_ARRANGE = A_PLAY_ON + 1  # + k: D_ARRANGE k
A_WAIT = A_ARRANGE + MAX_ARRANGEMENTS  # the cycle view's answer of a seat that is not asked (oklasim.env.aec)
N_ACTIONS = A_WAIT + 1

# -- Observation: int8, card planes then scalars then the arrangements on offer ----------------------------
P_HAND = 0
P_PILE_TOP = 1
P_PILE_BELOW = 2  # depth under the top: 1 just below it, ...
P_UNSEEN = 3
P_HELD = 4  # + r: known in the hand of the seat r = 1..3 places to the left (r - 1)
P_THROWN = 7  # + r - 1: discarded by the seat r places to the left this hand
N_PLANES = 10
X = N_PLANES * N_CARDS  # the scalars
X_KIND = X  # 5 slots: one-hot decision asked (D_TAKE_UPCARD .. D_ARRANGE), all 0 when none
X_LAST_CHANCE = X + 5
X_BIG_GIN = X + 6
X_KNOCK_LIMIT = X + 7
X_MULTIPLIER = X + 8
X_STOCK = X + 9
X_PILE_SIZE = X + 10
X_DRAWS = X + 11
X_MY_DRAWS = X + 12
X_N_ARRANGEMENTS = X + 13
X_SEAT = X + 14  # 4 slots: one-hot own seat
X_DEALER = X + 18  # 4 slots: one-hot places from me to the dealer (0: I deal)
X_PLAYERS = X + 22  # 3 slots: one-hot 2, 3, 4 players
X_SCORES = X + 25  # 4 slots: game scores from me to the left, in percent of the target (capped at 127)
X_PASSED = X + 29  # 4 slots: passed the first upcard, from me to the left
X_HAND_NUMBER = X + 33
N_SCALARS = 34
X_ARRANGEMENTS = X + N_SCALARS  # MAX_ARRANGEMENTS x MAX_MELDS_IN_ARRANGEMENT melds x 3 (kind, rank, spread)
MELD_FIELDS = 3
OBS_SIZE = X_ARRANGEMENTS + MAX_ARRANGEMENTS * MAX_MELDS_IN_ARRANGEMENT * MELD_FIELDS
OBS_HIGH = 127
COUNT_CAP = 127
N_RANKS = 13


@njit(cache=True, inline="always")
def capped_nb(value):
    return min(max(value, 0), COUNT_CAP)


@njit(cache=True)
def known_held_nb(view, held):
    """Cards each seat is known to hold (``held`` by seat), from the hand's public log: each card taken from the
    pile stays known in the taker's hand until it throws it. A seat holds exactly the cards it took and never threw,
    unless it threw a card and took it again (or the reverse): only then is the log replayed, the pile rebuilt from
    the first upcard (a hand longer than the log, only through the draw guard, keeps the taken-never-thrown rule)."""
    for seat in range(MAX_SEATS):
        held[seat] = 0
    turns = view[V_LOG_TURNS]
    retaken = False
    for seat in range(view[V_PLAYERS]):
        retaken |= (view[V_TAKEN + seat] & view[V_DISCARDED + seat]) != 0
    if turns > MAX_LOG_TURNS or not retaken:
        for seat in range(view[V_PLAYERS]):
            held[seat] = view[V_TAKEN + seat] & ~view[V_DISCARDED + seat]
    else:
        pile = stack_array_nb(1, N_CARDS, np.int64)[0]
        pile[0] = view[V_UPCARD]  # the pile starts with the first upcard
        size = 1
        for i in range(turns):
            seat, how, discard = E.log_turn_nb(view, i)
            if how == LOG_PILE:
                size -= 1
                held[seat] |= BIT << pile[size]
            if discard >= 0:
                held[seat] &= ~(BIT << discard)
                pile[size] = discard
                size += 1
    for seat in range(MAX_SEATS):
        held[seat] &= ~view[V_PILE_MASK] & ~view[V_HAND]
    held[view[V_SEAT]] = 0


SPREAD = np.array([[(byte >> k) & 1 for k in range(8)] for byte in range(256)], dtype=np.int8)  # a byte's bits


@njit(cache=True, inline="always")
def plane_nb(out, plane, mask):
    """Card plane ``plane``: 1 for each card of ``mask``, 0 for the others. Every byte is written, eight at a time
    from the table of a byte's bits (faster than setting the cards one by one: measured at a sixth of encoding)."""
    base = plane * N_CARDS
    for chunk in range(0, N_CARDS, 8):
        bits = SPREAD[(mask >> chunk) & 0xFF]
        for k in range(min(8, N_CARDS - chunk)):
            out[base + chunk + k] = bits[k]


@njit(cache=True)
def meld_fields_nb(meld, out, at):
    """(kind, rank, spread) of a meld: a set is (1, its rank, its suits as a 4-bit mask); a run in suit s is
    (2 + s, its lowest rank, its length)."""
    suit = run_suit_nb(meld)
    if suit >= 0:
        ranks = (meld >> (N_RANKS * suit)) & ((1 << N_RANKS) - 1)
        out[at] = 2 + suit
        out[at + 1] = count_cards_nb((ranks & -ranks) - 1)
        out[at + 2] = count_cards_nb(ranks)
    else:
        low = meld & -meld
        rank = count_cards_nb(low - 1) % N_RANKS
        suits = 0
        for s in range(N_SUITS):
            if meld >> (N_RANKS * s + rank) & 1:
                suits |= 1 << s
        out[at] = 1
        out[at + 1] = rank
        out[at + 2] = suits


@njit(cache=True)
def encode_nb(view, kind, out):
    """Write the observation of the seat whose row is ``view``, asked ``kind`` (D_NONE: nothing), into ``out``."""
    out[P_PILE_TOP * N_CARDS : P_UNSEEN * N_CARDS] = 0  # the other planes are written whole
    out[X:] = 0
    me = view[V_SEAT]
    players = view[V_PLAYERS]
    held = stack_array_nb(1, MAX_SEATS, np.int64)[0]
    known_held_nb(view, held)
    plane_nb(out, P_HAND, view[V_HAND])
    size = view[V_PILE_SIZE]
    for depth in range(size):
        out[P_PILE_BELOW * N_CARDS + view[V_PILE + size - 1 - depth]] = capped_nb(depth)
    if size > 0:
        top = view[V_PILE + size - 1]
        out[P_PILE_TOP * N_CARDS + top] = 1
        out[P_PILE_BELOW * N_CARDS + top] = 0
    known = view[V_HAND] | view[V_PILE_MASK]
    for r in range(1, MAX_SEATS):
        seat = (me + r) % players
        present = r < players  # the planes of seats a smaller table lacks are 0
        plane_nb(out, P_HELD + r - 1, held[seat] if present else 0)
        plane_nb(out, P_THROWN + r - 1, view[V_DISCARDED + seat] if present else 0)
        if present:
            known |= held[seat]
    plane_nb(out, P_UNSEEN, FULL_DECK & ~known)
    if 0 <= kind < 5:
        out[X_KIND + kind] = 1
    if kind == D_KNOCK:
        out[X_LAST_CHANCE] = view[V_LAST_CHANCE]
        out[X_BIG_GIN] = view[V_BIG_GIN]
    out[X_KNOCK_LIMIT] = view[V_KNOCK_LIMIT]
    out[X_MULTIPLIER] = view[V_MULTIPLIER]
    out[X_STOCK] = view[V_STOCK_LEFT]
    out[X_PILE_SIZE] = size
    out[X_DRAWS] = capped_nb(view[V_DRAWS])
    out[X_MY_DRAWS] = capped_nb(view[V_MY_DRAWS])
    out[X_SEAT + me] = 1
    out[X_DEALER + (view[V_DEALER] - me) % players] = 1
    out[X_PLAYERS + players - 2] = 1
    target = max(view[V_RULES + R_TARGET_SCORE], 1)
    for r in range(players):
        seat = (me + r) % players
        out[X_SCORES + r] = capped_nb(view[V_SCORES + seat] * 100 // target)
        out[X_PASSED + r] = view[V_PASSED + seat]
    out[X_HAND_NUMBER] = capped_nb(view[V_HAND_NUMBER])
    if kind == D_ARRANGE:
        count = min(view[V_N_ARRANGEMENTS], MAX_ARRANGEMENTS)
        out[X_N_ARRANGEMENTS] = count
        for k in range(count):
            for m in range(MAX_MELDS_IN_ARRANGEMENT):
                meld = view[V_ARRANGEMENTS + MAX_MELDS_IN_ARRANGEMENT * k + m]
                if meld != 0:
                    meld_fields_nb(meld, out, X_ARRANGEMENTS + MELD_FIELDS * (MAX_MELDS_IN_ARRANGEMENT * k + m))


@njit(cache=True)
def mask_nb(view, kind, out):
    """Write the legal actions of decision ``kind`` asked of the seat whose row is ``view`` (1 legal) into ``out``:
    the answers ``apply_nb`` accepts, read from what the step machine put in the row for the decision."""
    out[:] = 0
    if kind == D_TAKE_UPCARD:
        out[A_PASS] = 1
        out[A_TAKE] = 1
    elif kind == D_DRAW:
        out[A_STOCK] = 1
        out[A_PILE] = 1
    elif kind == D_DISCARD:
        hand = view[V_HAND]
        forbidden = view[V_FORBIDDEN]
        if forbidden >= 0:
            hand &= ~(BIT << forbidden)
        while hand:
            low = hand & -hand
            hand ^= low
            out[A_DISCARD + count_cards_nb(low - 1)] = 1
    elif kind == D_KNOCK:
        knocks = view[V_KNOCK_DISCARDS]
        while knocks:
            low = knocks & -knocks
            knocks ^= low
            out[A_KNOCK + count_cards_nb(low - 1)] = 1
        out[A_BIG_GIN] = 1 if view[V_BIG_GIN] != 0 else 0
        out[A_PLAY_ON] = 1
    elif kind == D_ARRANGE:
        for k in range(min(view[V_N_ARRANGEMENTS], MAX_ARRANGEMENTS)):
            out[A_ARRANGE + k] = 1


@njit(cache=True)
def answer_nb(kind, action):
    """The step machine's answer to ``kind`` that ``action`` stands for, or ``NO_ANSWER`` when it answers another
    decision."""
    if kind == D_TAKE_UPCARD and (action == A_PASS or action == A_TAKE):
        return action - A_PASS
    if kind == D_DRAW and (action == A_STOCK or action == A_PILE):
        return action - A_STOCK
    if kind == D_DISCARD and A_DISCARD <= action < A_DISCARD + N_CARDS:
        return action - A_DISCARD
    if kind == D_KNOCK:
        if A_KNOCK <= action < A_KNOCK + N_CARDS:
            return action - A_KNOCK
        if action == A_BIG_GIN:
            return BIG_GIN
        if action == A_PLAY_ON:
            return NO_CARD
    if kind == D_ARRANGE and A_ARRANGE <= action < A_ARRANGE + MAX_ARRANGEMENTS:
        return action - A_ARRANGE
    return NO_ANSWER


NO_ANSWER = -(2**40)


@njit(cache=True)
def action_nb(kind, answer):
    """The action id of the step machine's ``answer`` to ``kind`` (the inverse of ``answer_nb``; -1 if none)."""
    if kind == D_TAKE_UPCARD and 0 <= answer <= 1:
        return A_PASS + answer
    if kind == D_DRAW and 0 <= answer <= 1:
        return A_STOCK + answer
    if kind == D_DISCARD and 0 <= answer < N_CARDS:
        return A_DISCARD + answer
    if kind == D_KNOCK:
        if 0 <= answer < N_CARDS:
            return A_KNOCK + answer
        if answer == BIG_GIN:
            return A_BIG_GIN
        if answer == NO_CARD:
            return A_PLAY_ON
    if kind == D_ARRANGE and 0 <= answer < MAX_ARRANGEMENTS:
        return A_ARRANGE + answer
    return -1


# Python-facing entry points of fixed signatures (compiled once, cached).
ROW = int64[::1]


@lazy_njit(int64(ROW, int64, int8[::1], int8[::1]))
def observe_step(view, kind, obs, mask):
    encode_nb(view, kind, obs)
    mask_nb(view, kind, mask)
    return 0


@lazy_njit(int64(int64, int64))
def answer_step(kind, action):
    return answer_nb(kind, action)


@lazy_njit(int64(int64, int64))
def action_step(kind, answer):
    return action_nb(kind, answer)
