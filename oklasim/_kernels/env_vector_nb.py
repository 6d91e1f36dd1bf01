"""The research environment's batched kernel: N games stepped at once, one seat learning.

``vector_step_nb`` plays N games on N boards with the engine's own step
machine (``pending_nb`` / ``apply_nb``) and game loop (``open_game_nb``,
``open_hand_nb``, ``close_hand_nb``, ``next_dealer_nb``, ``settle_game_nb``):
the learner's answers come in as an action array, the other seats are oklasim
strategies played in the kernel until the learner is asked again. The
observations and masks are ``env_nb``'s.
"""

from __future__ import annotations

import numpy as np
from numba import float64, int8, int64, njit

from . import engine_nb as E
from .env_nb import N_ACTIONS, answer_nb, encode_nb, mask_nb
from .layout import (
    D_ARRANGE,
    D_NONE,
    E_ILLEGAL,
    E_NONE,
    G_FIRST_DEALER,
    G_GUARD,
    G_HANDS,
    G_SCORES,
    G_TOTALS,
    G_WINNER,
    H_SEAT_POINTS,
    HIDDEN,
    MAX_ARRANGEMENTS,
    MAX_HANDS_PER_GAME,
    MAX_SEATS,
    N_HAND_FIELDS,
    N_RULE_FIELDS,
    R_PLAYERS,
    S_RECORD,
    S_RULES,
    S_TRACING,
    V_ARRANGEMENTS,
)
from .linking import DECIDE_TYPE, lazy_njit, unmanaged_nb
from .melds_nb import MAX_MELDS_IN_ARRANGEMENT


@njit(cache=True)
def zero_sum_nb(points, players, seat):
    """``seat``'s points less the mean of the others': the seats' shares sum to 0, and with two players it is the
    difference of their points."""
    others = 0.0
    for s in range(players):
        if s != seat:
            others += points[s]
    return points[seat] - others / (players - 1)


# -- N games at once ---------------------------------------------------------------------------------------
# Per game state beside its board (int64 slots).
GS_RNG = 0  # the deck's stream (uint64 bits)
GS_DEALER = 1
GS_HANDS = 2  # hands dealt in this episode's game
GS_SLOT = 3  # the game's slot: its episodes draw from games (slot << SLOT_SHIFT) + episode of the seed
GS_EPISODE = 4
GS_KIND = 5  # the decision the learner is asked, D_NONE when the episode is over
GS_SCORES = 6  # MAX_SEATS slots
GS_BOXES = GS_SCORES + MAX_SEATS
GS_FIELDS = GS_BOXES + MAX_SEATS
SLOT_SHIFT = 32

# Status of a batched call: the error and where.
VS_ERROR = 0  # E_* code
VS_ERROR_GAME = 1  # the index of the game
VS_ERROR_SEAT = 2
VS_ERROR_KIND = 3
VS_ERROR_ANSWER = 4
VS_HANDS_OUT = 5  # hand records written to hand_out
VS_STATUS_SIZE = 6


@njit(cache=True)
def episode_reward_nb(board, learner, game_record, win_bonus):
    """The learner's share of the game's bonuses (box, game, shutout) and of the win bonus, when the game ends."""
    players = board[HIDDEN, S_RULES + R_PLAYERS]
    bonus = np.zeros(MAX_SEATS, dtype=np.float64)
    for s in range(players):
        bonus[s] = game_record[G_TOTALS + s] - game_record[G_SCORES + s]
    if game_record[G_WINNER] >= 0:
        bonus[game_record[G_WINNER]] += win_bonus
    return zero_sum_nb(bonus, players, learner)


@njit(cache=True)
def open_episode_nb(board, state, game_record, key, trace, status):
    """Deal the first hand of the episode's game (game ``slot << SLOT_SHIFT | episode`` of the key)."""
    game = (state[GS_SLOT] << SLOT_SHIFT) | state[GS_EPISODE]
    rng = E.open_game_nb(board, key, game, game_record)
    state[GS_DEALER] = game_record[G_FIRST_DEALER]
    state[GS_HANDS] = 0
    state[GS_SCORES : GS_SCORES + 2 * MAX_SEATS] = 0
    state[GS_RNG] = np.int64(E.open_hand_nb(board, state[GS_DEALER], 0, state[GS_SCORES : GS_SCORES + MAX_SEATS],
                                           np.uint64(rng), trace, status))


@njit(cache=True)
def advance_nb(deciders, params, board, state, game_record, learner, win_bonus, arrangements, trace, status,
               hand_out, out_status):
    """Play the other seats until the learner is asked (its decision in ``state[GS_KIND]``) or the episode's game is
    over (D_NONE). Returns (the learner's reward on the way, whether the game was cut by the hand-count guard)."""
    reward = 0.0
    scores = state[GS_SCORES : GS_SCORES + MAX_SEATS]
    boxes = state[GS_BOXES : GS_BOXES + MAX_SEATS]
    players = board[HIDDEN, S_RULES + R_PLAYERS]
    while True:
        seat, kind = E.pending_nb(board, arrangements, trace, status)
        if kind != D_NONE:
            if seat == learner:
                state[GS_KIND] = kind
                return reward, False
            answer = deciders[seat](kind, board[seat], params[seat])
            if E.apply_nb(board, seat, kind, answer, arrangements, trace, status) != E_NONE:
                out_status[VS_ERROR] = E_ILLEGAL
                out_status[VS_ERROR_SEAT] = seat
                out_status[VS_ERROR_KIND] = kind
                out_status[VS_ERROR_ANSWER] = answer
                state[GS_KIND] = D_NONE
                return reward, False
            continue
        record = board[HIDDEN, S_RECORD : S_RECORD + N_HAND_FIELDS]
        if out_status[VS_HANDS_OUT] < hand_out.shape[0]:
            hand_out[out_status[VS_HANDS_OUT]] = record
            out_status[VS_HANDS_OUT] += 1
        reward += zero_sum_nb(record[H_SEAT_POINTS : H_SEAT_POINTS + MAX_SEATS], players, learner)
        state[GS_HANDS] += 1
        over = E.close_hand_nb(board, record, scores, boxes, game_record)
        guard = not over and state[GS_HANDS] == MAX_HANDS_PER_GAME
        if over or guard:
            game_record[G_GUARD] = 1 if guard else 0
            game_record[G_HANDS] = state[GS_HANDS]
            E.settle_game_nb(board, scores, boxes, game_record)
            reward += episode_reward_nb(board, learner, game_record, win_bonus)
            state[GS_KIND] = D_NONE
            return reward, guard
        state[GS_DEALER] = E.next_dealer_nb(board, record, state[GS_DEALER])
        state[GS_RNG] = np.int64(E.open_hand_nb(board, state[GS_DEALER], state[GS_HANDS], scores,
                                               np.uint64(state[GS_RNG]), trace, status))


@njit(cache=True)
def start_nb(deciders, params, board, state, game_record, learner, win_bonus, key, arrangements, trace, status,
             hand_out, out_status):
    """Open the episode's game and play to the learner's first decision; returns the reward met on the way (paid
    with the learner's next step). A game over before the learner is asked anything (an opponent took the first
    upcard and knocked) is played and recorded but is no episode: the next game is opened."""
    while True:
        open_episode_nb(board, state, game_record, key, trace, status)
        reward, _ = advance_nb(deciders, params, board, state, game_record, learner, win_bonus, arrangements, trace,
                               status, hand_out, out_status)
        if state[GS_KIND] != D_NONE or out_status[VS_ERROR] != E_NONE:
            return reward
        state[GS_EPISODE] += 1


VECTOR_STEP_SIGNATURE = int64(
    DECIDE_TYPE, DECIDE_TYPE, DECIDE_TYPE, DECIDE_TYPE,
    float64[:, ::1],  # params
    int64,  # key
    int64,  # learner seat
    float64,  # win bonus
    int64,  # 1: same-step autoreset, 0: next-step
    int64[:, :, ::1],  # boards
    int64[:, ::1],  # states
    int64[:, ::1],  # game records
    float64[::1],  # reward carried to the learner's next step
    int64[::1],  # actions
    int8[::1],  # 1: start a fresh episode, the action ignored
    int8[:, ::1],  # observations
    int8[:, ::1],  # masks
    float64[::1],  # rewards
    int8[::1],  # terminated
    int8[::1],  # truncated
    int8[:, ::1],  # final observations (same-step autoreset)
    int64[:, ::1],  # hand records out
    int64[::1],  # status
)


@njit(cache=True)
def write_seat_nb(board, state, learner, obs, mask):
    encode_nb(board[learner], state[GS_KIND], obs)
    mask_nb(board[learner], state[GS_KIND], mask)


@njit(cache=True)
def load_arrangements_nb(view, arrangements):
    """The arrangements on offer, from the view: the shared scratch may hold another game's since they were."""
    for k in range(MAX_ARRANGEMENTS):
        for m in range(MAX_MELDS_IN_ARRANGEMENT):
            arrangements[k, m] = view[V_ARRANGEMENTS + MAX_MELDS_IN_ARRANGEMENT * k + m]


@lazy_njit(VECTOR_STEP_SIGNATURE)
def vector_step_nb(decide0, decide1, decide2, decide3, params, key, learner, win_bonus, same_step, boards, states,
                   game_records, carry, actions, starting, obs, masks, rewards, terminated, truncated, final_obs,
                   hand_out, status):
    """Step every game: a fresh episode where ``starting`` says so, else the learner's action (checked against its
    mask first, for every game: an illegal action steps none and reports the first culprit), then the other seats
    until the learner is asked again. Writes observations, masks, rewards and ends; an ended episode restarts at
    once under same-step autoreset (its last observation in ``final_obs``) or with the next ``starting``."""
    deciders = (decide0, decide1, decide2, decide3)
    n = boards.shape[0]
    # Unmanaged views: every step of every game passes these along, and numba's reference counts would cost more
    # than the game (linking.unmanaged_nb). The arguments keep their memory alive to the end of the call.
    boards, params, states, game_records = unmanaged_nb(boards), unmanaged_nb(params), unmanaged_nb(states), \
        unmanaged_nb(game_records)
    carry, obs, masks, final_obs = unmanaged_nb(carry), unmanaged_nb(obs), unmanaged_nb(masks), unmanaged_nb(final_obs)
    hand_out, status = unmanaged_nb(hand_out), unmanaged_nb(status)
    for i in range(n):
        if not starting[i] and (states[i, GS_KIND] == D_NONE or not 0 <= actions[i] < N_ACTIONS
                                or masks[i, actions[i]] == 0):
            status[VS_ERROR] = E_ILLEGAL
            status[VS_ERROR_GAME] = i
            status[VS_ERROR_SEAT] = learner
            status[VS_ERROR_KIND] = states[i, GS_KIND]
            status[VS_ERROR_ANSWER] = actions[i]
            return E_ILLEGAL
    arrangements_owner = np.zeros((MAX_ARRANGEMENTS, MAX_MELDS_IN_ARRANGEMENT), dtype=np.int64)
    arrangements = unmanaged_nb(arrangements_owner)
    trace_owner = np.zeros((0, E.TRACE_FIELDS), dtype=np.int64)
    status_owner = np.zeros(E.STATUS_SIZE, dtype=np.int64)
    trace, engine_status = unmanaged_nb(trace_owner), unmanaged_nb(status_owner)
    code = E_NONE
    for i in range(n):
        board = boards[i]
        state = states[i]
        game_record = game_records[i]
        terminated[i] = 0
        truncated[i] = 0
        rewards[i] = 0.0
        if starting[i]:
            carry[i] = start_nb(deciders, params, board, state, game_record, learner, win_bonus, key, arrangements,
                                trace, engine_status, hand_out, status)
        else:
            kind = state[GS_KIND]
            if kind == D_ARRANGE:
                load_arrangements_nb(board[learner], arrangements)
            E.apply_nb(board, learner, kind, answer_nb(kind, actions[i]), arrangements, trace, engine_status)
            reward, guard = advance_nb(deciders, params, board, state, game_record, learner, win_bonus,
                                       arrangements, trace, engine_status, hand_out, status)
            rewards[i] = carry[i] + reward
            carry[i] = 0.0
            if status[VS_ERROR] == E_NONE and state[GS_KIND] == D_NONE:
                terminated[i] = 0 if guard else 1
                truncated[i] = 1 if guard else 0
                state[GS_EPISODE] += 1  # the next episode is the slot's next game
                if same_step:
                    encode_nb(board[learner], D_NONE, final_obs[i])
                    carry[i] = start_nb(deciders, params, board, state, game_record, learner, win_bonus, key,
                                        arrangements, trace, engine_status, hand_out, status)
        if status[VS_ERROR] != E_NONE:
            status[VS_ERROR_GAME] = i
            code = E_ILLEGAL
            break
        write_seat_nb(board, state, learner, obs[i], masks[i])
    arrangements_owner[0, 0] = 0  # the owners' last uses: their views stay valid to here
    status_owner[0] = trace_owner.shape[0]
    return code


@njit(cache=True)
def setup_boards_nb(boards, rules, slots, states):
    """Load the rules into every board (tracing off) and give each game its slot."""
    for i in range(boards.shape[0]):
        for k in range(N_RULE_FIELDS):
            boards[i, HIDDEN, S_RULES + k] = rules[k]
        boards[i, HIDDEN, S_TRACING] = 0
        states[i, :] = 0
        states[i, GS_SLOT] = slots[i]
        states[i, GS_KIND] = D_NONE


@lazy_njit(int64(int64[:, :, ::1], int64[::1], int64[::1], int64[:, ::1]))
def setup_step(boards, rules, slots, states):
    setup_boards_nb(boards, rules, slots, states)
    return 0
