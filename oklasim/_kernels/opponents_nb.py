"""What a seat knows and fears of its opponents: the cards they hold for sure, the cards never seen, the danger
of a discard, the layoffs an arrangement offers, their expected deadwood and the risk of an undercut.

Part of the strategy kit (``kit_nb``: the seat's own hand and discards), shared by the strategy library through
``oklasim.strategy_api``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .cards_nb import BIT, FULL_DECK, MAX_CARD_VALUE, MEAN_CARD_VALUE, count_cards_nb, high_card_key_nb
from .kit_nb import in_any_meld_nb, meld_outs_nb, min_deadwood_discards_nb, neighbours_nb, nth_card_nb
from .layout import (
    MAX_SEATS,
    NO_CARD,
    R_HAND_SIZE,
    SHOWN_BITS,
    SHOWN_DEADWOOD_SHIFT,
    SHOWN_DRAWS_SHIFT,
    SHOWN_FIELD_MASK,
    SHOWN_KNOCKED_SHIFT,
    SHOWN_MAX_DRAWS,
    SHOWN_PER_SLOT,
    SHOWN_PRESENT_SHIFT,
    SHOWN_SLOTS,
    STYLE_FIELDS,
    STYLE_GINS,
    STYLE_HELD,
    STYLE_KNOCKS,
    STYLE_SHOWN,
    V_ARRANGEMENTS,
    V_DISCARDED,
    V_DRAWS,
    V_HAND,
    V_MY_DRAWS,
    V_N_ARRANGEMENTS,
    V_PASSED,
    V_PILE_MASK,
    V_PLAYERS,
    V_RULES,
    V_SEAT,
    V_STYLE,
    V_TAKEN,
    V_UPCARD,
)
from .melds_nb import MAX_MELDS_IN_ARRANGEMENT, deadwood_nb, hand_value_nb, layable_nb


@njit(cache=True)
def opponents_known_nb(view):
    """Cards the other seats took from the pile and have not thrown back: known to be in their hands.

    Exact with two players; with more, a card passed on between opponents
    counts once for each of them (the union is what it returns).
    """
    known = np.int64(0)
    for seat in range(view[V_PLAYERS]):
        if seat != view[V_SEAT]:
            known |= view[V_TAKEN + seat]
    return known & ~view[V_PILE_MASK] & ~view[V_HAND]


@njit(cache=True)
def unseen_nb(view):
    """Cards this seat has never seen: not in its hand, not in the pile, not known in another hand."""
    return FULL_DECK & ~view[V_HAND] & ~view[V_PILE_MASK] & ~opponents_known_nb(view)


@njit(cache=True)
def opponent_draws_nb(view):
    """Draws made this hand by each other seat, on average (exact with two players)."""
    others = view[V_PLAYERS] - 1
    return (view[V_DRAWS] - view[V_MY_DRAWS]) / max(others, 1)


@njit(cache=True)
def opponents_holding_nb(view, prior, weight):
    """Chance the opponents play for gin, holding hands they could knock with, from the game's showdowns so far.

    The mean of a Beta posterior: ``prior`` worth ``weight`` showdowns, then
    each hand an opponent ended by gin (``STYLE_GINS``) or showed a knockable
    hand it held (``STYLE_HELD``) for, and each hand it ended by a knock
    short of gin (``STYLE_KNOCKS``) against, the opponents pooled. A player
    that knocks whenever it can ends few hands by gin (``eaai``: about 1 in
    25 of its wins under the ``eaai`` rules) and scores near 0 after a few
    hands; one that holds for gin near 1.
    """
    held, knocks = 0, 0
    for seat in range(view[V_PLAYERS]):
        if seat != view[V_SEAT]:
            style = V_STYLE + STYLE_FIELDS * seat
            held += view[style + STYLE_HELD] + view[style + STYLE_GINS]
            knocks += view[style + STYLE_KNOCKS]
    return (held + prior * weight) / (held + knocks + weight) if held + knocks + weight > 0 else prior


MAX_KNOCK_THRESHOLD = MAX_CARD_VALUE  # the highest knock limit (an upcard's value, or the fixed limit): every knock
TIE_BREAK = 1e-9  # per draw or point from the prior timing: far below any difference a showing makes


@njit(cache=True)
def opponents_showings_nb(view):
    """The opponents' showings this game (``STYLE_SHOWN``), a row each: own draws, deadwood, 1 if it knocked."""
    rows = np.empty((MAX_SEATS * SHOWN_SLOTS * SHOWN_PER_SLOT, 3), dtype=np.int64)
    n = 0
    for seat in range(view[V_PLAYERS]):
        if seat == view[V_SEAT]:
            continue
        for k in range(SHOWN_SLOTS):
            packed = view[V_STYLE + STYLE_FIELDS * seat + STYLE_SHOWN + k]
            for position in range(SHOWN_PER_SLOT):
                showing = packed >> (SHOWN_BITS * position)
                if (showing >> SHOWN_PRESENT_SHIFT) & 1 == 0:
                    break
                rows[n, 0] = (showing >> SHOWN_DRAWS_SHIFT) & SHOWN_FIELD_MASK
                rows[n, 1] = (showing >> SHOWN_DEADWOOD_SHIFT) & SHOWN_FIELD_MASK
                rows[n, 2] = (showing >> SHOWN_KNOCKED_SHIFT) & 1
                n += 1
    return rows[:n]


@njit(cache=True, inline="always")
def knock_timing_log_likelihood_nb(switch, threshold, showing, keep, swerve):
    """Log chance of a showing (draws, deadwood, knocked) under the timing (switch, threshold): keep when it knocked
    a hand the timing knocks (draws <= switch, or deadwood <= threshold) or held one it holds, else swerve."""
    knocks = showing[0] <= switch or showing[1] <= threshold
    return keep if knocks == (showing[2] == 1) else swerve


@njit(cache=True)
def opponents_knock_timing_nb(view, prior_switch, prior_threshold, weight, slip):
    """The knock timing of the opponents, fitted to the knocks and held hands their showdowns showed this game.

    A family of timings (switch S from 0 to SHOWN_MAX_DRAWS, threshold T from 0
    to MAX_KNOCK_THRESHOLD): a player that knocks whenever legal up to its
    S-th own draw, after it only with deadwood at most T (T = 0: only gin),
    and holds every other knockable hand; each choice goes the other way with
    chance ``slip``. S = SHOWN_MAX_DRAWS knocks whenever legal at any draw, as
    does T = MAX_KNOCK_THRESHOLD. Each showing (``opponents_showings_nb``: its
    draws, its deadwood, knocked or held) weighs the timings; the prior is
    worth ``weight`` showdowns of a player of timing (``prior_switch``,
    ``prior_threshold``): a knock with the highest deadwood at
    ``prior_switch`` draws, and one draw later a hand held with one point
    above ``prior_threshold`` and (for a threshold above 0) a knock at it.
    Returns the likeliest timing (the posterior mode), the opponents pooled;
    among equally likely ones the nearest the prior (fewest draws and
    points apart): a timing the showings do not tell apart from the prior
    stays the prior.
    """
    shown = opponents_showings_nb(view)
    prior = np.array([[prior_switch, MAX_KNOCK_THRESHOLD, 1], [prior_switch + 1, prior_threshold + 1, 0],
                      [prior_switch + 1, prior_threshold, 1]], dtype=np.int64)
    prior_shown = 3 if prior_threshold > 0 else 2
    keep, swerve = np.log(1.0 - slip), np.log(slip)
    best, best_switch, best_threshold = -np.inf, prior_switch, prior_threshold
    for switch in range(SHOWN_MAX_DRAWS + 1):
        for threshold in range(MAX_KNOCK_THRESHOLD + 1):
            total = 0.0
            for row in range(prior_shown):
                total += weight * knock_timing_log_likelihood_nb(switch, threshold, prior[row], keep, swerve)
            for row in range(len(shown)):
                total += knock_timing_log_likelihood_nb(switch, threshold, shown[row], keep, swerve)
            total -= TIE_BREAK * (abs(switch - prior_switch) + abs(threshold - prior_threshold))
            if total > best:
                best, best_switch, best_threshold = total, switch, threshold
    return best_switch, best_threshold


@njit(cache=True)
def unseen_in_hands_fraction_nb(view):
    """Chance that a given unseen card is in some opponent's hand (the rest are in the stock)."""
    unknown_in_hands = (view[V_PLAYERS] - 1) * view[V_RULES + R_HAND_SIZE] - count_cards_nb(opponents_known_nb(view))
    unseen = count_cards_nb(unseen_nb(view))
    return min(max(unknown_in_hands, 0) / unseen, 1.0) if unseen > 0 else 0.0


@njit(cache=True)
def arrangement_exposure_nb(view, row, known, unseen, unseen_weight):
    """Value the opponents could lay off on arrangement ``row`` (at D_ARRANGE).

    Cards of ``known`` that fit (chains through ``known | unseen`` allowed)
    count their full value, cards of ``unseen`` ``unseen_weight`` times it.
    """
    start = V_ARRANGEMENTS + MAX_MELDS_IN_ARRANGEMENT * row
    melds = view[start : start + MAX_MELDS_IN_ARRANGEMENT]
    n = 0
    while n < MAX_MELDS_IN_ARRANGEMENT and melds[n] != 0:
        n += 1
    laid = layable_nb(melds, n, known | unseen)
    return hand_value_nb(laid & known) + unseen_weight * hand_value_nb(laid & unseen)


@njit(cache=True)
def least_exposed_arrangement_nb(view):
    """At D_ARRANGE: the arrangement leaving the least expected layoff value (ties: the first).

    Cards known in the opponents' hands count fully, unseen cards at the
    chance that they are in a hand rather than the stock.
    """
    known = opponents_known_nb(view)
    unseen = unseen_nb(view)
    weight = unseen_in_hands_fraction_nb(view)
    best, best_row = 1e18, 0
    for row in range(view[V_N_ARRANGEMENTS]):
        exposure = arrangement_exposure_nb(view, row, known, unseen, weight)
        if exposure < best:
            best, best_row = exposure, row
    return best_row


@njit(cache=True)
def opponents_discards_nb(view):
    """Cards the other seats threw: their discards, and the first upcard for a seat that passed it."""
    thrown = np.int64(0)
    for seat in range(view[V_PLAYERS]):
        if seat != view[V_SEAT]:
            thrown |= view[V_DISCARDED + seat]
            if view[V_PASSED + seat]:
                thrown |= BIT << view[V_UPCARD]
    return thrown


@njit(cache=True)
def discard_danger_nb(card, known, unseen):
    """How much discarding ``card`` may help an opponent, from the cards it is known to hold.

    2 when the card completes or extends a meld with two known cards
    (``meld_outs_nb(known)``); 1 when it is of the rank, or of the suit within
    two ranks, of a known card and could still be melded with cards not in
    our hand or the pile; 0 otherwise.
    """
    bit = BIT << card
    if meld_outs_nb(known) & bit:
        return 2
    if neighbours_nb(known) & bit and in_any_meld_nb(known | unseen, card):
        return 1
    return 0


@njit(cache=True)
def scored_discard_nb(view, allowed, outs_weight, danger_weight, slack, safe_weight=0.0):
    """The discard minimising deadwood - outs_weight * live outs + danger_weight * danger - safe_weight * safe.

    Only discards within ``slack`` deadwood points of the least-deadwood one
    are considered. *Live outs* are the unseen cards that would meld with
    two cards of the hand kept (``meld_outs_nb``); *danger* is
    ``discard_danger_nb``; *safe* is 1 for a card of the rank of a card an
    opponent threw (discarded, or passed as the first upcard), or of its
    suit within two ranks (``neighbours_nb(opponents_discards_nb(view))``).
    Ties go to the highest card, so with zero weights and slack this is
    greedy's discard.
    """
    hand = view[V_HAND]
    least, _ = min_deadwood_discards_nb(hand, allowed)
    unseen = unseen_nb(view)
    known = opponents_known_nb(view)
    safe = neighbours_nb(opponents_discards_nb(view)) if safe_weight != 0 else np.int64(0)
    best, best_card, best_key = 1e18, NO_CARD, -1
    rest = allowed & hand
    while rest:
        bit = rest & -rest
        rest ^= bit
        dw = deadwood_nb(hand ^ bit)
        if dw > least + slack:
            continue
        card = nth_card_nb(bit, 0)
        score = float(dw)
        if outs_weight != 0:
            score -= outs_weight * count_cards_nb(meld_outs_nb(hand ^ bit) & unseen)
        if danger_weight != 0 and known != 0:
            score += danger_weight * discard_danger_nb(card, known, unseen)
        if safe & bit:
            score -= safe_weight
        key = high_card_key_nb(card)
        if score < best or (score == best and key > best_key):
            best, best_card, best_key = score, card, key
    return best_card


# Opponent deadwood model of ``undercut_risk_nb``, fitted to greedy-vs-greedy hands
# (defender deadwood after layoffs against its own draws, 300,000 hands).


OPPONENT_DEADWOOD_CARDS = 7.5  # expected deadwood at the deal = this many unseen cards of average value
OPPONENT_DRAWS_SCALE = 6.5  # ... shrinking by a factor e every this many opponent draws


@njit(cache=True)
def expected_opponent_deadwood_nb(view):
    """A rough estimate of an opponent's deadwood after layoffs.

    OPPONENT_DEADWOOD_CARDS * (mean value of the unseen cards) *
    exp(-opponent draws / OPPONENT_DRAWS_SCALE): the opponent's unmatched cards
    look like the cards we have not seen, and melds eat them at the rate
    measured in greedy self-play.
    """
    unseen = unseen_nb(view)
    n = count_cards_nb(unseen)
    mean_value = hand_value_nb(unseen) / n if n > 0 else MEAN_CARD_VALUE
    return OPPONENT_DEADWOOD_CARDS * mean_value * np.exp(-opponent_draws_nb(view) / OPPONENT_DRAWS_SCALE)


@njit(cache=True)
def undercut_risk_nb(view, deadwood):
    """Estimated chance that a knock with ``deadwood`` is undercut (0 for gin).

    The opponent's deadwood D is taken as Gamma(2) distributed around
    ``expected_opponent_deadwood_nb`` (the shape fits the measured
    distribution well from about 8 draws on); the risk is P(D <= deadwood).
    """
    if deadwood <= 0:
        return 0.0
    mean = expected_opponent_deadwood_nb(view)
    if mean <= 0:
        return 1.0
    x = 2.0 * deadwood / mean
    return 1.0 - np.exp(-x) * (1.0 + x)
