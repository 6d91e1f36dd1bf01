"""Many paired matches on one worker pool: every shard of every match queued at once.

A study that compares dozens of knock rules against several opponents runs
hundreds of small matches; played one after another, each waits for its
slowest shard and the cores idle between them. Here all shards of all
matches (each in both seatings) go to one pool together, and each worker
sends back only what the comparison needs: per deal, the strategy's points
minus the opponent's, and the deal's knock limit.

Game ``g`` of a seed is the same deal in every match (``batch``), so the
rows of the result are paired deal by deal across matches too.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, wait
from dataclasses import dataclass

import numpy as np

from oklasim.analysis.match import seat_nets, seatings
from oklasim.errors import OklasimError
from oklasim.game.rules import Rules
from oklasim.runs.backends import make_executor
from oklasim.runs.batch import RunSpec, play_shard

TWO = 2  # the knock study pairs two players


@dataclass(frozen=True)
class Pairing:
    """A strategy against an opponent under some rules, each deal played in both seatings."""

    rules: Rules
    strategy: str
    opponent: str


def _shard_nets(spec: RunSpec, shard: int, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """In a worker: the seat's points minus the other seat's, per hand, and the hands' knock limits."""
    _, (hands, _), _ = play_shard(spec, shard, None)
    return seat_nets(hands, seat, TWO).astype(np.int32), hands["knock_limit"].to_numpy()


def _map(function, arguments: list[tuple], workers: int | None) -> list:
    """``function(*args)`` for every tuple of ``arguments`` (each starting with its RunSpec), all queued on one
    pool at once; results in order. ``workers=None``: every core."""
    if not arguments:
        return []
    if workers is None:
        workers = os.cpu_count() or 1
    backend = make_executor(arguments[0][0], workers)
    results: list = [None] * len(arguments)
    try:
        pending = {backend.executor.submit(function, *args): i for i, args in enumerate(arguments)}
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                results[pending.pop(future)] = future.result()
    except BaseException:
        backend.abandon()  # a pool that saw an interrupt or a crash is not reused
        raise
    finally:
        backend.close()
    return results


def _jobs(pairings: Sequence[Pairing], seed: int, sizes: Sequence[dict]) -> list[tuple[int, RunSpec, int, int]]:
    """(pairing index, spec, shard, seat of the strategy) for every shard of both seatings of every pairing;
    ``sizes[i]`` is pairing i's ``hands=N`` or ``games=N``."""
    jobs = []
    for index, (pairing, size) in enumerate(zip(pairings, sizes)):
        for seat, seats in enumerate(seatings(pairing.strategy, pairing.opponent, TWO)):
            spec = RunSpec.create(pairing.rules, seats, seed=seed, **size)
            jobs += [(index, spec, shard, seat) for shard in range(spec.n_shards)]
    return jobs


def _played(pairings: Sequence[Pairing], hands: Sequence[int], seed: int,
            workers: int | None) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per pairing (``hands[i]`` deals): the strategy's net points per deal, averaged over both seatings, and
    the deals' knock limits."""
    jobs = _jobs(pairings, seed, [{"hands": n} for n in hands])
    sums = [np.zeros(n, dtype=np.int64) for n in hands]
    limits = [np.full(n, -1, dtype=np.int64) for n in hands]
    for (index, spec, shard, _), (net, shard_limits) in zip(jobs, _map(_shard_nets, [j[1:] for j in jobs], workers)):
        first, count = spec.shard(shard)
        sums[index][first:first + count] += net
        limits[index][first:first + count] = shard_limits  # both seatings of a deal have its upcard
    return [(total / 2.0, limit) for total, limit in zip(sums, limits)]


def play_pairings(pairings: Sequence[Pairing], hands: int, seed: int,
                  workers: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Per pairing and deal the strategy's net points averaged over both seatings, and each deal's knock limit.

    Returns ``(nets[len(pairings), hands], limits[hands])``. All pairings must deal alike (two players, the
    same deal-shaping rules); a mismatch of knock limits between them is an error, never a silent mix.
    """
    played = _played(pairings, [hands] * len(pairings), seed, workers)
    limits = played[0][1] if played else np.full(hands, -1, dtype=np.int64)
    if any((found != limits).any() for _, found in played):
        raise OklasimError("paired matches dealt different hands: their rules must deal alike")
    return np.array([nets for nets, _ in played]).reshape(len(pairings), hands), limits


def play_by_limit(pairings: dict[int, Sequence[Pairing]], hands: int | dict[int, int], seed: int,
                  workers: int | None) -> dict[int, np.ndarray]:
    """Deals of one knock limit at a time: {limit: nets[len(pairings[limit]), deals of that limit]}, one pool.

    Each limit's pairings are dealt that knock limit's upcards only (``deal_knock_limit``), so every limit
    gets a full sample of ``hands`` (or ``hands[limit]``) deals, not the share its upcards have. Deal ``g``
    of a limit is the same in every pairing of that limit: comparisons within a limit stay paired.
    """
    size = hands if isinstance(hands, dict) else dict.fromkeys(pairings, hands)
    order = [(limit, Pairing(p.rules.replace(deal_knock_limit=limit), p.strategy, p.opponent))
             for limit, found in pairings.items() for p in found]
    played = _played([p for _, p in order], [size[limit] for limit, _ in order], seed, workers)
    if any((dealt != limit).any() for (limit, _), (_, dealt) in zip(order, played)):
        raise OklasimError("a pairing dealt hands of another knock limit")
    out, start = {}, 0
    for limit, found in pairings.items():
        out[limit] = np.array([nets for nets, _ in played[start:start + len(found)]]).reshape(len(found), size[limit])
        start += len(found)
    return out


@dataclass(frozen=True)
class GamesPlayed:
    """Whole games of a pairing, both seatings pooled: per hand and per game, from the strategy's side."""

    net: np.ndarray  # per hand: the strategy's points minus the opponent's
    own_before: np.ndarray  # per hand: the strategy's game score before the hand
    their_before: np.ndarray  # per hand: the opponent's game score before the hand
    knock_limit: np.ndarray  # per hand
    won: np.ndarray  # per game (both seatings): 1 when the strategy won the game

    @classmethod
    def pooled(cls, parts: Sequence[GamesPlayed]) -> GamesPlayed:
        return cls(*(np.concatenate([getattr(p, name) for p in parts]) for name in cls.__dataclass_fields__))


def _shard_games(spec: RunSpec, shard: int, seat: int) -> GamesPlayed:
    """In a worker: one shard of whole games seen from ``seat``; scores before a hand add up the hands before it."""
    import polars as pl

    _, (hands, games), _ = play_shard(spec, shard, None)
    other = 1 - seat
    hands = hands.sort("game", "hand").with_columns(
        own_before=pl.col(f"points_{seat}").cum_sum().over("game") - pl.col(f"points_{seat}"),
        their_before=pl.col(f"points_{other}").cum_sum().over("game") - pl.col(f"points_{other}"),
    )
    return GamesPlayed(
        net=(hands[f"points_{seat}"] - hands[f"points_{other}"]).to_numpy().astype(np.int32),
        own_before=hands["own_before"].to_numpy().astype(np.int32),
        their_before=hands["their_before"].to_numpy().astype(np.int32),
        knock_limit=hands["knock_limit"].to_numpy().astype(np.int8),
        won=(games["winner"] == seat).to_numpy().astype(np.int8),
    )


def play_games(pairings: Sequence[Pairing], games: int, seed: int, workers: int | None) -> list[GamesPlayed]:
    """Whole games of every pairing in both seatings, all shards on one pool; one ``GamesPlayed`` per pairing."""
    jobs = _jobs(pairings, seed, [{"games": games}] * len(pairings))
    parts: list[list[GamesPlayed]] = [[] for _ in pairings]
    for (index, *_), part in zip(jobs, _map(_shard_games, [job[1:] for job in jobs], workers)):
        parts[index].append(part)
    return [GamesPlayed.pooled(found) for found in parts]
