"""Decision datasets: games played as ``simulate`` plays them, every decision of every seat written down.

``play_decisions_nb`` plays games ``first_game + status[ST_GAMES]`` ... with
the engine's own step machine (``pending_nb`` / ``apply_nb``) and game loop
(``open_game_nb``, ``open_hand_nb``, ``close_hand_nb``, ``next_dealer_nb``,
``settle_game_nb``) in the order ``engine_nb.play_game_nb`` calls them, so
game ``g`` of a key is the game ``play_games_nb`` plays: the same deals, the
same answers, the same records. At each decision it writes the asking seat's
observation and mask (``env_nb.encode_nb`` / ``mask_nb``, taken before the
strategy decides), then the action its strategy chose (``env_nb.action_nb``)
and where it was asked; when the hand ends, that hand's points for the row's
seat; when the game ends, the game's result.
"""

from __future__ import annotations

import numpy as np
from numba import float64, int8, int64, njit

from . import engine_nb as E
from .env_nb import action_nb, encode_nb, mask_nb
from .layout import (
    BOARD_ROWS,
    D_NONE,
    E_BUFFER,
    E_NONE,
    ERROR_FIELDS,
    G_FIRST_DEALER,
    G_GUARD,
    G_HANDS,
    G_TOTALS,
    G_WINNER,
    H_SEAT_POINTS,
    HIDDEN,
    MAX_ARRANGEMENTS,
    MAX_HANDS_PER_GAME,
    MAX_SEATS,
    N_HAND_FIELDS,
    R_PLAYERS,
    S_ERROR,
    S_RECORD,
    S_RULES,
    S_TRACING,
    V_SIZE,
)
from .linking import DECIDE_TYPE, lazy_njit, stack_array_nb, unmanaged_nb
from .melds_nb import MAX_MELDS_IN_ARRANGEMENT

# -- one row per decision: int64 fields beside the observation and the mask ---------------------------------
R_GAME = 0
R_HAND = 1  # the hand's number in its game (from 0)
R_STEP = 2  # the decision's number in its hand, all seats counted (from 0)
R_SEAT = 3
R_KIND = 4  # layout.D_*
R_ACTION = 5  # env_nb's action id of the strategy's answer
R_POINTS = 6  # the seat's points of the hand
R_OTHERS = 7  # the other seats' points of the hand, summed
R_GAME_TOTAL = 8  # the seat's total of the game, bonuses in (its points of the hand under single_hand rules)
R_GAME_WINNER = 9  # the game's winner, -1 for none
N_ROW_FIELDS = 10

# -- status: the engine's batch status (ST_GAMES, ST_HANDS, ST_ERROR...), then the rows written -------------
DS_ROWS = E.STATUS_SIZE
DS_STATUS_SIZE = DS_ROWS + 1


@njit(cache=True)
def play_game_decisions_nb(board, deciders, params, seed, game, arrangements, hand_out, game_record, obs_out,
                           mask_out, rows_out, trace, status):
    """Game ``game`` of ``seed``, its decisions to rows ``status[DS_ROWS]`` on, its hands to ``hand_out`` from row
    ``status[ST_HANDS]``. Returns E_NONE, E_ILLEGAL, or E_BUFFER when the rows ran out before the game's end: the
    status then as before the game (its rows are written again by the next call)."""
    first_row = status[DS_ROWS]
    first_hand = status[E.ST_HANDS]
    row = first_row
    capacity = rows_out.shape[0]
    players = board[HIDDEN, S_RULES + R_PLAYERS]
    deck_rng = E.open_game_nb(board, seed, game, game_record)
    counts = stack_array_nb(2, MAX_SEATS, np.int64)
    scores = counts[0]
    boxes = counts[1]
    scores[:] = 0
    boxes[:] = 0
    dealer = game_record[G_FIRST_DEALER]
    hands = 0
    while True:
        if hands == MAX_HANDS_PER_GAME:
            game_record[G_GUARD] = 1
            break
        deck_rng = E.open_hand_nb(board, dealer, hands, scores, deck_rng, trace, status)
        hand_row = row
        step = 0
        while True:  # engine_nb.play_hand_nb, each decision written down
            seat, kind = E.pending_nb(board, arrangements, trace, status)
            if kind == D_NONE:
                break
            if row == capacity:
                status[DS_ROWS] = first_row
                status[E.ST_HANDS] = first_hand
                return E_BUFFER
            view = board[seat]
            encode_nb(view, kind, obs_out[row])
            mask_nb(view, kind, mask_out[row])
            answer = deciders[seat](kind, view, params[seat])
            error = E.apply_nb(board, seat, kind, answer, arrangements, trace, status)
            if error:
                return error
            out = rows_out[row]
            out[R_GAME] = game
            out[R_HAND] = hands
            out[R_STEP] = step
            out[R_SEAT] = seat
            out[R_KIND] = kind
            out[R_ACTION] = action_nb(kind, answer)
            row += 1
            step += 1
        record = hand_out[status[E.ST_HANDS]]
        record[:] = board[HIDDEN, S_RECORD : S_RECORD + N_HAND_FIELDS]
        status[E.ST_HANDS] += 1
        total = 0
        for s in range(players):
            total += record[H_SEAT_POINTS + s]
        for r in range(hand_row, row):
            points = record[H_SEAT_POINTS + rows_out[r, R_SEAT]]
            rows_out[r, R_POINTS] = points
            rows_out[r, R_OTHERS] = total - points
        hands += 1
        if E.close_hand_nb(board, record, scores, boxes, game_record):
            break
        dealer = E.next_dealer_nb(board, record, dealer)
    game_record[G_HANDS] = hands
    E.settle_game_nb(board, scores, boxes, game_record)
    for r in range(first_row, row):
        rows_out[r, R_GAME_TOTAL] = game_record[G_TOTALS + rows_out[r, R_SEAT]]
        rows_out[r, R_GAME_WINNER] = game_record[G_WINNER]
    status[DS_ROWS] = row
    return E_NONE


PLAY_DECISIONS_SIGNATURE = int64(
    DECIDE_TYPE,
    DECIDE_TYPE,
    DECIDE_TYPE,
    DECIDE_TYPE,
    float64[:, ::1],  # params
    int64[::1],  # rules
    int64,  # key
    int64,  # first game
    int64,  # games
    int64[:, ::1],  # hand records out
    int64[:, ::1],  # game records out
    int8[:, ::1],  # observations out
    int8[:, ::1],  # masks out
    int64[:, ::1],  # rows out
    int64[::1],  # status
)


@lazy_njit(PLAY_DECISIONS_SIGNATURE, nogil=True)  # plays while a thread writes the last chunk
def play_decisions_nb(decide0, decide1, decide2, decide3, params, rules, seed, first_game, n_games, hand_out,
                      game_out, obs_out, mask_out, rows_out, status):
    """Play games ``first_game + status[ST_GAMES]`` ... until ``n_games`` are done or a buffer fills, every decision
    to a row (``status[DS_ROWS]`` rows written), every hand to ``hand_out`` and every game to ``game_out`` as
    ``play_games_nb`` writes them. Returns a status: E_BUFFER (a game needs more room than is left; the games done
    are whole: take them, reset ``status[ST_HANDS]`` and ``status[DS_ROWS]`` and call again with the same
    ``game_out``), E_ILLEGAL (details in ``status[ST_ERROR:]``), or E_NONE."""
    deciders = (decide0, decide1, decide2, decide3)
    owner = np.zeros((BOARD_ROWS, V_SIZE), dtype=np.int64)
    board = unmanaged_nb(owner)
    E.load_rules_nb(board, rules)
    board[HIDDEN, S_TRACING] = 0
    arrangements_owner = np.zeros((MAX_ARRANGEMENTS, MAX_MELDS_IN_ARRANGEMENT), dtype=np.int64)
    arrangements = unmanaged_nb(arrangements_owner)
    trace_owner = np.zeros((0, E.TRACE_FIELDS), dtype=np.int64)
    trace = unmanaged_nb(trace_owner)
    params, hand_out, game_out = unmanaged_nb(params), unmanaged_nb(hand_out), unmanaged_nb(game_out)
    obs_out, mask_out, rows_out = unmanaged_nb(obs_out), unmanaged_nb(mask_out), unmanaged_nb(rows_out)
    status = unmanaged_nb(status)
    code = E_NONE
    while status[E.ST_GAMES] < n_games:
        if status[E.ST_GAMES] >= game_out.shape[0] or hand_out.shape[0] - status[E.ST_HANDS] < MAX_HANDS_PER_GAME:
            code = E_BUFFER
            break
        game = first_game + status[E.ST_GAMES]
        code = play_game_decisions_nb(board, deciders, params, seed, game, arrangements, hand_out,
                                      game_out[status[E.ST_GAMES]], obs_out, mask_out, rows_out, trace, status)
        if code:
            break
        status[E.ST_GAMES] += 1
    # Read through the owners: their last uses keep the unmanaged views' memory alive to here.
    status[E.ST_ERROR : E.ST_ERROR + ERROR_FIELDS] = owner[HIDDEN, S_ERROR : S_ERROR + ERROR_FIELDS]
    arrangements_owner[0, 0] = trace_owner.shape[0]
    return code
