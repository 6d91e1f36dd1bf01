"""Worlds: one sample of the hidden cards (the opponent's hand and the stock order) seen from a view row.

World ``s`` depends only on ``(key, s)``, whatever the batch or the thread,
so that every candidate is played in the same worlds (common random numbers).
The played prior and its repairs model one opponent; with 3-4 players
(``deal_table_nb``) every opponent's unknown cards are uniform.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .advise_board_nb import draws_by_seat_nb, mid_hand_board_nb
from .cards_nb import BIT, FULL_DECK, N_CARDS, count_cards_nb
from .kit_nb import best_discard_nb, nth_card_nb
from .layout import (
    D_DISCARD,
    D_DRAW,
    D_KNOCK,
    D_TAKE_UPCARD,
    MAX_SEATS,
    N_RULE_FIELDS,
    NO_CARD,
    PHASE_DRAW,
    PHASE_FORCED_STOCK,
    PHASE_OFFER,
    R_HAND_SIZE,
    V_DEALER,
    V_DISCARDED,
    V_DRAWN,
    V_DRAWS,
    V_HAND,
    V_HAND_NUMBER,
    V_LOG_END,
    V_LOG_TURNS,
    V_MY_DRAWS,
    V_PASSED,
    V_PILE,
    V_PILE_MASK,
    V_PILE_SIZE,
    V_PLAYERS,
    V_RULES,
    V_SCORES,
    V_SEAT,
    V_STOCK_LEFT,
    V_STYLE,
    V_STYLE_END,
    V_TAKEN,
    V_UPCARD,
)
from .melds_nb import deadwood_after_discard_nb, deadwood_nb
from .rng_nb import below_nb, next_state_nb, shuffle_deck_nb, stream_state_nb

# -- the played prior (``sample_world_nb``) ------------------------------------------------
PRIOR_NO_KNOCK = 1  # drop worlds where the opponent could have knocked on its last turn
PRIOR_LAST_DISCARD = 2  # drop worlds where its last discard was not one leaving the least deadwood
PRIOR_PLAYED = PRIOR_NO_KNOCK | PRIOR_LAST_DISCARD
MAX_ATTEMPTS = 8
REPAIR_STEPS = 24


# -- worlds ---------------------------------------------------------------------------------


@njit(cache=True)
def list_unseen_nb(view, out, known, need):
    """The cards the seat cannot place, into ``out``; returns how many.

    ``known[s]`` gets the cards opponent ``s`` must hold: what it took from
    the pile and did not throw back (a card taken and discarded again is on
    the pile, or with the seat); ``need[s]`` how many more it holds.
    """
    me = view[V_SEAT]
    hand = view[V_HAND]
    pile = view[V_PILE_MASK]
    held = np.int64(0)
    known[:] = 0
    need[:] = 0
    for seat in range(view[V_PLAYERS]):
        if seat != me:
            known[seat] = view[V_TAKEN + seat] & ~pile & ~hand
            need[seat] = view[V_RULES + R_HAND_SIZE] - count_cards_nb(known[seat])
            held |= known[seat]
    rest = FULL_DECK & ~hand & ~pile & ~held
    n = 0
    for card in range(N_CARDS):
        if rest >> card & 1:
            out[n] = card
            n += 1
    return n


@njit(cache=True)
def deal_table_nb(key, sample, me, players, unseen, n_unseen, known, need, scratch, hands, stock):
    """World ``sample`` with several opponents: each holds its known cards and a uniform share of the unseen ones.

    ``hands[s]`` gets opponent ``s``'s hand; ``stock`` the rest, top first.
    """
    state = stream_state_nb(key, sample)
    for i in range(n_unseen):
        scratch[i] = unseen[i]
    shuffle_deck_nb(state, scratch[:n_unseen])
    pos = 0
    for seat in range(players):
        if seat == me:
            continue
        hands[seat] = known[seat]
        for _ in range(need[seat]):
            hands[seat] |= BIT << scratch[pos]
            pos += 1
    for i in range(n_unseen - pos):
        stock[i] = scratch[pos + i]


@njit(cache=True)
def template_nb(view, kind, board):
    """A board holding everything the seat knows, at its decision ``kind``; the hidden cards come per world."""
    me = view[V_SEAT]
    players = view[V_PLAYERS]
    hands = np.zeros(MAX_SEATS, dtype=np.int64)
    hands[me] = view[V_HAND]
    my_draws = draws_by_seat_nb(players, me, view[V_DRAWS], view[V_MY_DRAWS])
    passes = 0
    for seat in range(players):
        passes += view[V_PASSED + seat]
    phase = PHASE_DRAW
    if kind == D_TAKE_UPCARD:
        phase = PHASE_OFFER
    elif kind == D_DRAW and view[V_DRAWS] == 0 and passes == players:
        phase = PHASE_FORCED_STOCK
    drawn = view[V_DRAWN] if kind == D_KNOCK or kind == D_DISCARD else NO_CARD
    mid_hand_board_nb(board, view[V_RULES : V_RULES + N_RULE_FIELDS], view[V_DEALER], view[V_HAND_NUMBER],
                      view[V_SCORES : V_SCORES + MAX_SEATS], view[V_UPCARD], view[V_PILE : V_PILE + view[V_PILE_SIZE]],
                      np.zeros(view[V_STOCK_LEFT], dtype=np.int64), hands, view[V_TAKEN : V_TAKEN + MAX_SEATS],
                      view[V_DISCARDED : V_DISCARDED + MAX_SEATS], my_draws, passes, view[V_DRAWS], me, phase, drawn,
                      view[V_STYLE:V_STYLE_END], view[V_LOG_TURNS:V_LOG_END])


@njit(cache=True)
def repair_nb(hand, known, last, limit, flags, scratch, lo, hi, state):
    """Swap cards until the opponent's last discard fits ``hand``; returns (hand, state, fits).

    The opponent threw ``last`` holding ``hand`` plus ``last``. If another
    card was a better discard (``PRIOR_LAST_DISCARD``), it did not hold that
    card: swap it for the next unseen card. If it could have knocked
    (``PRIOR_NO_KNOCK``), swap a random unknown card. Unseen cards are taken
    in the order of ``scratch[lo:hi]``, round and round, skipping held ones.
    """
    free = hand & ~known
    if free == 0 or hi <= lo:
        return hand, state, False
    k = 0
    for _ in range(REPAIR_STEPS):
        with_last = hand | (BIT << last)
        best = deadwood_after_discard_nb(with_last)
        if flags & PRIOR_LAST_DISCARD and deadwood_nb(hand) > best:
            out = best_discard_nb(with_last, hand & ~known)
        elif flags & PRIOR_NO_KNOCK and best <= limit:
            state = next_state_nb(state)
            out = nth_card_nb(hand & ~known, below_nb(state, count_cards_nb(hand & ~known)))
        else:
            return hand, state, True
        card = NO_CARD
        for _ in range(hi - lo):  # the stock's cards at least are free: this finds one
            candidate = scratch[lo + k % (hi - lo)]
            k += 1
            if not hand >> candidate & 1:
                card = candidate
                break
        if card < 0:
            return hand, state, False
        hand = (hand & ~(BIT << out)) | (BIT << card)
    return hand, state, False


@njit(cache=True)
def improved_hand_nb(hand, known, cards, lo, hi):
    """``hand`` after the stock draws ``cards[lo:hi]``, each followed by the discard leaving the least deadwood
    (never a card in ``known``): the played prior's improvement (also for ``advise_guided_nb``)."""
    for i in range(lo, hi):
        hand |= BIT << cards[i]
        hand &= ~(BIT << best_discard_nb(hand, hand & ~known))
    return hand


@njit(cache=True)
def sample_world_nb(key, sample, unseen, n_unseen, known, need, draws, flags, last_discard, limit, scratch, stock):
    """World ``sample``: returns the opponent's hand; ``stock[:n_unseen - need]`` gets the stock, top first.

    ``draws < 0``: the opponent's unknown cards are uniform among the unseen
    ones. ``draws >= 0`` (the *played* prior): a uniform hand improved by
    ``draws`` stock draws, each followed by the discard leaving the least
    deadwood (never a card it is known to hold), as an opponent that played
    those turns would hold; its discards go back among the unseen cards and
    the stock is shuffled again. Then, when ``last_discard >= 0`` (the card
    it threw on its last turn), the hand is repaired (``repair_nb``) until,
    holding it plus that card, the opponent could not have knocked
    (``PRIOR_NO_KNOCK``: it did not, and the opponents modelled knock when
    they can) and that card was a discard leaving the least deadwood
    (``PRIOR_LAST_DISCARD``); a world still failing after ``REPAIR_STEPS``
    swaps is drawn again, up to ``MAX_ATTEMPTS`` times.
    ``benchmarks/advise_calibration.py`` measures how well worlds of this prior predict a knock's result.
    """
    state = stream_state_nb(key, sample)
    hand = known
    for attempt in range(MAX_ATTEMPTS):
        for i in range(n_unseen):
            scratch[i] = unseen[i]
        state = shuffle_deck_nb(state, scratch[:n_unseen])
        hand = known
        for i in range(need):
            hand |= BIT << scratch[i]
        if draws < 0:
            for i in range(n_unseen - need):
                stock[i] = scratch[need + i]
            return hand
        hand = improved_hand_nb(hand, known, scratch, need, need + min(draws, n_unseen - need))
        if last_discard < 0 or flags & (PRIOR_NO_KNOCK | PRIOR_LAST_DISCARD) == 0:
            break
        hand, state, fits = repair_nb(hand, known, last_discard, limit, flags, scratch, 0, n_unseen, state)
        if fits:
            break
    stock_of_rest_nb(hand, scratch, n_unseen, stock, state)
    return hand


@njit(cache=True)
def stock_of_rest_nb(hand, cards, n_cards, stock, state):
    """The cards of ``cards[:n_cards]`` that ``hand`` does not hold, shuffled into ``stock`` (top first)."""
    n = 0
    for i in range(n_cards):
        if not hand >> cards[i] & 1:
            stock[n] = cards[i]
            n += 1
    shuffle_deck_nb(state, stock[:n])


@njit(cache=True)
def played_prior_nb(view, kind):
    """``[draws, flags, last discard]`` of the played prior, exact from an engine view."""
    me = view[V_SEAT]
    opp = 1 - me
    opp_draws = view[V_DRAWS] - view[V_MY_DRAWS]
    last = NO_CARD
    if opp_draws > 0 and view[V_PILE_SIZE] + (1 if kind == D_KNOCK or kind == D_DISCARD else 0) > 0:
        drawn = view[V_DRAWN]
        if (kind == D_KNOCK or kind == D_DISCARD) and drawn >= 0 and view[V_TAKEN + me] >> drawn & 1:
            last = drawn  # I took its discard
        elif view[V_PILE_SIZE] > 0:
            last = view[V_PILE + view[V_PILE_SIZE] - 1]
    draws = max(opp_draws - count_cards_nb(view[V_TAKEN + opp]), 0)
    return np.array([draws, PRIOR_PLAYED, last], dtype=np.int64)
