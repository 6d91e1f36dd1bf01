"""Playing candidate columns out in sampled worlds: the advisor's Monte Carlo kernel.

``run_worlds_nb`` plays a batch of worlds for the active columns, its
arguments in five named bundles (``advise_bundles_nb``); ``advise_batch_nb``
is its GIL-free entry point for worker threads, and ``run_samples_nb`` its
one-thread form for the ``mc`` strategy. A knock column is settled by the
showdown; any other column is played on by the engine's own hand loop with
the seats' continuation strategies, nothing of the rules restated here
beyond reading the hand record.
"""

from __future__ import annotations

import numpy as np
from numba import float64, int64, njit, types

from .advise_bundles_nb import Batch, Outputs, Question, Sampling, Strategies, typed_as_tuple
from .advise_columns_nb import (
    C_ARRANGEMENT,
    C_DEADWOOD,
    C_DISCARD,
    C_KIND,
    C_MELDS,
    C_N_MELDS,
    C_PRE,
    PRE_DECLINE,
    PRE_PASS,
    PRE_PILE,
    PRE_STOCK,
    PRE_TAKE,
    SHOWDOWN,
)
from .advise_guided_nb import guided_hand_nb
from .advise_history_nb import N_TURN_FIELDS, history_weight_nb, weight_scratch_nb
from .advise_worlds_nb import deal_table_nb, list_unseen_nb, sample_world_nb, stock_of_rest_nb, template_nb
from .arrays_nb import copy_into_nb, copy_rows_nb
from .cards_nb import N_CARDS
from .engine_nb import (
    ST_ERROR,
    ST_HANDS,
    apply_nb,
    end_void_nb,
    next_dealer_nb,
    play_hand_nb,
    play_hands_nb,
    play_turn_nb,
    score_pair_nb,
    seed_views_nb,
    settle_game_nb,
    take_card_nb,
)
from .layout import (
    BIG_GIN,
    BOARD_ROWS,
    D_ARRANGE,
    D_DISCARD,
    D_KNOCK,
    D_TAKE_UPCARD,
    E_NONE,
    ERROR_FIELDS,
    G_WINNER,
    H_KNOCKER,
    H_OUTCOME,
    H_SEAT_POINTS,
    H_WINNER,
    HIDDEN,
    MAX_ARRANGEMENTS,
    MAX_HANDS_PER_GAME,
    MAX_SEATS,
    N_GAME_FIELDS,
    N_HAND_FIELDS,
    NO_CARD,
    OUT_TIE,
    OUT_UNDERCUT,
    OUT_VOID,
    PHASE_AFTER_DRAW,
    R_PLAYERS,
    R_TARGET_SCORE,
    S_DECK,
    S_ERROR,
    S_HANDS,
    S_PHASE,
    S_RECORD,
    S_RULES,
    S_STOCK_POS,
    S_TAKEN,
    S_TURN,
    V_DEALER,
    V_FORBIDDEN,
    V_HAND,
    V_HAND_NUMBER,
    V_KNOCK_LIMIT,
    V_MULTIPLIER,
    V_PLAYERS,
    V_SCORES,
    V_SEAT,
    V_SIZE,
    V_STOCK_LEFT,
)
from .linking import DECIDE_SIGNATURE, DECIDE_TYPE, fetch_add_nb, lazy_njit
from .melds_nb import MAX_MELDS_IN_ARRANGEMENT, deadwood_nb, layoff_deadwood_nb
from .rng_nb import (
    HISTORY_REPLAYS,
    REPEAT_STOCKS,
    ROLLOUT_DECKS,
    ROLLOUT_SEAT_STREAMS,
    next_state_nb,
    shuffle_deck_nb,
    stream_state_nb,
)

# Worlds a thread claims at a time (``run_worlds_nb``): a few hundred microseconds of work, so the threads end a
# batch within about that of each other, against one atomic add per block.
CLAIMED_BLOCK = 64
NO_CLAIMS = np.zeros(0, dtype=np.int64)  # a call that plays its worlds lo .. hi - 1 alone

# -- results per world and column: sums over the world's repeats -----------------------------
O_POINTS = 0  # my points minus the opponents' (all of them, with 3-4 players) in this hand
O_WON = 1  # repeats where I scored the hand
O_LOST = 2  # repeats where an opponent scored it (the others: nobody did)
O_WIN = 3  # repeats where I win the game (game mode), else 0
O_UNDERCUT = 4  # repeats where a knock was undercut
N_OUT = 5
# Repeat k of world s draws its streams at index s + k * REPEAT_STRIDE: k = 0 is the world as drawn, and no two
# (world, repeat) pairs share a stream while worlds number below 2**40.
REPEAT_STRIDE = 1 << 40

# -- codes returned besides the engine's E_* ----------------------------------------------
E_BAD_VIEW = 10  # the view's cards do not add up (advisor input checks make this unreachable)

# -- answers of the forced decider: a rollout's first decisions, read from its params -----
F_KNOCK = 0
F_DISCARD = 1
F_ARRANGE = 2
F_TAKE = 3
N_FORCED = 4


@lazy_njit(DECIDE_SIGNATURE)
def forced_nb(kind, view, params):
    """Plays the answers a rollout prescribes for the deciding seat's first decisions."""
    if kind == D_KNOCK:
        return int64(params[F_KNOCK])
    if kind == D_DISCARD:
        return int64(params[F_DISCARD])
    if kind == D_ARRANGE:
        return int64(params[F_ARRANGE])
    return int64(params[F_TAKE])


# -- playing a column in a world --------------------------------------------------------------


@njit(cache=True)
def column_showdown_nb(board, column, opp_hand):
    """(outcome code, my points, the opponent's points) of a knock column against ``opp_hand``."""
    dw_knocker = column[C_DEADWOOD]
    gin = dw_knocker == 0
    if gin:
        dw = deadwood_nb(opp_hand)
    else:
        dw, _ = layoff_deadwood_nb(column[C_MELDS : C_MELDS + MAX_MELDS_IN_ARRANGEMENT], column[C_N_MELDS], opp_hand)
    big_gin = column[C_DISCARD] == BIG_GIN
    return score_pair_nb(board, dw_knocker, dw, gin, big_gin, board[0, V_MULTIPLIER])


@njit(cache=True, inline="always")
def pick_nb(seat, me, mine, theirs):
    return mine if seat == me else theirs


@njit(cache=True)
def seat_tuple_nb(me, mine, theirs):
    """The four-seat decider tuple with ``mine`` at seat ``me`` and ``theirs`` at every other."""
    return (pick_nb(0, me, mine, theirs), pick_nb(1, me, mine, theirs), pick_nb(2, me, mine, theirs),
            pick_nb(3, me, mine, theirs))


@njit(cache=True)
def rollout_nb(work, me, column, taken, cont, forced, params, forced_params, arrangements, trace, status):
    """Play a rollout column on ``work`` (a world's board) to the end of the hand; returns a status."""
    pre = column[C_PRE]
    if pre == PRE_DECLINE:
        end_void_nb(work, OUT_VOID, trace, status)  # the engine's own end of a declined fiftieth card
        return E_NONE
    if pre == PRE_PASS or pre == PRE_TAKE:
        error = apply_nb(work, me, D_TAKE_UPCARD, 1 if pre == PRE_TAKE else 0, arrangements, trace, status)
        if error:
            return error
        if pre == PRE_PASS:
            return play_hand_nb(work, cont, params, arrangements, trace, status)
    elif pre == PRE_PILE or pre == PRE_STOCK:
        take_card_nb(work, me, pre == PRE_PILE, trace, status)
    else:  # the seat holds 11 cards already: its knock offer or discard is next
        work[HIDDEN, S_TAKEN] = taken
        work[HIDDEN, S_TURN] = me
        work[HIDDEN, S_PHASE] = PHASE_AFTER_DRAW
    if column[C_KIND] == SHOWDOWN:  # a knock, shown down by the engine against every opponent
        forced_params[me, F_KNOCK] = column[C_DISCARD]
        forced_params[me, F_ARRANGE] = column[C_ARRANGEMENT]
        error = play_turn_nb(work, forced, forced_params, arrangements, trace, status)
    elif column[C_DISCARD] >= 0:
        forced_params[me, F_KNOCK] = NO_CARD
        forced_params[me, F_DISCARD] = column[C_DISCARD]
        error = play_turn_nb(work, forced, forced_params, arrangements, trace, status)
    else:
        error = play_turn_nb(work, cont, params, arrangements, trace, status)
    if error:
        return error
    return play_hand_nb(work, cont, params, arrangements, trace, status)


@njit(cache=True)
def game_winner_nb(work, cont, params, scores, dealer, hand_number, deck_rng, arrangements, hand_out, game_record,
                   trace, status):
    """Who wins the game after the hand in ``work``'s record left ``scores``. Returns (status, winner).

    The engine settles it, playing the next hands with its own game loop
    when nobody has reached the target yet.
    """
    top = 0
    for seat in range(work[HIDDEN, S_RULES + R_PLAYERS]):
        top = max(top, scores[seat])
    boxes = np.zeros(MAX_SEATS, dtype=np.int64)  # hands won change the totals, never the winner
    game_record[:] = 0
    if top >= work[HIDDEN, S_RULES + R_TARGET_SCORE]:
        settle_game_nb(work, scores, boxes, game_record)
        return E_NONE, game_record[G_WINNER]
    status[ST_HANDS] = 0
    dealer = next_dealer_nb(work, work[HIDDEN, S_RECORD : S_RECORD + N_HAND_FIELDS], dealer)
    error = play_hands_nb(work, cont, params, dealer, min(hand_number + 1, MAX_HANDS_PER_GAME), scores, boxes,
                          deck_rng, arrangements, hand_out, game_record, trace, status)
    return error, game_record[G_WINNER]


@njit(cache=True)
def run_samples_nb(strategies, question, sampling, lo, hi, out, weights, status):
    """``run_worlds_nb`` on one thread: worlds ``lo .. hi - 1``, all played (nothing stops them), the opponent's
    hands not kept."""
    batch = Batch(lo, hi, claims=np.zeros(0, dtype=np.int64), stop=np.zeros(1, dtype=np.int64))
    outputs = Outputs(out, weights, opponent_hands=np.zeros(hi - lo, dtype=np.int64), status=status)
    return run_worlds_nb(strategies, question, sampling, batch, outputs)


@njit(cache=True, inline="always")
def next_world_nb(s, end, hi, claims):
    """(the world after ``s``, the end of its block): the next of ``lo .. hi - 1``, or with ``claims`` the next of
    the blocks of CLAIMED_BLOCK worlds this thread claims from ``claims[0]`` on; ``hi`` once none is left."""
    s += 1
    if s < end:
        return s, end
    if claims.shape[0] == 0:
        return hi, hi
    start = fetch_add_nb(claims, CLAIMED_BLOCK)
    return min(start, hi), min(start + CLAIMED_BLOCK, hi)


@njit(cache=True)
def run_worlds_nb(strategies, question, sampling, batch, outputs):
    """Play the worlds of ``batch`` for the active columns of ``question``; returns a status (the engine's error
    fields go to ``outputs.status[ST_ERROR:]``).

    World ``s`` is drawn and weighed as ``sampling`` says (a world the guide
    draws has its weight corrected for it); a world of weight 0 is not played
    and its ``out`` row is not written (pass zeros: its pages of memory then
    stay untouched, which kept two workers from waiting on each other's page
    faults). Each world is played ``repeats`` times: the same hidden hands
    (the weighed part of a world), a new stock order and new seat streams
    each time, ``out`` summing the repeats. The stock order given the hands is
    uniform and the history says nothing about it, so the repeats' mean
    estimates the world's value without bias; a knock's showdown depends on
    the hands alone and is played once (in game mode the rest of the game is
    played in every repeat). Once another thread sets ``stop[0]`` (the time
    budget is spent) the worlds not finished get weight -1 and are not
    counted; world 0 is always finished, so that there is an answer.

    ``claims`` empty: this call plays worlds ``lo .. hi - 1``. Else several threads share one batch ``lo .. hi - 1``
    (the same ``outputs`` but for ``status``, ``weights`` filled with -1 by the caller, ``claims[0]`` = ``lo``), each
    claiming the next block of worlds as it finishes one: a world's result depends on its index alone, whichever
    thread plays it, and the rare worlds played out (hundreds of times one only weighed) no longer keep one thread
    busy while the other waits at the end of a batch."""
    view, kind, game_mode, params = question.seat_view, question.kind, question.game_mode, strategies.params
    key, prior, guide, repeats = sampling.key, sampling.prior, sampling.guide, sampling.repeats
    lo, hi, claims, stop = batch.lo, batch.hi, batch.claims, batch.stop
    weights, status = outputs.weights, outputs.status
    me = view[V_SEAT]
    players = view[V_PLAYERS]
    opp = (me + 1) % players  # two players: the opponent
    template = np.empty((BOARD_ROWS, V_SIZE), dtype=np.int64)
    template_nb(view, kind, template)
    work = np.empty((BOARD_ROWS, V_SIZE), dtype=np.int64)
    arrangements = np.zeros((MAX_ARRANGEMENTS, MAX_MELDS_IN_ARRANGEMENT), dtype=np.int64)
    trace = np.zeros((0, 6), dtype=np.int64)
    unseen = np.empty(N_CARDS, dtype=np.int64)
    scratch = np.empty(N_CARDS, dtype=np.int64)
    factors = np.empty(N_CARDS, dtype=np.float64)
    stock = np.empty(N_CARDS, dtype=np.int64)
    known = np.zeros(MAX_SEATS, dtype=np.int64)
    need = np.zeros(MAX_SEATS, dtype=np.int64)
    hands = np.zeros(MAX_SEATS, dtype=np.int64)
    n_unseen = list_unseen_nb(view, unseen, known, need)
    n_stock = n_unseen
    for seat in range(players):
        n_stock -= need[seat]
        if need[seat] < 0:
            return E_BAD_VIEW
    if n_stock != view[V_STOCK_LEFT]:
        return E_BAD_VIEW
    cont = seat_tuple_nb(me, strategies.me_fn, strategies.opp_fn)
    forced = seat_tuple_nb(me, strategies.forced_fn, strategies.opp_fn)
    # the deciding seat's row holds the forced answers: as wide as they are, whatever the families playing (greedy
    # has no parameters), the other rows padded with zeros as parameter_matrix pads them
    forced_params = np.zeros((params.shape[0], max(params.shape[1], N_FORCED)))
    forced_params[:, : params.shape[1]] = params
    record = np.zeros(N_HAND_FIELDS, dtype=np.int64)
    scores = np.zeros(MAX_SEATS, dtype=np.int64)
    hand_out = np.zeros((MAX_HANDS_PER_GAME if game_mode else 0, N_HAND_FIELDS), dtype=np.int64)
    game_record = np.zeros(N_GAME_FIELDS, dtype=np.int64)
    view_key = key ^ ROLLOUT_SEAT_STREAMS
    deck_key = key ^ ROLLOUT_DECKS
    history_key = key ^ HISTORY_REPLAYS
    repeat_key = key ^ REPEAT_STOCKS
    turns, snapshots, slips, traits = sampling.evidence
    weighing = weight_scratch_nb(snapshots)
    taken0 = view[V_FORBIDDEN] if kind == D_KNOCK or kind == D_DISCARD else NO_CARD
    order = np.empty(N_CARDS, dtype=np.int64)  # the stock order of the repeat being played
    if claims.shape[0] == 0:
        weights[:] = -1.0
    s, end = lo - 1, (lo if claims.shape[0] > 0 else hi)
    while True:
        s, end = next_world_nb(s, end, hi, claims)
        if s >= hi or (stop[0] != 0 and s > 0):
            break
        ratio = 1.0  # prior / proposal
        guided = players == 2 and guide[0].shape[0] > 0  # then its stock is drawn once it is known to be played
        stock_state = np.uint64(0)
        if guided:
            hands[opp], ratio, stock_state = guided_hand_nb(key, s, unseen, n_unseen, known[opp], need[opp],
                                                            prior[0], guide, scratch, factors)
        elif players == 2:
            hands[opp] = sample_world_nb(key, s, unseen, n_unseen, known[opp], need[opp], prior[0], prior[1],
                                         prior[2], view[V_KNOCK_LIMIT], scratch, stock)
        else:
            deal_table_nb(key, s, me, players, unseen, n_unseen, known, need, scratch, hands, stock)
        outputs.opponent_hands[s - lo] = hands[opp]
        weight = ratio
        if turns.shape[0] > 0:  # (two players; the roulette of ratio x likelihood below the cutoff)
            like, _ = history_weight_nb(strategies.opp_fn, params[opp], turns, snapshots, hands[opp], slips,
                                        stream_state_nb(history_key, s), sampling.cutoff / ratio, traits, weighing)
            weight = ratio * like
        if weight == 0.0:
            weights[s - lo] = weight
            continue
        if guided:
            stock_of_rest_nb(hands[opp], unseen, n_unseen, stock, stock_state)
        row = outputs.out[s - lo]
        row[:, :] = 0
        for k in range(repeats):
            # Repeat k of world s: the same hidden hands, its own stock order and seat streams (k = 0: as drawn).
            index = s + k * REPEAT_STRIDE
            copy_into_nb(order[:n_stock], stock[:n_stock])
            if k > 0:  # the stock given the hands is uniform over the rest, whatever the history
                shuffle_deck_nb(stream_state_nb(repeat_key, index), order[:n_stock])
            for c in range(question.n_cand):
                if stop[0] != 0 and s > 0:  # checked between the rollouts: a slow opponent may take a second for one
                    return E_NONE
                if not question.active[c]:
                    continue
                column = question.cand[c]
                settled = column[C_KIND] == SHOWDOWN and players == 2  # by the hands alone: no need to play the draw
                # Without a game to play on, a showdown scores the same in every repeat: played once, counted for all.
                times = repeats if settled and not game_mode else 1
                if times > 1 and k > 0:
                    continue
                if settled:
                    outcome, mine, theirs = column_showdown_nb(template, column, hands[opp])
                    record[:] = 0
                    record[H_SEAT_POINTS + me] = mine
                    record[H_SEAT_POINTS + opp] = theirs
                    record[H_WINNER] = -1 if outcome == OUT_TIE else (opp if outcome == OUT_UNDERCUT else me)
                    record[H_KNOCKER] = me
                    undercut = outcome == OUT_UNDERCUT
                    if game_mode:
                        copy_rows_nb(work, template)
                        seed_views_nb(work, view_key, index)
                else:
                    copy_rows_nb(work, template)
                    for seat in range(players):
                        if seat != me:
                            work[HIDDEN, S_HANDS + seat] = hands[seat]
                            work[seat, V_HAND] = hands[seat]
                    stock_pos = work[HIDDEN, S_STOCK_POS]
                    copy_into_nb(work[HIDDEN, S_DECK + stock_pos : S_DECK + stock_pos + n_stock], order[:n_stock])
                    seed_views_nb(work, view_key, index)
                    error = rollout_nb(
                        work, me, column, taken0, cont, forced, params, forced_params, arrangements, trace, status
                    )
                    if error:
                        status[ST_ERROR : ST_ERROR + ERROR_FIELDS] = work[HIDDEN, S_ERROR : S_ERROR + ERROR_FIELDS]
                        return error
                    copy_into_nb(record, work[HIDDEN, S_RECORD : S_RECORD + N_HAND_FIELDS])
                    undercut = column[C_KIND] == SHOWDOWN and record[H_OUTCOME] == OUT_UNDERCUT
                theirs = 0
                for seat in range(players):
                    if seat != me:
                        theirs += record[H_SEAT_POINTS + seat]
                winner = record[H_WINNER]
                row[c, O_POINTS] += times * (record[H_SEAT_POINTS + me] - theirs)
                row[c, O_WON] += times if winner == me else 0
                row[c, O_LOST] += times if winner >= 0 and winner != me else 0
                row[c, O_UNDERCUT] += times if undercut else 0
                if game_mode:
                    for seat in range(MAX_SEATS):
                        scores[seat] = view[V_SCORES + seat] + record[H_SEAT_POINTS + seat]
                    work[HIDDEN, S_RECORD : S_RECORD + N_HAND_FIELDS] = record
                    deck_rng = next_state_nb(stream_state_nb(deck_key, index))
                    error, game_winner = game_winner_nb(work, cont, params, scores, view[V_DEALER],
                                                        view[V_HAND_NUMBER], deck_rng, arrangements, hand_out,
                                                        game_record, trace, status)
                    if error:
                        status[ST_ERROR : ST_ERROR + ERROR_FIELDS] = work[HIDDEN, S_ERROR : S_ERROR + ERROR_FIELDS]
                        return error
                    row[c, O_WIN] += 1 if game_winner == me else 0
        weights[s - lo] = weight
    return E_NONE


# advise_batch_nb's one signature, each bundle's field by field: compiled once, whatever the strategies.
ADVISE_BATCH_SIGNATURE = int64(
    typed_as_tuple(Strategies, me_fn=DECIDE_TYPE, opp_fn=DECIDE_TYPE, forced_fn=DECIDE_TYPE, params=float64[:, ::1]),
    typed_as_tuple(Question, seat_view=int64[::1], kind=int64, cand=int64[:, ::1], n_cand=int64, active=int64[::1],
                   game_mode=int64),
    typed_as_tuple(Sampling, key=int64, prior=int64[::1],
                   evidence=types.Tuple((int64[:, ::1], int64[:, :, ::1], types.UniTuple(float64, 2), int64)),
                   cutoff=float64,
                   guide=types.Tuple((float64[::1], float64[:, ::1], float64)), repeats=int64),
    typed_as_tuple(Batch, lo=int64, hi=int64, claims=int64[::1], stop=int64[::1]),
    typed_as_tuple(Outputs, out=int64[:, :, ::1], weights=float64[::1], opponent_hands=int64[::1], status=int64[::1]),
)


@lazy_njit(ADVISE_BATCH_SIGNATURE, nogil=True)
def advise_batch_nb(strategies, question, sampling, batch, outputs):
    """``run_worlds_nb`` without the GIL, for the advisor's worker threads (``batch.stop``: set by the caller at the
    deadline; ``batch.claims``: shared by the threads of one batch). The bundles come as plain tuples
    (``typed_as_tuple``)."""
    return run_worlds_nb(Strategies(*strategies), Question(*question), Sampling(*sampling), Batch(*batch),
                         Outputs(*outputs))


@njit(cache=True)
def no_evidence_nb(n_snapshot_fields):
    """Evidence of no turns: every world weighs 1."""
    return (np.zeros((0, N_TURN_FIELDS), dtype=np.int64), np.zeros((0, 2, n_snapshot_fields), dtype=np.int64),
            (0.0, 0.0), np.int64(0))
