"""Does the review find real mistakes, and leave correct decisions alone? Checked against injected mistakes.

    python benchmarks/review_recall.py [--games 300] [--hold 0.5] [--opponent expert] [--out reports/review_recall]

A scripted "person" plays ``expert`` but, where expert would knock (not at the wall), holds instead with
probability ``--hold``: those holds are the injected mistakes. The person's knock decisions (a knock was legal;
every injected one, and ``--others-per-game`` others drawn at random) are each judged twice: by the review at
its default budget (``--samples``, seed ``--seed``), and by a *truth* run on a fresh stream with
``--truth-factor`` times the worlds. An injected hold "costs 2 points or more" when the
truth finds knocking better by at least that (with confidence); a decision is "correct" when it was not injected
and the truth finds no better play with confidence. Reported: the review's recall on the costly injected
mistakes (target >= 80%) and the share of correct decisions it flags as mistakes (target <= 5%), with Wilson
intervals. Writes ``recall.json`` and ``README.md`` to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from common import machine_load

from oklasim._kernels import layout as L
from oklasim.analysis.stats import proportion
from oklasim.game.rules import Rules
from oklasim.review.game import KNOCK, seated_game
from oklasim.review.judge import MISTAKE, NOT_JUDGED, REVIEW_SAMPLES, judge
from oklasim.strategies.registry import resolve
from oklasim.table.referee import BotSeat

COSTLY = 2.0  # points: the injected mistakes the review must find
TRUTH_SEED = 1_000_003  # the truth samples streams apart from the review's


class HoldsAtRandom(BotSeat):
    """``expert`` that holds, with probability ``hold``, where it would knock (never at the wall, where holding
    voids the hand): a player with known, deliberate mistakes. ``injected`` has one flag per knock offer."""

    def __init__(self, hold: float, seed: int, game: int):
        super().__init__(resolve("expert"))
        self.hold, self.rng = hold, np.random.default_rng([seed, game])
        self.injected: list[bool] = []

    def decide(self, kind: int, view: np.ndarray) -> int:
        answer = super().decide(kind, view)
        if kind != L.D_KNOCK:
            return answer
        inject = answer != L.NO_CARD and not view[L.V_LAST_CHANCE] and self.rng.random() < self.hold
        self.injected.append(bool(inject))
        return L.NO_CARD if inject else answer


def one_game(game: int, args) -> list[dict]:
    rules = Rules.preset(args.rules)
    person = HoldsAtRandom(args.hold, args.seed, game)
    played = seated_game(rules, [person, BotSeat(resolve(args.opponent))], ["person", args.opponent], args.seed,
                         game, 0)
    knocks = [d for d in played.decisions if d.kind == KNOCK]
    assert len(knocks) == len(person.injected)
    # Every injected hold is judged, and a few of the other knock decisions, drawn at random: judging them all
    # would cost four times as much for the same answer.
    others = [k for k, injected in enumerate(person.injected) if not injected]
    kept = set(np.random.default_rng([args.seed, game, 1]).permutation(others)[:args.others_per_game].tolist())
    rows = []
    for k, (d, injected) in enumerate(zip(knocks, person.injected, strict=True)):
        if not injected and k not in kept:
            continue
        review = judge(played, d, args.samples, args.seed)
        truth = judge(played, d, args.samples * args.truth_factor, TRUTH_SEED + args.seed)
        rows.append({"game": game, "hand": d.hand, "stock_left": d.stock_left, "injected": injected,
                     "played": review.played, "review": _verdict(review), "truth": _verdict(truth)})
    return rows


def _verdict(j) -> dict:
    return {"verdict": j.verdict, "best": j.best, "best_knocks": j.best_knocks, "ess": j.ess,
            "lost": None if j.lost is None else [j.lost.mean, j.lost.low, j.lost.high]}


def summarise(rows: list[dict]) -> dict:
    costly = [r for r in rows if r["injected"] and r["truth"]["verdict"] == MISTAKE and r["truth"]["best_knocks"]
              and r["truth"]["lost"][0] >= COSTLY]
    correct = [r for r in rows if not r["injected"] and r["truth"]["verdict"] not in (MISTAKE, NOT_JUDGED)]
    found = sum(r["review"]["verdict"] == MISTAKE for r in costly)
    flagged = sum(r["review"]["verdict"] == MISTAKE for r in correct)
    injected = [r for r in rows if r["injected"]]
    return {
        "knock_decisions": len(rows), "injected": len(injected),
        "injected_found": sum(r["review"]["verdict"] == MISTAKE for r in injected),
        "injected_not_judged_by_truth": sum(r["truth"]["verdict"] == NOT_JUDGED for r in injected),
        "costly_injected": len(costly), "recall": proportion(found, len(costly)).as_dict() if costly else None,
        "correct": len(correct), "flagged": proportion(flagged, len(correct)).as_dict() if correct else None,
        "review_not_judged": sum(r["review"]["verdict"] == NOT_JUDGED for r in rows),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--hold", type=float, default=0.5)
    parser.add_argument("--opponent", default="expert")
    parser.add_argument("--rules", default="seeds")
    parser.add_argument("--samples", type=int, default=REVIEW_SAMPLES)
    parser.add_argument("--truth-factor", type=int, default=4)
    parser.add_argument("--others-per-game", type=int, default=2, help="Knock decisions judged per game besides "
                        "the injected ones.")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--processes", type=int, default=os.cpu_count())
    parser.add_argument("--out", type=Path, default=Path("reports/review_recall"))
    args = parser.parse_args()
    started = time.perf_counter()
    rows: list[dict] = []
    with ProcessPoolExecutor(args.processes) as pool:
        for number, game_rows in enumerate(pool.map(one_game, range(args.games), [args] * args.games), 1):
            rows += game_rows
            if number % 10 == 0 or number == args.games:
                print(f"{number} games, {len(rows)} knock decisions: {summarise(rows)}", flush=True)
    summary = summarise(rows)
    seconds = time.perf_counter() - started
    args.out.mkdir(parents=True, exist_ok=True)
    settings = {k: str(v) for k, v in vars(args).items()}
    (args.out / "recall.json").write_text(json.dumps({"settings": settings, "seconds": seconds,
                                                      "load": machine_load(), "summary": summary, "rows": rows},
                                                     indent=1))
    (args.out / "README.md").write_text(readme(settings, summary, seconds))
    print(json.dumps(summary, indent=1))


def readme(settings: dict, s: dict, seconds: float) -> str:
    def pct(p):
        return "n/a" if p is None else f"{100 * p['mean']:.1f}% [{100 * p['ci95'][0]:.1f}, {100 * p['ci95'][1]:.1f}]"

    command = "python benchmarks/review_recall.py " + " ".join(
        f"--{k.replace('_', '-')} {v}" for k, v in settings.items() if k != "out")
    return f"""# Does `oklasim review` find the mistakes?

`{command}` in {seconds / 60:.0f} min ({machine_load()}).

{__doc__.split(chr(10), 3)[3].strip()}

| figure | value |
|---|---|
| knock decisions judged | {s['knock_decisions']:,} |
| injected holds | {s['injected']:,} (the review flags {s['injected_found']:,}) |
| injected holds costing {COSTLY:g} points or more (truth) | {s['costly_injected']:,} |
| **recall** on those (target >= 80%) | **{pct(s['recall'])}** |
| correct decisions (not injected, no better play per the truth) | {s['correct']:,} |
| **flagged as mistakes** (target <= 5%) | **{pct(s['flagged'])}** |
| knock decisions the review could not judge | {s['review_not_judged']:,} |
"""


if __name__ == "__main__":
    main()
