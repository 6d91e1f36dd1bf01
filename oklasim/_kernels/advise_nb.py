"""Determinized Monte Carlo over one decision: sample the hidden cards, play each candidate out.

Everything starts from one seat's ``view`` row (layout ``V_*``), the same row
the engine hands a strategy, so the advisor (``oklasim.advise``) and the
``mc`` strategy share this code:

* ``candidates_nb`` lists the candidate actions of a decision as *columns*:
  a knock with a given discard and meld arrangement is settled at once by the
  showdown (``SHOWDOWN``); anything else is played on by the engine
  (``ROLLOUT``) with the seats' continuation strategies.
* A *world* is one sample of the hidden cards: the opponent's hand (the
  cards it is known to hold, plus unseen cards) and the order of the stock.
  World ``s`` depends only on ``(key, s)``; every column is played in the
  same worlds (common random numbers), whatever the batch or the thread.
* ``run_samples_nb`` plays worlds ``lo .. hi - 1`` for the active columns;
  ``advise_batch_nb`` is its GIL-free entry point for worker threads.
* ``mc_decide_nb`` is the body of the ``mc`` strategy.

Two players only: the showdown and the worlds assume one opponent.
The engine's kernels do the playing; nothing of the rules is restated here
beyond reading the hand record.
"""

from __future__ import annotations

import numpy as np
from numba import float64, int64, njit, types, uint64
from numba.core import cgutils
from numba.extending import intrinsic

from .engine_nb import (
    DECIDE_SIGNATURE,
    DECIDE_TYPE,
    STATUS_SIZE,
    ST_ERROR,
    after_draw_nb,
    deal_nb,
    draw_nb,
    first_offer_nb,
    knock_discards_nb,
    next_dealer_nb,
    play_hand_nb,
    score_pair_nb,
    seed_views_nb,
)
from .layout import (
    BIG_GIN,
    BOARD_ROWS,
    D_ARRANGE,
    D_DISCARD,
    D_DRAW,
    D_KNOCK,
    D_TAKE_UPCARD,
    E_NONE,
    ERROR_FIELDS,
    H_SEAT_POINTS,
    H_WINNER,
    HIDDEN,
    MAX_ARRANGEMENTS,
    MAX_HANDS_PER_GAME,
    MAX_PARAMS,
    MAX_SEATS,
    N_HAND_FIELDS,
    N_MEMORY,
    N_RULE_FIELDS,
    NO_CARD,
    OUT_TIE,
    OUT_UNDERCUT,
    PHASE_DRAW,
    PHASE_FORCED_STOCK,
    PHASE_OFFER,
    R_BIG_GIN,
    R_DISCARD_TAKEN_CARD,
    R_HAND_SIZE,
    R_TARGET_SCORE,
    S_DEALER,
    S_DECK,
    S_ERROR,
    S_FIRST_TAKER,
    S_HANDS,
    S_OFFERS,
    S_PHASE,
    S_RECORD,
    S_RULES,
    S_STOCK_POS,
    S_TURN,
    V_ARRANGEMENTS,
    V_BIG_GIN,
    V_DEALER,
    V_DISCARDED,
    V_DRAWN,
    V_DRAWS,
    V_FORBIDDEN,
    V_HAND,
    V_HAND_NUMBER,
    V_KNOCK_DISCARDS,
    V_KNOCK_LIMIT,
    V_LAST_CHANCE,
    V_MEMORY,
    V_MULTIPLIER,
    V_MY_DRAWS,
    V_N_ARRANGEMENTS,
    V_PASSED,
    V_PILE,
    V_PILE_MASK,
    V_PILE_SIZE,
    V_PLAYERS,
    V_RNG,
    V_RULES,
    V_SCORES,
    V_SEAT,
    V_SIZE,
    V_STOCK_LEFT,
    V_TAKEN,
    V_UPCARD,
)
from .kit_nb import best_discard_nb, count_cards_nb, nth_card_nb
from .melds_nb import card_value_nb, deadwood_after_discard_nb, deadwood_nb, layoff_deadwood_nb, optimal_arrangements_nb
from .rng_nb import N_CARDS, below_nb, next_state_nb, shuffle_deck_nb, stream_state_nb

BIT = np.int64(1)
FULL_DECK = (BIT << N_CARDS) - 1

# -- candidate columns: one int64 row each ------------------------------------------------
C_KIND = 0  # SHOWDOWN or ROLLOUT
C_PRE = 1  # PRE_*: what happens before the after-draw decision
C_DISCARD = 2  # knock discard (BIG_GIN for big gin) / forced discard of a rollout / -1: continuation decides
C_ACTION = 3  # columns of one action (a knock in several arrangements) share this index
C_HAND = 4  # showdown: the knocker's cards after the discard
C_DEADWOOD = 5  # showdown: the knocker's deadwood
C_ARRANGEMENT = 6  # showdown: index among the optimal arrangements
C_N_MELDS = 7
C_MELDS = 8  # 4 slots: the knocker's melds
N_CAND_FIELDS = 12
MAX_COLUMNS = 128
MAX_ARRANGEMENTS_PER_KNOCK = 8

SHOWDOWN = 0
ROLLOUT = 1

PRE_NONE = 0  # the seat has drawn already (11 cards)
PRE_PILE = 1  # take the top of the discard pile
PRE_STOCK = 2  # draw from the stock (the continuation strategy then decides)
PRE_TAKE = 3  # first turn: take the upcard
PRE_PASS = 4  # first turn: pass the upcard

# -- results per world and column ---------------------------------------------------------
O_POINTS = 0  # my points minus the opponent's in this hand
O_OUTCOME = 1  # WON_HAND, LOST_HAND or NO_SCORE
O_WIN = 2  # 1 if I win the game (game mode), else 0
O_UNDERCUT = 3  # 1 if a knock was undercut
N_OUT = 4
WON_HAND = 0
LOST_HAND = 1
NO_SCORE = 2

# -- codes returned besides the engine's E_* ----------------------------------------------
E_BAD_VIEW = 10  # the view's cards do not add up (advisor input checks make this unreachable)

# -- answers of the forced decider: a rollout's first decisions, read from its params -----
F_KNOCK = 0
F_DISCARD = 1
F_ARRANGE = 2
F_TAKE = 3

# -- parameters of the mc strategy (the order of its Family params) -----------------------
P_SAMPLES = 0
P_DISCARDS = 1
P_DRAWS = 2
P_CONTINUATION = 3
P_OPPONENT = 4
P_PRIOR = 5

# -- the played prior (``sample_world_nb``) ------------------------------------------------
PRIOR_NO_KNOCK = 1  # drop worlds where the opponent could have knocked on its last turn
PRIOR_LAST_DISCARD = 2  # drop worlds where its last discard was not one leaving the least deadwood
PRIOR_PLAYED = PRIOR_NO_KNOCK | PRIOR_LAST_DISCARD
MAX_ATTEMPTS = 8
REPAIR_STEPS = 24


@njit(DECIDE_SIGNATURE, cache=True)
def forced_nb(kind, view, params):
    """Plays the answers a rollout prescribes for the deciding seat's first decisions."""
    if kind == D_KNOCK:
        return int64(params[F_KNOCK])
    if kind == D_DISCARD:
        return int64(params[F_DISCARD])
    if kind == D_ARRANGE:
        return int64(params[F_ARRANGE])
    return int64(params[F_TAKE])


def decide_function(dispatcher):
    """An intrinsic returning ``dispatcher`` as a first-class DECIDE_TYPE value inside numba code.

    A jitted function that names a dispatcher as a value cannot be cached
    (numba embeds the Python object's address). This builds the value from
    the compiled code alone, linked statically, so the caller caches. The
    caller's cache then holds a copy of ``dispatcher``'s code: key it on the
    source of that code too (``oklasim.strategy_api.cache_depends_on``).
    """

    @intrinsic
    def as_function(typingctx):
        def codegen(context, builder, signature, args):
            cres = dispatcher.get_compile_result(DECIDE_SIGNATURE)
            llvoidptr = context.get_value_type(types.voidptr)
            value = cgutils.create_struct_proxy(DECIDE_TYPE)(context, builder)
            value.py_addr = llvoidptr(None)  # no Python object: the value is never boxed
            pointer_type = context.get_value_type(DECIDE_TYPE.ftype)
            wrapper = cgutils.get_or_insert_function(
                builder.module, pointer_type.pointee, cres.fndesc.llvm_cfunc_wrapper_name
            )
            value.c_addr = builder.bitcast(wrapper, llvoidptr)
            value.jit_addr = builder.bitcast(context.declare_function(builder.module, cres.fndesc), llvoidptr)
            context.active_code_library.add_linking_library(cres.library)
            return value._getvalue()

        return DECIDE_TYPE(), codegen

    return as_function


# -- candidates -----------------------------------------------------------------------------


@njit(cache=True)
def add_column_nb(out, n, kind, pre, discard, action):
    if n >= out.shape[0]:
        return n
    out[n, :] = 0
    out[n, C_KIND] = kind
    out[n, C_PRE] = pre
    out[n, C_DISCARD] = discard
    out[n, C_ACTION] = action
    return n + 1


@njit(cache=True)
def add_knock_nb(out, n, pre, discard, hand, action, arrangements, per_knock):
    """Columns of one knock: one per optimal arrangement of ``hand`` (one for gin: nothing is laid off)."""
    dw = deadwood_nb(hand)
    count = min(optimal_arrangements_nb(hand, arrangements), arrangements.shape[0])
    if dw == 0:
        count = 1
    for a in range(min(count, per_knock)):
        if n >= out.shape[0]:
            break
        n = add_column_nb(out, n, SHOWDOWN, pre, discard, action)
        row = out[n - 1]
        row[C_HAND] = hand
        row[C_DEADWOOD] = dw
        row[C_ARRANGEMENT] = a
        melds = 0
        for k in range(4):
            row[C_MELDS + k] = arrangements[a, k]
            if arrangements[a, k] != 0:
                melds += 1
        row[C_N_MELDS] = melds
    return n


@njit(cache=True)
def sensible_discards_nb(hand, allowed, limit, out):
    """Up to ``out.shape[0]`` discards of ``allowed``, best first: least deadwood left, then highest card.

    Returns how many were written.
    """
    keys = np.empty(11, dtype=np.int64)
    cards = np.empty(11, dtype=np.int64)
    n = 0
    rest = allowed & hand
    while rest and n < 11:
        low = rest & -rest
        rest ^= low
        card = 0
        while (BIT << card) != low:
            card += 1
        keys[n] = deadwood_nb(hand ^ low) * 4096 + (10 - card_value_nb(card)) * 256 + (51 - card)
        cards[n] = card
        n += 1
    written = 0
    while written < min(limit, out.shape[0]) and written < n:
        best = written
        for i in range(written + 1, n):
            if keys[i] < keys[best]:
                best = i
        keys[written], keys[best] = keys[best], keys[written]
        cards[written], cards[best] = cards[best], cards[written]
        out[written] = cards[written]
        written += 1
    return written


@njit(cache=True)
def after_draw_candidates_nb(view, hand, forbidden, pre, knock_ok, continue_ok, max_continue, out, n, action):
    """Knocks (every legal discard, big gin) and continuations (sensible discards) of an 11-card hand."""
    arrangements = np.zeros((MAX_ARRANGEMENTS, 4), dtype=np.int64)
    if knock_ok:
        if view[V_RULES + R_BIG_GIN] != 0 and deadwood_nb(hand) == 0:
            n = add_knock_nb(out, n, pre, BIG_GIN, hand, action, arrangements, 1)
            action += 1
        knocks = knock_discards_nb(hand, view[V_KNOCK_LIMIT], forbidden)
        card = 0
        while knocks:
            if knocks & 1:
                rest = hand & ~(BIT << card)
                n = add_knock_nb(out, n, pre, card, rest, action, arrangements, MAX_ARRANGEMENTS_PER_KNOCK)
                action += 1
            knocks >>= 1
            card += 1
    if continue_ok and max_continue > 0:
        allowed = hand & ~(BIT << forbidden) if forbidden >= 0 else hand
        picks = np.empty(11, dtype=np.int64)
        for i in range(sensible_discards_nb(hand, allowed, max_continue, picks)):
            n = add_column_nb(out, n, ROLLOUT, pre, picks[i], action)
            action += 1
    return n, action


@njit(int64(int64[::1], int64, int64, int64[:, ::1]), cache=True)
def candidates_nb(view, kind, max_continue, out):
    """Write the candidate columns of decision ``kind`` for the seat of ``view``; returns how many.

    * ``D_KNOCK`` / ``D_DISCARD`` (11 cards, drawn): knocks with each legal discard
      (``D_KNOCK`` only), and playing on with up to ``max_continue`` sensible discards.
    * ``D_DRAW`` (10 cards): take the pile top, then knock or play on as above;
      or draw from the stock and let the continuation strategy go on.
    * ``D_TAKE_UPCARD``: take the upcard (as above) or pass.
    """
    n, action = 0, 0
    hand = view[V_HAND]
    if kind == D_KNOCK or kind == D_DISCARD:
        last_chance = view[V_LAST_CHANCE] != 0
        n, action = after_draw_candidates_nb(
            view, hand, view[V_FORBIDDEN], PRE_NONE, kind == D_KNOCK, not last_chance, max_continue, out, n, action
        )
        return n
    forced_stock = kind == D_DRAW and view[V_DRAWS] == 0 and view[V_PASSED] != 0 and view[V_PASSED + 1] != 0
    if view[V_PILE_SIZE] > 0 and not forced_stock:
        top = view[V_PILE + view[V_PILE_SIZE] - 1]
        forbidden = top if view[V_RULES + R_DISCARD_TAKEN_CARD] == 0 else NO_CARD
        pre = PRE_TAKE if kind == D_TAKE_UPCARD else PRE_PILE
        n, action = after_draw_candidates_nb(
            view, hand | (BIT << top), forbidden, pre, True, True, max_continue, out, n, action
        )
    n = add_column_nb(out, n, ROLLOUT, PRE_PASS if kind == D_TAKE_UPCARD else PRE_STOCK, -1, action)
    return n


# -- worlds ---------------------------------------------------------------------------------


@njit(cache=True)
def unseen_nb(view, out):
    """The cards the seat cannot place, into ``out``; returns (count, opponent's known cards, cards it still needs).

    The opponent holds what it took from the pile and did not throw back
    (a card taken and discarded again is on the pile, or with the seat).
    """
    me = view[V_SEAT]
    opp = 1 - me
    hand = view[V_HAND]
    pile = view[V_PILE_MASK]
    known = view[V_TAKEN + opp] & ~pile & ~hand
    rest = FULL_DECK & ~hand & ~pile & ~known
    n = 0
    for card in range(N_CARDS):
        if rest >> card & 1:
            out[n] = card
            n += 1
    need = view[V_RULES + R_HAND_SIZE] - count_cards_nb(known)
    return n, known, need


@njit(cache=True)
def template_nb(view, kind, board):
    """A board holding everything the seat knows, at its decision ``kind``; the hidden cards come per world."""
    board[:, :] = 0
    me = view[V_SEAT]
    opp = 1 - me
    for k in range(V_SIZE):
        board[me, k] = view[k]
    for k in range(N_MEMORY):
        board[me, V_MEMORY + k] = 0  # the continuation strategy starts with a blank memory
    board[me, V_KNOCK_DISCARDS] = 0
    board[me, V_BIG_GIN] = 0
    board[me, V_LAST_CHANCE] = 0
    board[me, V_N_ARRANGEMENTS] = 0
    theirs = board[opp]
    for slot in (V_PLAYERS, V_DEALER, V_HAND_NUMBER, V_UPCARD, V_KNOCK_LIMIT, V_MULTIPLIER, V_STOCK_LEFT, V_PILE_SIZE,
                 V_DRAWS, V_PILE_MASK):
        theirs[slot] = view[slot]
    for k in range(MAX_SEATS):
        theirs[V_SCORES + k] = view[V_SCORES + k]
        theirs[V_TAKEN + k] = view[V_TAKEN + k]
        theirs[V_DISCARDED + k] = view[V_DISCARDED + k]
        theirs[V_PASSED + k] = view[V_PASSED + k]
    for k in range(N_RULE_FIELDS):
        theirs[V_RULES + k] = view[V_RULES + k]
        board[HIDDEN, S_RULES + k] = view[V_RULES + k]
    for k in range(view[V_PILE_SIZE]):
        theirs[V_PILE + k] = view[V_PILE + k]
    theirs[V_SEAT] = opp
    theirs[V_MY_DRAWS] = max(view[V_DRAWS] - view[V_MY_DRAWS], 0)
    theirs[V_DRAWN] = NO_CARD
    theirs[V_FORBIDDEN] = NO_CARD
    board[HIDDEN, S_DEALER] = view[V_DEALER]
    board[HIDDEN, S_TURN] = me
    board[HIDDEN, S_PHASE] = PHASE_DRAW
    if kind == D_TAKE_UPCARD:
        board[HIDDEN, S_PHASE] = PHASE_OFFER
        board[HIDDEN, S_OFFERS] = view[V_PASSED] + view[V_PASSED + 1]
    elif kind == D_DRAW and view[V_DRAWS] == 0 and view[V_PASSED] != 0 and view[V_PASSED + 1] != 0:
        board[HIDDEN, S_PHASE] = PHASE_FORCED_STOCK
    board[HIDDEN, S_STOCK_POS] = N_CARDS - view[V_STOCK_LEFT]
    board[HIDDEN, S_FIRST_TAKER] = -1
    board[HIDDEN, S_HANDS + me] = view[V_HAND]


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
    ``experiments/advise_prior_calibration.py`` measures what each step buys.
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
        used = need + min(draws, n_unseen - need)
        for i in range(need, used):
            hand |= BIT << scratch[i]
            hand &= ~(BIT << best_discard_nb(hand, hand & ~known))
        if last_discard < 0 or flags & (PRIOR_NO_KNOCK | PRIOR_LAST_DISCARD) == 0:
            break
        hand, state, fits = repair_nb(hand, known, last_discard, limit, flags, scratch, 0, n_unseen, state)
        if fits:
            break
    n = 0
    for i in range(n_unseen):
        if not hand >> scratch[i] & 1:
            stock[n] = scratch[i]
            n += 1
    shuffle_deck_nb(state, stock[:n])
    return hand


# -- playing a column in a world --------------------------------------------------------------


@njit(cache=True)
def showdown_nb(board, column, opp_hand):
    """(outcome code, my points, the opponent's points) of a knock column against ``opp_hand``."""
    dw_knocker = column[C_DEADWOOD]
    gin = dw_knocker == 0
    if gin:
        dw = deadwood_nb(opp_hand)
    else:
        dw, _ = layoff_deadwood_nb(column[C_MELDS : C_MELDS + 4], column[C_N_MELDS], opp_hand)
    big_gin = column[C_DISCARD] == BIG_GIN
    return score_pair_nb(board, dw_knocker, dw, gin, big_gin, board[0, V_MULTIPLIER])


@njit(cache=True)
def seat_tuple_nb(me, mine, theirs):
    """The four-seat decider tuple with ``mine`` at seat ``me`` (two players)."""
    if me == 0:
        return (mine, theirs, mine, theirs)
    return (theirs, mine, theirs, mine)


@njit(cache=True)
def rollout_nb(work, me, column, taken, cont, forced, params, forced_params, arrangements, trace, status):
    """Play a rollout column on ``work`` (a world's board) to the end of the hand; returns a status."""
    pre = column[C_PRE]
    opp = 1 - me
    if pre == PRE_PASS:
        forced_params[me, F_TAKE] = 0
        error, _ = first_offer_nb(work, forced, forced_params, me, trace, status)
        if error:
            return error
        return play_hand_nb(work, cont, params, arrangements, trace, status)
    if pre == PRE_TAKE:
        forced_params[me, F_TAKE] = 1
        error, _ = first_offer_nb(work, forced, forced_params, me, trace, status)
        if error:
            return error
        taken = draw_nb(work, me, True)
    elif pre == PRE_PILE:
        taken = draw_nb(work, me, True)
    elif pre == PRE_STOCK:
        draw_nb(work, me, False)
        taken = NO_CARD
    if column[C_DISCARD] >= 0:
        forced_params[me, F_KNOCK] = NO_CARD
        forced_params[me, F_DISCARD] = column[C_DISCARD]
        error, over = after_draw_nb(work, forced, forced_params, me, taken, arrangements, trace, status)
    else:
        error, over = after_draw_nb(work, cont, params, me, taken, arrangements, trace, status)
    if error or over:
        return error
    work[HIDDEN, S_PHASE] = PHASE_DRAW
    work[HIDDEN, S_TURN] = opp
    return play_hand_nb(work, cont, params, arrangements, trace, status)


@njit(cache=True)
def play_rest_nb(board, deciders, params, scores, dealer, hand_number, deck_rng, arrangements, trace, status):
    """Deal and play hands from ``scores`` until one reaches the target. Returns (status, winner).

    The game's loop of ``play_game_nb`` without its records: the chance to
    win from a score needs only who gets there first.
    """
    players = 2
    hands = 0
    while hands < MAX_HANDS_PER_GAME:
        top = scores[0]
        for seat in range(1, players):
            top = max(top, scores[seat])
        if top >= board[HIDDEN, S_RULES + R_TARGET_SCORE]:
            break
        deck_rng = deal_nb(board, dealer, hand_number, scores, deck_rng)
        error = play_hand_nb(board, deciders, params, arrangements, trace, status)
        if error:
            return error, -1
        record = board[HIDDEN, S_RECORD : S_RECORD + N_HAND_FIELDS]
        for seat in range(players):
            scores[seat] += record[H_SEAT_POINTS + seat]
        dealer = next_dealer_nb(board, record, dealer)
        hand_number += 1
        hands += 1
    winner = 0
    for seat in range(1, players):
        if scores[seat] > scores[winner]:
            winner = seat
    return E_NONE, winner


@njit(cache=True)
def run_samples_nb(
    view, kind, cand, n_cand, active, key, game_mode, prior, lo, hi, me_fn, opp_fn, forced_fn, params, out, status
):
    """Play worlds ``lo .. hi - 1`` for the active columns into ``out[s - lo, column, O_*]``.

    ``params`` is the (MAX_SEATS, MAX_PARAMS) matrix of the continuation
    strategies, row ``V_SEAT`` for the deciding seat's. ``prior`` is
    ``[draws, flags, last discard]`` of ``sample_world_nb``. Returns a status
    (the engine's error fields go to ``status[ST_ERROR:]``).
    """
    me = view[V_SEAT]
    opp = 1 - me
    template = np.empty((BOARD_ROWS, V_SIZE), dtype=np.int64)
    template_nb(view, kind, template)
    work = np.empty((BOARD_ROWS, V_SIZE), dtype=np.int64)
    arrangements = np.zeros((MAX_ARRANGEMENTS, 4), dtype=np.int64)
    trace = np.zeros((0, 6), dtype=np.int64)
    unseen = np.empty(N_CARDS, dtype=np.int64)
    scratch = np.empty(N_CARDS, dtype=np.int64)
    stock = np.empty(N_CARDS, dtype=np.int64)
    n_unseen, known, need = unseen_nb(view, unseen)
    if need < 0 or n_unseen - need != view[V_STOCK_LEFT]:
        return E_BAD_VIEW
    cont = seat_tuple_nb(me, me_fn, opp_fn)
    forced = seat_tuple_nb(me, forced_fn, opp_fn)
    forced_params = params.copy()
    record = np.zeros(N_HAND_FIELDS, dtype=np.int64)
    scores = np.zeros(MAX_SEATS, dtype=np.int64)
    view_key = key ^ 0x2545F4914F6CDD1D
    deck_key = key ^ 0x1B873593
    taken0 = view[V_FORBIDDEN] if kind == D_KNOCK or kind == D_DISCARD else NO_CARD
    for s in range(lo, hi):
        opp_hand = sample_world_nb(key, s, unseen, n_unseen, known, need, prior[0], prior[1], prior[2],
                                   view[V_KNOCK_LIMIT], scratch, stock)
        row = out[s - lo]
        for c in range(n_cand):
            if not active[c]:
                continue
            column = cand[c]
            if column[C_KIND] == SHOWDOWN:
                outcome, mine, theirs = showdown_nb(template, column, opp_hand)
                record[:] = 0
                record[H_SEAT_POINTS + me] = mine
                record[H_SEAT_POINTS + opp] = theirs
                record[H_WINNER] = -1 if outcome == OUT_TIE else (opp if outcome == OUT_UNDERCUT else me)
                row[c, O_UNDERCUT] = 1 if outcome == OUT_UNDERCUT else 0
                if game_mode:
                    work[:, :] = template
                    seed_views_nb(work, view_key, s)
            else:
                work[:, :] = template
                work[HIDDEN, S_HANDS + opp] = opp_hand
                work[opp, V_HAND] = opp_hand
                stock_pos = work[HIDDEN, S_STOCK_POS]
                for i in range(n_unseen - need):
                    work[HIDDEN, S_DECK + stock_pos + i] = stock[i]
                seed_views_nb(work, view_key, s)
                error = rollout_nb(
                    work, me, column, taken0, cont, forced, params, forced_params, arrangements, trace, status
                )
                if error:
                    status[ST_ERROR : ST_ERROR + ERROR_FIELDS] = work[HIDDEN, S_ERROR : S_ERROR + ERROR_FIELDS]
                    return error
                record[:] = work[HIDDEN, S_RECORD : S_RECORD + N_HAND_FIELDS]
                row[c, O_UNDERCUT] = 0
            mine = record[H_SEAT_POINTS + me]
            theirs = record[H_SEAT_POINTS + opp]
            winner = record[H_WINNER]
            row[c, O_POINTS] = mine - theirs
            row[c, O_OUTCOME] = WON_HAND if winner == me else (LOST_HAND if winner == opp else NO_SCORE)
            row[c, O_WIN] = 0
            if game_mode:
                for seat in range(MAX_SEATS):
                    scores[seat] = view[V_SCORES + seat]
                scores[me] += mine
                scores[opp] += theirs
                dealer = next_dealer_nb(work, record, view[V_DEALER])
                deck_rng = next_state_nb(stream_state_nb(deck_key, s))
                error, game_winner = play_rest_nb(
                    work, cont, params, scores, dealer, view[V_HAND_NUMBER] + 1, deck_rng, arrangements, trace, status
                )
                if error:
                    status[ST_ERROR : ST_ERROR + ERROR_FIELDS] = work[HIDDEN, S_ERROR : S_ERROR + ERROR_FIELDS]
                    return error
                row[c, O_WIN] = 1 if game_winner == me else 0
    return E_NONE


ADVISE_BATCH_SIGNATURE = int64(
    DECIDE_TYPE,
    DECIDE_TYPE,
    DECIDE_TYPE,
    float64[:, ::1],
    int64[::1],
    int64,
    int64[:, ::1],
    int64,
    int64[::1],
    int64,
    int64,
    int64[::1],
    int64,
    int64,
    int64[:, :, ::1],
    int64[::1],
)


@njit(ADVISE_BATCH_SIGNATURE, cache=True, nogil=True)
def advise_batch_nb(
    me_fn, opp_fn, forced_fn, params, view, kind, cand, n_cand, active, key, game_mode, prior, lo, hi, out, status
):
    """``run_samples_nb`` without the GIL, for the advisor's worker threads."""
    return run_samples_nb(
        view, kind, cand, n_cand, active, key, game_mode, prior, lo, hi, me_fn, opp_fn, forced_fn, params, out, status
    )


# -- the mc strategy ---------------------------------------------------------------------------


@njit(cache=True)
def arrangement_columns_nb(view, out):
    """One showdown column per arrangement the knocker is offered (decision D_ARRANGE)."""
    hand = view[V_HAND]
    dw = deadwood_nb(hand)
    n = 0
    for a in range(min(view[V_N_ARRANGEMENTS], out.shape[0])):
        n = add_column_nb(out, n, SHOWDOWN, PRE_NONE, NO_CARD, a)
        row = out[n - 1]
        row[C_HAND] = hand
        row[C_DEADWOOD] = dw
        row[C_ARRANGEMENT] = a
        melds = 0
        for k in range(4):
            row[C_MELDS + k] = view[V_ARRANGEMENTS + 4 * a + k]
            if row[C_MELDS + k] != 0:
                melds += 1
        row[C_N_MELDS] = melds
    return n


@njit(cache=True)
def answer_nb(kind, view, column):
    """The answer to decision ``kind`` that starts candidate ``column``."""
    if kind == D_ARRANGE:
        return column[C_ACTION]
    if kind == D_DRAW:
        return 1 if column[C_PRE] == PRE_PILE else 0
    if kind == D_TAKE_UPCARD:
        return 1 if column[C_PRE] == PRE_TAKE else 0
    if kind == D_KNOCK and column[C_KIND] == ROLLOUT:
        # Play on: remember the discard chosen with it for the D_DISCARD that follows.
        view[V_MEMORY] = column[C_DISCARD] + 1
        view[V_MEMORY + 1] = view[V_DRAWS]
        return NO_CARD
    return column[C_DISCARD]


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


CONTINUE_SIMPLE, CONTINUE_GREEDY, CONTINUE_EXPERT = 0, 1, 2  # codes of mc's continuation and opponent


@njit(cache=True)
def pick_continuation_nb(code, simple_fn, greedy_fn, expert_fn):
    if code == CONTINUE_EXPERT:
        return expert_fn
    return greedy_fn if code == CONTINUE_GREEDY else simple_fn


@njit(cache=True)
def mc_decide_nb(kind, view, params, simple_fn, greedy_fn, expert_fn, forced_fn, expert_params):
    """Determinized Monte Carlo: the candidate with the most points, averaged over sampled worlds.

    ``params``: samples per decision, sensible discards tried when playing
    on (0: only the continuation's own discard, and discards are left to
    it), whether draws are searched too (else the continuation strategy
    draws), the continuation strategy and the opponent model (0 = simple,
    1 = greedy, 2 = expert with ``expert_params``),
    and the prior of the worlds (0 = uniform, 1 = played: see ``sample_world_nb``).
    With more than two players it plays like its continuation strategy.
    """
    me = view[V_SEAT]
    rollout_params = np.zeros((MAX_SEATS, MAX_PARAMS), dtype=np.float64)
    cont_fn = pick_continuation_nb(params[P_CONTINUATION], simple_fn, greedy_fn, expert_fn)
    opp_fn = pick_continuation_nb(params[P_OPPONENT], simple_fn, greedy_fn, expert_fn)
    if params[P_CONTINUATION] == CONTINUE_EXPERT:
        rollout_params[me] = expert_params
    if params[P_OPPONENT] == CONTINUE_EXPERT:
        for seat in range(MAX_SEATS):
            if seat != me:
                rollout_params[seat] = expert_params
    own = rollout_params[me]
    if view[V_PLAYERS] != 2:  # the worlds and the showdown assume one opponent
        return cont_fn(kind, view, own)
    if (kind == D_DRAW or kind == D_TAKE_UPCARD) and params[P_DRAWS] == 0:
        return cont_fn(kind, view, own)
    if kind == D_DISCARD and view[V_MEMORY] > 0 and view[V_MEMORY + 1] == view[V_DRAWS]:
        card = view[V_MEMORY] - 1
        view[V_MEMORY] = 0
        if view[V_HAND] >> card & 1 and card != view[V_FORBIDDEN]:
            return card
    max_continue = int64(params[P_DISCARDS])
    if kind == D_DISCARD and max_continue == 0:
        return cont_fn(kind, view, own)
    cand = np.zeros((MAX_COLUMNS, N_CAND_FIELDS), dtype=np.int64)
    if kind == D_ARRANGE:
        n = arrangement_columns_nb(view, cand)
    elif kind == D_KNOCK and max_continue == 0:
        # Knock with each legal discard, or play on with the discard the continuation would make.
        hand, forbidden = view[V_HAND], view[V_FORBIDDEN]
        n, action = after_draw_candidates_nb(view, hand, forbidden, PRE_NONE, True, False, 0, cand, 0, 0)
        if view[V_LAST_CHANCE] == 0:
            n = add_column_nb(cand, n, ROLLOUT, PRE_NONE, cont_fn(D_DISCARD, view, own), action)
    else:
        n = candidates_nb(view, kind, max(max_continue, 1), cand)
    if n == 0:
        return cont_fn(kind, view, own)
    if cand[n - 1, C_ACTION] == 0:  # a single action: nothing to weigh
        return answer_nb(kind, view, cand[0])
    state = next_state_nb(uint64(view[V_RNG]))
    view[V_RNG] = np.int64(state)
    key = np.int64(stream_state_nb(state, 7) >> uint64(1))
    samples = max(int64(params[P_SAMPLES]), 1)
    out = np.zeros((samples, n, N_OUT), dtype=np.int64)
    active = np.ones(n, dtype=np.int64)
    status = np.zeros(STATUS_SIZE, dtype=np.int64)
    prior = played_prior_nb(view, kind) if params[P_PRIOR] != 0 else np.array([-1, 0, -1], dtype=np.int64)
    error = run_samples_nb(
        view, kind, cand, n, active, key, 0, prior, 0, samples, cont_fn, opp_fn, forced_fn, rollout_params, out, status
    )
    if error:
        return cont_fn(kind, view, own)
    best, best_total = 0, np.int64(-(1 << 40))
    for c in range(n):
        total = np.int64(0)
        for s in range(samples):
            total += out[s, c, O_POINTS]
        if total > best_total:
            best, best_total = c, total
    return answer_nb(kind, view, cand[best])
