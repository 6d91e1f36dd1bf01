"""How well `search`'s rulebook mixture learns who it plays: its chances at a game's end against each grid player.

    python benchmarks/opponent_fit.py [--spec "search(samples=512,model=4,carry=1,discards=3)"] [--games 10]
    python benchmarks/opponent_fit.py --spec "search(samples=512,model=4,carry=1,discards=3,fit_timing=1)"

``search(model=4)`` models its opponent as a mixture of twelve ``rulebook``
players (three knock timings, two pile-pickup habits, two discard habits);
with ``carry`` it keeps what each hand's play says of them in its game
memory (issue 49, item 1). Here it plays whole games (the rules' target
score) against players of that grid, each opponent's habits known to us,
and at the end of each game reads the chances it would start the next hand
with (the prior, the showdowns' and the hands' evidence carried as
``carry`` says; ``fit_timing=1`` takes the timing from the showdowns). A
row per habit gives how often the likeliest of its values (the chances
summed over the other habits) is the opponent's own, over every game
against every opponent (chance: one in three for the timing, one in two
for the others), with a 95% Wilson interval. The opponents (``--opponents``,
each ``timing,pickup,discard`` by index into the grid's habits) default to
four that differ in every habit; game ``g`` is dealt alike for each.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from common import machine_load

from oklasim.analysis.stats import proportion
from oklasim.game.rules import PRESETS, Rules
from oklasim.sim.board import GameBoard
from oklasim.strategies.families import search as S
from oklasim.strategies.registry import resolve

HABITS = ("timing", "pickup", "discard")
DEFAULT_OPPONENTS = "0,1,0;1,0,1;2,1,1;1,1,0"


def grid_player(habits: tuple[int, int, int]) -> str:
    """The rulebook spec of the grid's player with those habits (indexes into TIMINGS, PICKUPS, DISCARD_HABITS)."""
    timing, pickup, discard = habits
    values = {**S.TIMINGS[timing], **S.PICKUPS[pickup], **S.DISCARD_HABITS[discard]}
    return "rulebook(" + ",".join(f"{name}={value}" for name, value in values.items()) + ")"


def parse_opponents(text: str) -> list[tuple[int, int, int]] | None:
    """The grid players named by ``text`` ('timing,pickup,discard' triples separated by ';'); None if malformed."""
    sizes = (S.N_TIMINGS, len(S.PICKUPS), len(S.DISCARD_HABITS))
    try:
        opponents = [tuple(int(i) for i in triple.split(",")) for triple in text.split(";")]
    except ValueError:
        return None
    fits = all(len(habits) == 3 and all(0 <= i < size for i, size in zip(habits, sizes)) for habits in opponents)
    return opponents if fits else None


def chances_at_the_end(spec: str, opponent: str, rules: Rules, seed: int, game: int) -> np.ndarray:
    """The grid's chances the searcher (seat 0) would start another hand with, after a whole game, as
    (timing, pickup, discard) axes."""
    searcher, member = resolve(spec), resolve(opponent)
    params = searcher.vector()
    board = GameBoard(rules, seed, game, events=False)
    while (asked := board.next_decision()) is not None:
        seat, kind = asked
        player = searcher if seat == 0 else member
        board.apply(seat, kind, int(player.decide(kind, board.view(seat), params if seat == 0 else member.vector())))
    view = board.view(0).copy()
    view[S.HAND_FOLDED] = 0  # fold the last hand in, as the next hand's first decision would
    _, _, prior, _ = S.opponent_models_nb(view, params)
    grid_from = 0 if params[S.FIT_TIMING] else -1
    chances = S.carried_prior_nb(view, prior, params[S.CARRY], grid_from) if params[S.CARRY] > 0 else prior
    return (chances / chances.sum()).reshape(S.N_TIMINGS, len(S.PICKUPS), len(S.DISCARD_HABITS))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", default="search(samples=512,model=4,carry=1,discards=3)",
                        help="the searcher: a search spec with model=4")
    parser.add_argument("--opponents", default=DEFAULT_OPPONENTS,
                        help="grid players, ';'-separated, each 'timing,pickup,discard' (indexes into the habits)")
    parser.add_argument("--games", type=int, default=10, help="games per opponent")
    parser.add_argument("--rules", default="eaai", choices=sorted(PRESETS))
    parser.add_argument("--seed", type=int, default=31)
    args = parser.parse_args()
    if resolve(args.spec).vector()[S.MODEL] != S.MODEL_RULEBOOK:
        parser.error(f"--spec {args.spec!r}: this measures model=4's mixture; add model=4")
    opponents = parse_opponents(args.opponents)
    if opponents is None:
        parser.error(f"--opponents {args.opponents!r}: give 'timing,pickup,discard' triples separated by ';', each "
                     f"an index below ({S.N_TIMINGS}, {len(S.PICKUPS)}, {len(S.DISCARD_HABITS)})")
    rules = Rules.preset(args.rules)
    print(f"opponent_fit: {machine_load()} at the start; {args.spec}, rules {args.rules}, seed {args.seed}")
    right = np.zeros(len(HABITS), dtype=np.int64)
    started = time.perf_counter()
    for habits in opponents:
        for game in range(args.games):
            cube = chances_at_the_end(args.spec, grid_player(habits), rules, args.seed, game)
            likeliest = [int(np.argmax(cube.sum(axis=tuple(a for a in range(3) if a != axis)))) for axis in range(3)]
            right += np.array(likeliest) == np.array(habits)
        print(f"  {grid_player(habits)}: {args.games} games", flush=True)
    total = len(opponents) * args.games
    for name, hits in zip(HABITS, right):
        share = proportion(int(hits), total)
        print(f"{name:<8} likeliest right {hits:>3} of {total}: {share.mean:.0%} [{share.low:.0%}, {share.high:.0%}]")
    print(f"{time.perf_counter() - started:.0f} s; {machine_load()} at the end")


if __name__ == "__main__":
    main()
