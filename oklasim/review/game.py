"""A game to review, replayed on the step machine: each decision of the reviewed seat with what it knew then.

Two sources: a game saved by ``oklasim play --save`` or the web table (the person in seat 0, the bots of the
save), and a game of a run played in games mode (``runs/NAME``, game G, any seat: a strategy author's bot).
Both are replayed by the one referee (``table.referee.Table``), so the decisions are those the engine asked.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from oklasim._kernels import layout as L
from oklasim.errors import OklasimError
from oklasim.game.rules import Rules
from oklasim.sim.board import Event
from oklasim.table.referee import BotSeat, Table

# The decisions a review weighs: the draws, and the turn's end (a knock offer with the discard that followed it is
# one decision: knock, or play on discarding that card). The melds laid are not weighed.
UPCARD, DRAW, KNOCK, DISCARD = "upcard", "draw", "knock", "discard"
KIND_OF = {L.D_TAKE_UPCARD: UPCARD, L.D_DRAW: DRAW, L.D_KNOCK: KNOCK, L.D_DISCARD: DISCARD}


@dataclass(frozen=True)
class Decision:
    """One decision of the reviewed seat: its row as it decided, the hand's events it had seen, what it played."""

    number: int  # its place among the seat's reviewed decisions in the game, from 0
    hand: int
    kind: str  # UPCARD, DRAW, KNOCK (a knock was offered) or DISCARD (no knock offered)
    view: np.ndarray
    seen: tuple[Event, ...]
    draw: str | None  # UPCARD: "upcard" or "pass"; DRAW: "pile" or "stock"
    knock: bool  # KNOCK: knocked (or went big gin)
    discard: int | None  # the card thrown (None: big gin, a draw, or the fiftieth card declined)
    big_gin: bool = False

    @property
    def stock_left(self) -> int:
        return int(self.view[L.V_STOCK_LEFT])


@dataclass(frozen=True)
class PlayedGame:
    """A replayed game: its rules, the seat reviewed, whom it played, its decisions, hands and result."""

    rules: Rules
    seed: int
    seat: int
    player: str  # who played the seat: "you" (a saved game) or the strategy
    opponent: str  # the strategy of the other seat: the advice assumes it
    source: str  # where the game came from, in words
    decisions: tuple[Decision, ...]
    hands: tuple[dict, ...]  # per hand: its record's fields the review shows (``hand_facts``)
    result: dict | None  # None: the game is not over (an unfinished save)


class _Watcher:
    """Collects the reviewed seat's decisions as the table takes them."""

    def __init__(self, table_of, seat: int):
        self.table_of, self.seat = table_of, seat
        self.decisions: list[Decision] = []
        self.offered: tuple | None = None  # a knock offer played on: its decision waits for the discard

    def __call__(self, seat: int, kind: int, view: np.ndarray, answer: int, known: int) -> None:
        if seat != self.seat or kind not in KIND_OF:
            return
        if kind == L.D_DISCARD and self.offered is not None:  # the discard after a knock offer played on
            self._add(*self.offered, knock=False, discard=answer)
            self.offered = None
            return
        seen = self._seen(view, known)
        if kind == L.D_TAKE_UPCARD:
            self._add(view, seen, KIND_OF[kind], draw="upcard" if answer else "pass")
        elif kind == L.D_DRAW:
            self._add(view, seen, KIND_OF[kind], draw="pile" if answer else "stock")
        elif kind == L.D_KNOCK and answer == L.NO_CARD and not view[L.V_LAST_CHANCE]:
            self.offered = (view, seen, KNOCK)
        elif kind == L.D_KNOCK:
            big_gin = answer == L.BIG_GIN
            self._add(view, seen, KNOCK, knock=answer != L.NO_CARD, big_gin=big_gin,
                      discard=None if big_gin or answer == L.NO_CARD else answer)
        else:
            self._add(view, seen, DISCARD, discard=answer)

    def _seen(self, view: np.ndarray, known: int) -> tuple[Event, ...]:
        """The events of this hand the seat had seen (the game's first ``known``), as a table tells them (its deal
        left out)."""
        hand = int(view[L.V_HAND_NUMBER])
        history = self.table_of().game.history[:known]
        told = (e.seen_by(self.seat) for e in history if e.hand == hand and e.name != "deal")
        return tuple(e for e in told if e is not None)

    def _add(self, view, seen, kind, draw=None, knock=False, discard=None, big_gin=False) -> None:
        self.decisions.append(Decision(len(self.decisions), int(view[L.V_HAND_NUMBER]), kind, view, seen, draw,
                                       knock, None if discard is None else int(discard), big_gin))


class _Ended(Exception):
    """An unfinished save: its moves are all replayed."""


def _replay(rules: Rules, seats: list, seed: int, game: int,
            seat: int) -> tuple[list[Decision], list[dict], dict | None]:
    table: Table | None = None
    watcher = _Watcher(lambda: table, seat)
    table = Table(rules, seats, seed, game, watch=watcher)
    try:
        result = table.play_game()
    except _Ended:
        result = None
    return watcher.decisions, [hand_facts(r, rules.players) for r in table.game.records], result


def hand_facts(record: np.ndarray, players: int) -> dict:
    """What a hand's engine record says, by name."""
    return {"hand": int(record[L.H_HAND]), "outcome": L.OUTCOME_NAMES[int(record[L.H_OUTCOME])],
            "knocker": int(record[L.H_KNOCKER]), "knocker_deadwood": int(record[L.H_KNOCKER_DEADWOOD]),
            "winner": int(record[L.H_WINNER]), "knock_limit": int(record[L.H_KNOCK_LIMIT]),
            "points": [int(record[L.H_SEAT_POINTS + s]) for s in range(players)],
            "deadwood": [int(record[L.H_SEAT_DEADWOOD + s]) for s in range(players)],
            "upcard": int(record[L.H_UPCARD]), "draws": int(record[L.H_DRAWS]),
            "stock_left": int(record[L.H_STOCK_LEFT])}


def saved_game(path: str | Path) -> PlayedGame:
    """The person's decisions (seat 0) in a game saved by ``oklasim play --save`` or the web table."""
    from oklasim.strategies.registry import resolve
    from oklasim.table.terminal import PersonSeat, ending_mismatch, load_save, seat_names

    record = load_save(Path(path))
    rules, against, seed = Rules.from_dict(record["rules"]), record["against"], record["seed"]
    _two_players(rules, path)
    strategy = resolve(against)

    def no_more(prompt: str) -> str:
        raise _Ended

    person = PersonSeat(rules, seat_names(rules, strategy.name), no_more, lambda text: None, record["moves"])
    try:
        decisions, hands, result = _replay(rules, [person, BotSeat(strategy)], seed, 0, 0)
    except OklasimError as exc:
        raise OklasimError(f"the game saved in {path} does not replay: {exc}") from None
    mismatch = ending_mismatch(record, result is not None)
    if mismatch:
        raise OklasimError(f"the game saved in {path} does not replay: {mismatch}")
    return PlayedGame(rules, seed, 0, "you", against, f"the game saved in {path}", tuple(decisions), tuple(hands),
                      result)


def run_game(run_dir: str | Path, game: int, seat: int) -> PlayedGame:
    """Seat ``seat``'s decisions in game ``game`` of the run in ``run_dir`` (played in games mode)."""
    from oklasim.runs.batch import stored_spec

    spec = stored_spec(run_dir)
    if spec.mode != "games":
        raise OklasimError(f"{run_dir} played single hands (--hands): review takes a game of a run played with "
                           "--games")
    if isinstance(game, bool) or not isinstance(game, int) or not 0 <= game < spec.count:
        raise OklasimError(f"{run_dir} has games 0 to {spec.count - 1}: there is no game {game}")
    played = bot_game(spec.rules_object(), list(spec.strategies), spec.seed, game, seat, spec.strategy_paths,
                      names=spec.labels or spec.strategies)
    return replace(played, source=f"game {game} of the run in {run_dir}")


def bot_game(rules: Rules, strategies: list[str], seed: int, game: int, seat: int, extra_paths=(),
             names=None) -> PlayedGame:
    """Seat ``seat``'s decisions in game ``game`` of ``seed`` between two strategies, as a run plays it."""
    from oklasim.sim.engine import resolve_all

    seats = [BotSeat(s) for s in resolve_all(strategies, 2, extra_paths)]
    return seated_game(rules, seats, list(names or strategies), seed, game, seat)


def seated_game(rules: Rules, seats: list, names: list[str], seed: int, game: int, seat: int) -> PlayedGame:
    """Seat ``seat``'s decisions in game ``game`` of ``seed`` played by two table seats (``table.referee.Seat``:
    a bot, or a scripted player), named ``names`` (the other's name is the opponent the advice assumes)."""
    _two_players(rules, "the game")
    if seat not in (0, 1):
        raise OklasimError(f"seat {seat}: a two-player game has seats 0 and 1")
    decisions, hands, result = _replay(rules, seats, seed, game, seat)
    return PlayedGame(rules, seed, seat, names[seat], names[1 - seat], f"game {game} of seed {seed}",
                      tuple(decisions), tuple(hands), result)


def _two_players(rules: Rules, where) -> None:
    if rules.players != 2:
        raise OklasimError(f"{where} is a {rules.players}-player game: the advisor weighs two-player hands, so only "
                           "those can be reviewed")
