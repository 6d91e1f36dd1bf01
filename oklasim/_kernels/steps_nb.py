"""The engine's step machine called one step at a time from Python (``oklasim.sim.board.GameBoard``).

Each entry point is one function of ``engine_nb`` under a fixed signature, so
that a table, a seat or a replay driving a game from Python compiles them once
(``oklasim compile``) and never for the argument types of the moment.
"""

from __future__ import annotations

from numba import boolean, int64, types, uint64, void

from . import engine_nb as E
from .linking import lazy_njit

BOARD = int64[:, ::1]
ROW = int64[::1]


@lazy_njit(uint64(BOARD, int64, int64, ROW))
def open_game_step(board, seed, game, game_record):
    return E.open_game_nb(board, seed, game, game_record)


@lazy_njit(uint64(BOARD, int64, int64, ROW, uint64, BOARD, ROW))
def open_hand_step(board, dealer, hands, scores, deck_rng, trace, status):
    return E.open_hand_nb(board, dealer, hands, scores, deck_rng, trace, status)


@lazy_njit(types.UniTuple(int64, 2)(BOARD, BOARD, BOARD, ROW))
def pending_step(board, arrangements, trace, status):
    return E.pending_nb(board, arrangements, trace, status)


@lazy_njit(int64(BOARD, int64, int64, int64, BOARD, BOARD, ROW))
def apply_step(board, seat, kind, answer, arrangements, trace, status):
    return E.apply_nb(board, seat, kind, answer, arrangements, trace, status)


@lazy_njit(boolean(BOARD, ROW, ROW, ROW, ROW))
def close_hand_step(board, record, scores, boxes, game_record):
    return E.close_hand_nb(board, record, scores, boxes, game_record)


@lazy_njit(int64(BOARD, ROW, int64))
def next_dealer_step(board, record, dealer):
    return E.next_dealer_nb(board, record, dealer)


@lazy_njit(void(BOARD, ROW, ROW, ROW))
def settle_step(board, scores, boxes, game_record):
    E.settle_game_nb(board, scores, boxes, game_record)


@lazy_njit(void(BOARD, int64, int64, ROW))
def start_hand_step(board, dealer, hand_number, scores):
    E.start_hand_nb(board, dealer, hand_number, scores)


@lazy_njit(void(BOARD, int64, int64, int64))
def reveal_step(board, seat, hand, knocker):
    E.reveal_nb(board, seat, hand, knocker)


@lazy_njit(void(BOARD))
def clear_game_step(board):
    E.clear_game_nb(board)
