"""Play hands and games in-process: strategies in, hand and game records out.

>>> result = simulate(strategies=["simple", "greedy"], games=20, seed=1)
>>> result.games.height, set(result.hands["outcome"].unique()) <= set(OUTCOME_NAMES)
(20, True)

Game ``g`` of seed ``s`` is the same whatever the batch it runs in, so any
game can be replayed alone (``replay``).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from oklasim._kernels import engine_nb as E
from oklasim._kernels import layout as L
from oklasim.errors import OklasimError
from oklasim.game.cards import format_card, format_hand
from oklasim.game.rules import Rules
from oklasim.strategies.registry import Strategy, resolve, split_strategies
from oklasim.strategy_api import parameter_matrix

CARD_NAMES = [format_card(c) for c in range(52)]
OUTCOME_NAMES = L.OUTCOME_NAMES
DECISION_NAMES = ("take the upcard", "draw", "knock", "discard", "arrange melds")
GAMES_PER_CALL = 4096  # games per kernel call: bounds memory, keeps progress responsive
HANDS_PER_GAME = 12  # hands of a typical game to 100 (about 10), with room: buffers and memory estimates
TRACE_ROWS_PER_HAND = 120  # events of one hand, with room: the deal, the offers, every draw and discard, the showdown


class IllegalDecision(OklasimError):
    """A strategy gave an answer the rules do not allow; the run stops."""


@dataclass(frozen=True)
class SimulationResult:
    hands: pl.DataFrame
    games: pl.DataFrame | None
    rules: Rules
    strategies: tuple[Strategy, ...]
    seed: int


def resolve_all(strategies: str | Sequence[str | Strategy], players: int, extra_paths=()) -> tuple[Strategy, ...]:
    """One strategy per seat (a list, or names separated by commas: "simple,greedy"); a single one plays every
    seat."""
    if isinstance(strategies, str):
        strategies = split_strategies(strategies)
    items = [s if isinstance(s, Strategy) else resolve(s, extra_paths=extra_paths) for s in strategies]
    if len(items) == 1:
        items *= players
    if len(items) != players:
        raise OklasimError(f"{players} players need {players} strategies (or one for all), got {len(items)}")
    return tuple(items)


def play_count(hands, games) -> tuple[str, int]:
    """("hands" or "games", how many) of a request for one or the other; ``OklasimError`` unless exactly one is
    given, a whole number of at least 1 (``True`` is no count)."""
    if (hands is None) == (games is None):
        raise OklasimError("give exactly one of hands=N or games=N (--hands N or --games N)")
    mode, count = ("hands", hands) if hands is not None else ("games", games)
    if isinstance(count, bool) or not isinstance(count, numbers.Integral) or count < 1:
        raise OklasimError(f"the number of {mode} must be a whole number of at least 1, got {count!r}")
    return mode, int(count)


def seat_arguments(seats: Sequence[Strategy]) -> tuple[tuple, np.ndarray]:
    """The four decide functions and the parameter matrix (``parameter_matrix``) the kernels take."""
    padded = list(seats) + [seats[0]] * (L.MAX_SEATS - len(seats))
    return tuple(s.decide for s in padded), parameter_matrix([s.vector() for s in seats])


def illegal_reason(kind: int, answer: int, hand: int, forbidden: int, knocks: int) -> str:
    """Why the step machine refused ``answer`` to decision ``kind`` from a seat holding ``hand`` (``forbidden``: the
    card it may not discard, ``knocks``: the knock discards it was offered). Every referee gives this reason."""
    if kind == L.D_TAKE_UPCARD:
        return f"the answer to 'take the upcard' is 1 (take) or 0 (pass), not {answer}"
    if kind == L.D_DRAW:
        return f"the answer to 'draw' is 1 (the pile) or 0 (the stock), not {answer}"
    if kind == L.D_ARRANGE:
        return f"{answer} is not one of the arrangements offered"
    card = 0 <= answer < 52
    shown = CARD_NAMES[answer] if card else str(answer)
    if kind == L.D_KNOCK and answer == L.BIG_GIN:
        return "big gin is not on offer: it needs all 11 cards melded, under rules that play it"
    if kind == L.D_KNOCK and answer == L.NO_CARD:
        return "a knock was not on offer"
    if not card:
        return f"{shown} is not a card"
    if not hand >> answer & 1:
        return f"{shown} is not in the hand"
    if answer == forbidden:
        return f"{shown} was just taken from the pile: it may not be discarded this turn"
    if kind == L.D_KNOCK:
        offered = format_hand(knocks) or "none (big gin only)"
        return f"discarding {shown} leaves too much deadwood to knock (knock discards on offer: {offered})"
    return f"{shown} may not be played now"


def raise_illegal(status: np.ndarray, seats: Sequence[Strategy], seed: int) -> None:
    error = status[E.ST_ERROR : E.ST_ERROR + L.ERROR_FIELDS].tolist()
    seat, kind, answer, hand = error[L.ER_SEAT], error[L.ER_KIND], error[L.ER_ANSWER], error[L.ER_HAND]
    game, hand_no, forbidden, knocks = error[L.ER_GAME], error[L.ER_HAND_NUMBER], error[L.ER_FORBIDDEN], \
        error[L.ER_KNOCK_DISCARDS]
    card_answer = kind in (L.D_KNOCK, L.D_DISCARD) and 0 <= answer < 52
    shown = CARD_NAMES[answer] if card_answer else str(answer)
    situation = f"hand {format_hand(hand, by_rank=True)}"
    if forbidden >= 0:
        situation += f", may not discard {CARD_NAMES[forbidden]}"
    if kind == L.D_KNOCK:
        situation += f", legal knock discards: {format_hand(knocks) or 'none (big gin only)'}"
    raise IllegalDecision(
        f"strategy {seats[seat].name!r} (seat {seat}) made an illegal decision: answered {shown} "
        f"to '{DECISION_NAMES[kind]}' ({illegal_reason(kind, answer, hand, forbidden, knocks)}) with {situation}; "
        f"game {game} hand {hand_no} of seed {seed}"
    )


def stream_key(seed: int) -> int:
    """The 63-bit key of all random streams of a run, from the user's seed via numpy's SeedSequence.

    Game ``g`` of the run draws from the counter-based stream ``(key, g)``,
    so shards, workers and batches never change a game.
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise OklasimError(f"seed must be a non-negative integer, got {seed!r}")
    return int(np.random.SeedSequence(int(seed)).generate_state(1, np.uint64)[0] >> np.uint64(1))


def compile_kernels(seats: Sequence[Strategy] = ()) -> None:
    """Compile the engine's entry point and the seats' kernels here (or load them from the cache), before a
    pool's workers would each compile them on their own."""
    E.play_games_nb.compile_now()
    for seat in seats:
        seat.compile()


def run_kernel(rules_array, seats, seed, first_game, n_games, trace_capacity=0, on_progress=None):
    """Play games ``first_game .. first_game + n_games - 1`` of ``seed``; returns raw (hands, games, trace)."""
    key = stream_key(seed)
    deciders, params = seat_arguments(seats)
    hands_per_game = 1 if rules_array[L.R_SINGLE_HAND] else HANDS_PER_GAME
    trace = np.zeros((trace_capacity, E.TRACE_FIELDS), dtype=np.int64)
    hand_parts, game_parts = [], []
    done = traced = 0
    while done < n_games:
        chunk = min(n_games - done, GAMES_PER_CALL)
        # The kernel writes every field of every row it reports: no need to zero the buffers.
        hand_out = np.empty((chunk * hands_per_game + L.MAX_HANDS_PER_GAME, L.N_HAND_FIELDS), dtype=np.int64)
        game_out = np.empty((chunk, L.N_GAME_FIELDS), dtype=np.int64)
        status = np.zeros(E.STATUS_SIZE, dtype=np.int64)
        status[E.ST_TRACE] = traced
        code = E.play_games_nb(
            *deciders, params, rules_array, key, first_game + done, chunk, hand_out, game_out, trace, status
        )
        if code == L.E_ILLEGAL:
            raise_illegal(status, seats, seed)
        hand_parts.append(hand_out[: status[E.ST_HANDS]])
        game_parts.append(game_out[: status[E.ST_GAMES]])
        done += int(status[E.ST_GAMES])
        traced = int(status[E.ST_TRACE])
        if on_progress is not None:
            on_progress(int(status[E.ST_GAMES]))
    empty = np.empty((0, L.N_HAND_FIELDS), dtype=np.int64), np.empty((0, L.N_GAME_FIELDS), dtype=np.int64)
    if trace_capacity and traced == trace_capacity:
        raise OklasimError(f"the trace outgrew its {trace_capacity:,} rows: the games' events would be cut short; "
                           "trace fewer games at a time")
    hands = np.concatenate(hand_parts) if hand_parts else empty[0]
    games = np.concatenate(game_parts) if game_parts else empty[1]
    return hands, games, trace[:traced]


def trace_rows(hands: int) -> int:
    """Trace rows enough for ``hands`` hands."""
    return hands * TRACE_ROWS_PER_HAND


def hands_frame(records: np.ndarray, players: int) -> pl.DataFrame:
    """Hand records as a DataFrame with readable cards and outcomes."""
    columns = {
        "game": records[:, L.H_GAME],
        "hand": records[:, L.H_HAND].astype(np.int32),
        "dealer": records[:, L.H_DEALER].astype(np.int8),
        "upcard": np.asarray(CARD_NAMES)[records[:, L.H_UPCARD]],
        "knock_limit": records[:, L.H_KNOCK_LIMIT].astype(np.int8),
        "spade_double": records[:, L.H_MULTIPLIER] == 2,
        "outcome": np.asarray(OUTCOME_NAMES)[records[:, L.H_OUTCOME]],
        "knocker": records[:, L.H_KNOCKER].astype(np.int8),
        "knocker_deadwood": records[:, L.H_KNOCKER_DEADWOOD].astype(np.int16),
        "defender_deadwood": records[:, L.H_DEFENDER_DEADWOOD].astype(np.int16),
        "laid_off": records[:, L.H_LAID_OFF].astype(np.int8),
        "points": records[:, L.H_POINTS].astype(np.int32),
        "winner": records[:, L.H_WINNER].astype(np.int8),
        "draws": records[:, L.H_DRAWS].astype(np.int16),
        "stock_left": records[:, L.H_STOCK_LEFT].astype(np.int8),
        "first_taker": records[:, L.H_FIRST_TAKER].astype(np.int8),
        "players": records[:, L.H_PLAYERS].astype(np.int8),
    }
    for seat in range(players):
        columns[f"points_{seat}"] = records[:, L.H_SEAT_POINTS + seat].astype(np.int32)
    for seat in range(players):
        columns[f"deadwood_{seat}"] = records[:, L.H_SEAT_DEADWOOD + seat].astype(np.int16)
    return pl.DataFrame(columns)


def games_frame(records: np.ndarray, players: int) -> pl.DataFrame:
    columns = {
        "game": records[:, L.G_GAME],
        "winner": records[:, L.G_WINNER].astype(np.int8),
        "hands": records[:, L.G_HANDS].astype(np.int32),
        "void_hands": records[:, L.G_VOID_HANDS].astype(np.int32),
        "first_dealer": records[:, L.G_FIRST_DEALER].astype(np.int8),
        "guard": records[:, L.G_GUARD] == 1,
    }
    for seat in range(players):
        columns[f"score_{seat}"] = records[:, L.G_SCORES + seat].astype(np.int32)
        columns[f"total_{seat}"] = records[:, L.G_TOTALS + seat].astype(np.int32)
        columns[f"hands_won_{seat}"] = records[:, L.G_BOXES + seat].astype(np.int32)
    return pl.DataFrame(columns)


def kernel_rules(rules: Rules, hands_only: bool) -> np.ndarray:
    """The packed rules; independent hands are games of one hand (their bonuses are never read)."""
    packed = rules.to_array()
    if hands_only:
        packed[L.R_SINGLE_HAND] = 1
    return packed


def simulate(
    rules: Rules | str | None = None,
    strategies: str | Sequence[str | Strategy] = ("simple", "simple"),
    hands: int | None = None,
    games: int | None = None,
    seed: int = 0,
    first_game: int = 0,
    extra_paths=(),
) -> SimulationResult:
    """Play ``hands`` independent hands or ``games`` whole games, in this process.

    Hands are dealt by a dealer drawn by lot, at score 0; games run to the
    target score (or one hand under ``single_hand`` rules). ``rules``: a
    ``Rules``, a preset name or a TOML file (``Rules.of``); ``strategies``: one
    per seat, or one for all, as a list or separated by commas.
    """
    rules = Rules.of(rules)
    mode, count = play_count(hands, games)
    seats = resolve_all(strategies, rules.players, extra_paths)
    hand_records, game_records, _ = run_kernel(kernel_rules(rules, mode == "hands"), seats, seed, first_game, count)
    hand_df = hands_frame(hand_records, rules.players)
    game_df = None if mode == "hands" else games_frame(game_records, rules.players)
    return SimulationResult(hand_df, game_df, rules, seats, seed)


@dataclass(frozen=True)
class HandResult:
    """One hand played from a situation: its record, its events and the final board."""

    record: dict[str, int]
    trace: np.ndarray
    board: np.ndarray




def record_dict(row: np.ndarray) -> dict[str, int]:
    """A raw hand record as a dict of its named fields (per-seat fields listed whole)."""
    out = {}
    for name in dir(L):
        if name.startswith("H_") and name not in ("H_SEAT_POINTS", "H_SEAT_DEADWOOD"):
            out[name[2:].lower()] = int(row[getattr(L, name)])
    out["seat_points"] = row[L.H_SEAT_POINTS : L.H_SEAT_POINTS + L.MAX_SEATS].tolist()
    out["seat_deadwood"] = row[L.H_SEAT_DEADWOOD : L.H_SEAT_DEADWOOD + L.MAX_SEATS].tolist()
    return out


def play_situation(
    rules: Rules | str | None, strategies: str | Sequence[str | Strategy], situation, seed: int = 0, extra_paths=()
) -> HandResult:
    """Play one hand on from ``situation`` (see ``oklasim.sim.situation``) with the given strategies."""
    from oklasim.sim.situation import board_for

    rules = Rules.of(rules)
    seats = resolve_all(strategies, rules.players, extra_paths)
    board = board_for(rules, situation)
    E.seed_views_nb(board, stream_key(seed), 0)
    deciders, params = seat_arguments(seats)
    trace = np.zeros((4 * rules.max_draws + 64, E.TRACE_FIELDS), dtype=np.int64)
    board[L.HIDDEN, L.S_TRACING] = 1
    status = np.zeros(E.STATUS_SIZE, dtype=np.int64)
    if E.play_situation_nb(*deciders, params, board, trace, status) == L.E_ILLEGAL:
        raise_illegal(status, seats, seed)
    record = record_dict(board[L.HIDDEN, L.S_RECORD : L.S_RECORD + L.N_HAND_FIELDS])
    return HandResult(record, trace[: status[E.ST_TRACE]], board)
