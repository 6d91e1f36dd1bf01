"""Is the advisor calibrated? Predicted vs realised points and undercuts of a knock, against real opponents.

    python benchmarks/advise_calibration.py [--positions 2000] [--worlds 512] [--out reports/advise_calibration]

Plays hands of ``--me`` (seat 0) against each opponent with the engine and
stops at every decision of seat 0 after a draw where a knock is legal. There
the advisor sees only what seat 0 knew and predicts the points and the
undercut risk of the knock with the least deadwood (its first legal discard,
first arrangement) over ``--worlds`` worlds, in two ways: worlds ``as played``
(the prior without a history) and worlds weighted by the opponent's own play
of the history (``--window`` latest turns). The truth is the same knock
settled against the opponent's real hand. A calibrated model has mean error
(predicted minus realised) near 0 and predicts the undercut rate it meets.
Writes ``calibration.json``, ``calibration.png`` and ``README.md`` to ``--out``.
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

from oklasim._kernels import advise_columns_nb as C
from oklasim._kernels.advise_latest_nb import LATEST_TURN_DRAWS
from oklasim._kernels import advise_rollouts_nb as R
from oklasim._kernels import advise_worlds_nb as W
from oklasim._kernels import engine_nb as E
from oklasim._kernels import layout as L
from oklasim.advise.played import positions_from_play, without_history
from oklasim.advise.request import Request
from oklasim.advise.rollouts import FIRST_BATCH, ROULETTE_SHARE, batch_bounds
from oklasim.advise.worlds import Guide, worlds_for
from oklasim.game.rules import Rules
from oklasim.strategies.registry import resolve
from oklasim.strategy_api import parameter_matrix

OPPONENTS = ("greedy", "defensive", "threshold:gin_only", "expert")
MODELS = ("as played", "history")
TARGETS = {"as played": (2.0, 5.0), "history": (1.0, 3.0)}  # |bias| in points, |undercut gap| in pp


def knock_column(view: np.ndarray) -> tuple[np.ndarray, int]:
    columns = np.zeros((C.MAX_COLUMNS, C.N_CAND_FIELDS), dtype=np.int64)
    n = int(C.candidates_nb(view, L.D_KNOCK, 1, L.NO_CARD, columns))
    columns = np.ascontiguousarray(columns[:n])
    return columns, int(np.flatnonzero(columns[:, C.C_KIND] == C.SHOWDOWN)[0])


def predict(worlds, opponent, columns, c, samples, key):
    """Weighted mean points, undercut share and effective sample size of column c over ``samples`` worlds.

    As ``advise`` does: batches growing from a few worlds weighed exactly; then Russian roulette below
    ``ROULETTE_SHARE`` of the heaviest world so far (unbiased; the worlds it drops cost one turn's replay), and a
    guide learnt from the worlds so far drawing half of the next ones where few count (the same posterior)."""
    active = np.zeros(len(columns), dtype=np.int64)
    active[c] = 1
    unset = np.zeros(0)  # the knocking seat's rows: its parameters all zero, as they always were here
    params = parameter_matrix([unset, opponent.vector(), unset, opponent.vector()])
    out = np.zeros((samples, len(columns), R.N_OUT), dtype=np.int64)
    weights = np.zeros(samples)
    hands = np.zeros(samples, dtype=np.int64)
    status = np.zeros(E.STATUS_SIZE, dtype=np.int64)
    guide = Guide(worlds)
    strategies = R.Strategies(me_fn=opponent.decide, opp_fn=opponent.decide, forced_fn=R.forced_nb, params=params)
    question = R.Question(seat_view=worlds.view, kind=L.D_KNOCK, cand=columns, n_cand=len(columns), active=active,
                          game_mode=0)
    evidence = worlds.evidence_for(opponent)
    for lo, hi in batch_bounds(samples, False):
        sampling = R.Sampling(key=key, prior=worlds.prior, evidence=evidence,
                              cutoff=ROULETTE_SHARE * weights[:lo].max(initial=0.0), guide=guide.weights(), repeats=1)
        code = R.advise_batch_nb(strategies, question, sampling,
                                 R.Batch(lo=lo, hi=hi, claims=R.NO_CLAIMS, stop=np.zeros(1, dtype=np.int64)),
                                 R.Outputs(out=out[lo:hi], weights=weights[lo:hi], opponent_hands=hands[lo:hi],
                                           status=status))
        assert code == 0, code
        guide.learn(hands[lo:hi], weights[lo:hi], hi - lo)
    total = weights.sum()
    points = float((weights * out[:, c, R.O_POINTS]).sum() / total)
    undercut = float((weights * out[:, c, R.O_UNDERCUT]).sum() / total)
    return points, undercut, float(total**2 / (weights**2).sum())


def measure(opponent_name: str, args) -> dict:
    opponent = resolve(opponent_name)
    rules = Rules()
    rows = []
    for request, truth, _ in positions_from_play(rules, [args.me, opponent_name], args.hands, args.seed,
                                                 with_history=True):
        model = {"slip": args.slip, "played_draws": args.played_draws}
        worlds = {"history": worlds_for(Request(**request, window=args.window, **model))}
        worlds["as played"] = worlds_for(Request(**without_history(request), **model))
        played = worlds["as played"].position
        columns, c = knock_column(worlds["as played"].view)
        board = np.zeros((L.BOARD_ROWS, L.V_SIZE), dtype=np.int64)
        W.template_nb(worlds["as played"].view, L.D_KNOCK, board)
        _, mine, theirs = R.column_showdown_nb(board, columns[c], truth)
        row = {"actual": int(mine - theirs), "undercut": int(theirs > 0), "stock": played.stock}
        for model in args.models.split(","):
            points, undercut, ess = predict(worlds[model], opponent, columns, c, args.worlds, 1000 + len(rows))
            row[model] = {"points": points, "undercut": undercut, "ess": ess}
        rows.append(row)
        if len(rows) >= args.positions:
            break
    return {"opponent": opponent_name, "rows": rows}


STAGES = ((20, 99), (14, 19), (8, 13), (0, 7))  # stock left at the knock: early to late in the hand


def errors(rows: list[dict], model: str) -> dict:
    """Bias and undercut gap of ``model`` over ``rows`` (the positions where it was measured), ± one SE."""
    actual = np.array([r["actual"] for r in rows], dtype=float)
    under = np.array([r["undercut"] for r in rows], dtype=float)
    pred = np.array([r[model]["points"] for r in rows])
    risk = np.array([r[model]["undercut"] for r in rows])
    err = pred - actual
    root_n = np.sqrt(len(err))
    return {
        "positions": len(rows), "true_undercut": float(under.mean()),
        "bias": float(err.mean()), "bias_se": float(err.std(ddof=1) / root_n),
        "undercut_predicted": float(risk.mean()),
        "undercut_gap_pp": float(100 * (risk.mean() - under.mean())),
        "undercut_gap_se_pp": float(100 * (risk - under).std(ddof=1) / root_n),
        "median_ess": float(np.median([r[model]["ess"] for r in rows])),
    }


def summary(result: dict) -> dict:
    rows = result["rows"]
    out = {"opponent": result["opponent"], "positions": len(rows),
           "true_undercut": float(np.mean([r["undercut"] for r in rows]))}
    for model in MODELS:
        measured = [r for r in rows if model in r]
        if len(measured) < 2:
            continue
        out[model] = errors(measured, model)
        out[model]["by_stage"] = {f"{lo}-{hi}": errors(at, model) for lo, hi in STAGES
                                  if len(at := [r for r in measured if lo <= r["stock"] <= hi]) >= 2}
    return out


def plot(results: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(results), figsize=(4 * len(results), 4), sharey=True)
    for ax, result in zip(np.atleast_1d(axes), results):
        rows = result["rows"]
        for model, colour in zip(MODELS, ("tab:orange", "tab:blue")):
            measured = [r for r in rows if model in r]
            if len(measured) < 2:
                continue
            actual = np.array([r["actual"] for r in measured], dtype=float)
            pred = np.array([r[model]["points"] for r in measured])
            edges = np.unique(np.quantile(pred, np.linspace(0, 1, 9)))
            bins = np.clip(np.digitize(pred, edges[1:-1]), 0, len(edges) - 2)
            xs = [pred[bins == b].mean() for b in range(len(edges) - 1) if (bins == b).any()]
            ys = [actual[bins == b].mean() for b in range(len(edges) - 1) if (bins == b).any()]
            ax.plot(xs, ys, "o-", color=colour, label=model)
        lo, hi = ax.get_xlim()
        ax.plot([lo, hi], [lo, hi], "k:", lw=1)
        ax.set_title(f"vs {result['opponent']} ({len(rows)} knocks)")
        ax.set_xlabel("predicted points of the knock")
    np.atleast_1d(axes)[0].set_ylabel("realised points (mean per bin)")
    np.atleast_1d(axes)[0].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


# Runs pooled by --combine must agree on these; runs made before a setting existed had its first value.
MODEL_SETTINGS = {"worlds": None, "window": None, "slip": None, "me": None, "played_draws": "all", "proposal": "prior"}
PILOT = 64  # the exact worlds before the roulette, in runs drawn from the prior alone (proposal "prior")


def model_of(settings: dict) -> dict:
    """A run's model settings, with the values of runs made before a setting existed."""
    return {k: settings.get(k, old) for k, old in MODEL_SETTINGS.items()}


def command(run: dict) -> str:
    """The command line of one run, with how long it took and the machine's load."""
    s = run["settings"]
    models = "" if s.get("models", ",".join(MODELS)) == ",".join(MODELS) else f" --models {s['models']}"
    draws_option = "" if model_of(s)["played_draws"] == "all" else f" --played-draws {s['played_draws']}"
    return (f"`python benchmarks/advise_calibration.py --positions {s['positions']} --worlds {s['worlds']} "
            f"--window {s['window']} --slip {s['slip']}{draws_option} --me {s['me']} --opponents {s['opponents']} "
            f"--seed {s['seed']} --processes {s['processes']}{models}` in {run['seconds'] / 60:.0f} min "
            f"({run['load']})")


def report(record: dict) -> str:
    """The report's text: settings, the table against the targets, where in the hand the errors are."""
    runs = record["runs"]
    s = runs[0]["settings"]
    turns = "every turn it played" if s["window"] == "0" else f"its latest {s['window']} turns"
    settings = model_of(s)
    before_window = ("" if s["window"] == "0" else ", its hand before them improved by one least-deadwood draw per "
                     "stock draw" + ("" if settings["played_draws"] == "all" else
                                     f", at most {settings['played_draws']}"))
    proposal = (f"the first {PILOT} worlds weighed exactly, the others by Russian roulette below {ROULETTE_SHARE:g} "
                "of the heaviest of them" if settings["proposal"] == "prior" else
                f"like `advise`: batches from {FIRST_BATCH} worlds, weighed exactly at first, then by Russian roulette "
                f"below {ROULETTE_SHARE:g} of the heaviest so far, half the worlds drawn by the guide where few count")
    if len(runs) == 1:
        generated = [f"Generated by {command(runs[0])}."]
    else:
        generated = [f"Pooled by `python benchmarks/advise_calibration.py --combine DIR ...` from {len(runs)} runs "
                     "on different seeds (different positions), with the same model settings; each model over the "
                     "runs that measured it (`--models`):", ""]
        generated += [f"- {command(run)}" for run in runs]
    lines = [
        "# Is `oklasim advise` calibrated?",
        "",
        *generated,
        "",
        f"At every decision of `{s['me']}` (seat 0) after a draw where a knock was legal, in hands against each "
        "opponent, the advisor predicted the points and the undercut risk of the knock with the least deadwood "
        f"from {s['worlds']} worlds, seeing only what seat 0 knew; the truth is the same knock settled against the "
        "opponent's real hand. *as played*: the worlds used without a history (told the pile, what the opponent "
        "took, the stock and the dealer): its hand improved by one least-deadwood draw per turn before its latest, "
        f"at most {LATEST_TURN_DRAWS}, and weighted by how likely the named opponent was to play its latest turn as "
        "it did (the discard on the pile, no knock; `oklasim/advise/last_turn.py`). *history*: the opponent's hand "
        f"weighted by how likely the named opponent was to play {turns} as it did (its own `decide`, slip "
        f"{s['slip']}{before_window}; {proposal}). Targets, per opponent: with the history |bias| <= 1 point and "
        "the undercut risk within 3 percentage points; as played (no history) |bias| <= 2 points and within 5. "
        "Errors are ± one standard error.",
        "",
        "| opponent | model | positions | true undercut | bias (points) | predicted undercut | gap (pp) | median ESS |"
        " targets met |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in record["summaries"]:
        for model in (model for model in MODELS if model in row):
            m = row[model]
            bias, gap = TARGETS[model]
            met = abs(m["bias"]) <= bias and abs(m["undercut_gap_pp"]) <= gap
            lines.append(f"| {row['opponent']} | {model} | {error_cells(m)} | {'yes' if met else 'no'} |")
    lines += ["", "Where in the hand each model errs (stock left at the knock):", "",
              "| opponent | model | stock | positions | true undercut | bias (points) | predicted undercut | "
              "gap (pp) | median ESS |", "|---|---|---|---|---|---|---|---|---|"]
    for row in record["summaries"]:
        for model in (model for model in MODELS if model in row):
            for stage, m in row[model]["by_stage"].items():
                lines.append(f"| {row['opponent']} | {model} | {stage} | {error_cells(m)} |")
    lines += ["", "![calibration](calibration.png)", "",
              "The plot bins the positions by predicted points (octiles) and shows the mean realised points per bin; "
              "a calibrated model lies on the diagonal.", ""]
    return "\n".join(lines)


def error_cells(m: dict) -> str:
    return (f"{m['positions']} | {m['true_undercut']:.1%} | {m['bias']:+.2f} ± {m['bias_se']:.2f} | "
            f"{m['undercut_predicted']:.1%} | {m['undercut_gap_pp']:+.1f} ± {m['undercut_gap_se_pp']:.1f} | "
            f"{m['median_ess']:.0f}")


def measured_runs(args) -> tuple[list[dict], list[dict]]:
    """Measure the opponents now: (runs, results)."""
    started = time.perf_counter()
    names = args.opponents.split(",")
    with ProcessPoolExecutor(args.processes) as pool:
        results = list(pool.map(measure, names, [args] * len(names)))
    settings = {k: str(v) for k, v in vars(args).items() if k not in ("combine", "out")} | {"proposal": "guided"}
    return [{"settings": settings, "seconds": time.perf_counter() - started, "load": machine_load()}], results


def combined_runs(folders: list[Path]) -> tuple[list[dict], list[dict]]:
    """Earlier runs' positions pooled per opponent: (runs, results). ``ValueError`` if their models differ."""
    runs, by_opponent = [], {}
    for folder in folders:
        path = folder / "calibration.json"
        if not path.is_file():
            raise ValueError(f"{path}: no such file; give folders written by this script (its --out)")
        data = json.loads(path.read_text())
        for run in data.get("runs") or [{k: data[k] for k in ("settings", "seconds", "load")}]:
            first = model_of((runs or [run])[0]["settings"])
            differing = [k for k, v in model_of(run["settings"]).items() if v != first[k]]
            if differing:
                raise ValueError(f"{path}: its {', '.join(differing)} differ from the first run's; pool only runs "
                                 "of the same model")
            runs.append(run)
        for result in data["rows"]:
            by_opponent.setdefault(result["opponent"], []).extend(result["rows"])
    return runs, [{"opponent": name, "rows": rows} for name, rows in by_opponent.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=2000, help="knock decisions per opponent")
    parser.add_argument("--hands", type=int, default=None, help="hands played per opponent (default: enough)")
    parser.add_argument("--worlds", type=int, default=512)
    parser.add_argument("--window", type=int, default=Request().window)
    parser.add_argument("--slip", type=float, default=Request().slip)
    parser.add_argument("--played-draws", type=int, default=Request().played_draws,
                        help="the most least-deadwood draws shaping the hand before the window")
    parser.add_argument("--me", default="simple")
    parser.add_argument("--opponents", default=",".join(OPPONENTS))
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--processes", type=int, default=1, help="opponents measured at once")
    parser.add_argument("--models", default=",".join(MODELS),
                        help=f"which worlds to measure, of: {', '.join(MODELS)} (comma-separated)")
    parser.add_argument("--combine", type=Path, nargs="+", metavar="DIR",
                        help="measure nothing: pool the positions of earlier runs (their --out folders, same model "
                             "settings, different seeds) into one report")
    parser.add_argument("--out", type=Path, default=Path("reports/advise_calibration"))
    args = parser.parse_args()
    if args.processes < 1:
        parser.error(f"--processes {args.processes}: at least 1")
    if not set(args.models.split(",")) <= set(MODELS):
        parser.error(f"--models {args.models}: choose among {', '.join(MODELS)}")
    args.hands = args.hands or args.positions * 3
    try:
        runs, results = combined_runs(args.combine) if args.combine else measured_runs(args)
    except ValueError as error:
        parser.error(str(error))
    summaries = [summary(r) for r in results]
    record = {"runs": runs, "summaries": summaries}
    args.out.mkdir(parents=True, exist_ok=True)
    temporary = args.out / "calibration.json.tmp"
    temporary.write_text(json.dumps(record | {"rows": results}, indent=1))
    os.replace(temporary, args.out / "calibration.json")
    plot(results, args.out / "calibration.png")
    (args.out / "README.md").write_text(report(record))
    print(report(record))


if __name__ == "__main__":
    main()
