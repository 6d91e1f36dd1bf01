"""Study: when to knock, by knock limit, against a panel of opponents, with an equilibrium and whole games.

(One study per module, as every study kind: its stages and its report share the options and the tables; what
other studies share is apart: ``knock_answers``, ``knock_equilibrium``, ``knock_scores``, ``paired_pool``.)

Every rule of a grid (``threshold`` strategy: knock with deadwood <= T, and
only gin after the player's G-th draw) plays the same deals against every
opponent of a panel, each deal in both seatings. Deals are stratified by knock
limit: ``hands`` deals *per limit*, each dealt with an upcard of that limit
(the rest uniform), so no limit lives on its share of the upcards. Per
undercut bonus and knock limit the study reports

* the best rule against each opponent, against the panel's mix (each
  opponent equally likely) and the max-min rule (best worst case), each with
  its tied set (``knock_answers``): the advice is worded over the tied set;
* honest figures: rules are chosen on the deals of ``seed`` and their gain
  over knocking at once is measured again on fresh deals (``confirm_seed``);
  both are reported, and whether they agree;
* an equilibrium of the rule game itself, both seats choosing from the grid
  (``knock_equilibrium``), and its exploitability: the best deviation picked
  on fresh deals, its gain measured on a third sample (``exploit_seed``)
  sized to reach ``exploit_half_width``;
* the answers played as whole games to the target score (``policy``
  strategy) against each opponent: game win rates, and points per hand by
  score band before the hand (``knock_scores``).

Options: ``opponents``, ``thresholds``, ``gin_after_draws`` (and their
``quick_`` versions), ``undercut_bonuses``, ``confirm_seed`` (default seed + 1),
``exploit_seed`` (default seed + 2), ``exploit_half_width``, ``exploit_hands`` /
``quick_exploit_hands`` (the most deals per limit for the exploitability),
``equilibrium_rounds`` / ``quick_equilibrium_rounds``, ``equilibrium_tolerance``,
``games`` / ``quick_games`` (whole games per policy, opponent and seating),
``score_bands`` (band edges).
"""

from __future__ import annotations

import io
import json
import logging
import zipfile
from dataclasses import asdict
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import polars as pl

from oklasim.analysis.report import Report
from oklasim.analysis.stats import mean_ci
from oklasim.errors import OklasimError
from oklasim.runs.storage import atomic_write_bytes, read_json, read_table
from oklasim.studies import knock_equilibrium, knock_policy, knock_scores
from oklasim.studies.knock_answers import (
    ASAP,
    MAXMIN,
    MIX,
    NEVER,
    advice_over,
    agrees,
    best_against,
    canonical,
    distinct_rules,
    max_min,
    rule_words,
)
from oklasim.studies.knock_equilibrium import play_grid
from oklasim.studies.knock_policy import LIMIT_NAMES
from oklasim.studies.paired_pool import GamesPlayed, Pairing, play_games
from oklasim.studies.spec import Experiment, provenance, result_key

log = logging.getLogger(__name__)
DEFAULTS = {
    "opponents": ["greedy", "defensive", "threshold:gin_only", "threshold:early_then_gin", "expert"],
    "thresholds": list(range(11)),
    "gin_after_draws": [NEVER, 3, 5, 7, 9],
    "quick_thresholds": [0, 3, 5, 10],
    "quick_gin_after_draws": [NEVER, 3, 7],
    "undercut_bonuses": [10, 25],
    "confirm_seed": None,
    "exploit_seed": None,
    "exploit_half_width": 0.05,
    "exploit_hands": 40_000,
    "quick_exploit_hands": 2_000,
    "equilibrium_rounds": 6,
    "quick_equilibrium_rounds": 2,
    "equilibrium_tolerance": 0.02,
    "games": 4000,
    "quick_games": 100,
    "score_bands": [50, 80],
}
FILES = {"selection": "selection.npz", "panel": "panel.parquet", "answers": "answers.parquet",
         "equilibrium": "equilibrium.parquet", "games": "games.parquet", "bands": "bands.parquet"}
EXPLOIT_TARGET = 0.1  # points/hand: issue 14's bound on the equilibrium's exploitability (upper 95% end)
POLICY_FILE = "policy.csv"  # the answers and the equilibrium together, as `oklasim policy` reads them


def options(experiment: Experiment) -> dict:
    unknown = set(experiment.options) - set(DEFAULTS)
    if unknown:
        raise OklasimError(f"{experiment.source}: unknown option(s) {', '.join(sorted(unknown))}")
    opts = DEFAULTS | experiment.options
    if opts["confirm_seed"] is None:
        opts["confirm_seed"] = experiment.seed + 1
    if opts["exploit_seed"] is None:
        opts["exploit_seed"] = experiment.seed + 2
    return opts


def grid(opts: dict, quick: bool) -> list[tuple[int, int]]:
    prefix = "quick_" if quick else ""
    return [(t, g) for t in opts[f"{prefix}thresholds"] for g in opts[f"{prefix}gin_after_draws"]]


def check(experiment: Experiment) -> None:
    opts = options(experiment)
    if experiment.mode != "hands":
        raise OklasimError(f"{experiment.source}: knock_thresholds measures hands: use hands = N")
    for quick in (False, True):
        if ASAP not in grid(opts, quick):
            raise OklasimError(f"{experiment.source}: the grid must hold the asap cell (threshold 10, gin_after_draws 99)")
    if experiment.base_rules().players != 2:
        raise OklasimError(f"{experiment.source}: knock_thresholds is a two-player study")
    if not opts["opponents"]:
        raise OklasimError(f"{experiment.source}: the panel needs at least one opponent")
    if min(opts["equilibrium_rounds"], opts["quick_equilibrium_rounds"]) < 1:
        raise OklasimError(f"{experiment.source}: the equilibrium needs at least 1 round")
    if len({experiment.seed, opts["confirm_seed"], opts["exploit_seed"]}) < 3:
        raise OklasimError(f"{experiment.source}: seed, confirm_seed and exploit_seed must differ (fresh deals)")
    if not opts["exploit_half_width"] > 0 or min(opts["exploit_hands"], opts["quick_exploit_hands"]) < 2:
        raise OklasimError(f"{experiment.source}: exploit_half_width must be > 0 and exploit_hands at least 2")


def short(rule: tuple[int, int], limit: int) -> str:
    """A rule in a few characters: 'gin only', '<=5 to draw 7', 'any'."""
    threshold, gin_after = canonical(rule, limit)
    if threshold == 0 or limit == 0:
        return "gin only"
    knock = "any" if threshold >= limit else f"<={threshold}"
    return knock if gin_after >= NEVER else f"{knock} to draw {gin_after}"


GRID_OPTIONS = ("thresholds", "gin_after_draws", "quick_thresholds", "quick_gin_after_draws", "undercut_bonuses")
EQUILIBRIUM_OPTIONS = ("confirm_seed", "equilibrium_rounds", "quick_equilibrium_rounds", "equilibrium_tolerance",
                       "exploit_seed", "exploit_half_width", "exploit_hands", "quick_exploit_hands")
STAGE_OPTIONS = {  # what each stored part depends on besides the deals and rules: a change redoes only what it touches
    "selection": ("opponents", *GRID_OPTIONS),
    "panel": ("opponents", *GRID_OPTIONS),
    "answers": ("opponents", *GRID_OPTIONS, "confirm_seed"),
    "equilibrium": GRID_OPTIONS + EQUILIBRIUM_OPTIONS,
    "games": tuple(DEFAULTS),
    "bands": tuple(DEFAULTS),
}
STAGES_FILE = "stages.json"


def stage_keys(experiment: Experiment) -> dict[str, str]:
    """Per stored part, a digest of everything its results depend on."""
    opts = options(experiment)
    common = {k: v for k, v in asdict(experiment).items() if k in ("mode", "count", "seed", "rules", "quick")}
    keys = {}
    for name, used in STAGE_OPTIONS.items():
        data = common | {key: opts[key] for key in used}
        keys[name] = result_key(data)
    return keys


# What reading a damaged part raises: polars' and numpy's errors for a file that is not what was written.
DAMAGED = (pl.exceptions.PolarsError, OSError, ValueError, EOFError, zipfile.BadZipFile)


class _Stages:
    """Finished parts of a run on disk: a part is reused only while everything it depends on is unchanged and its
    file reads back whole (a damaged part, or a damaged record of them, is made again)."""

    def __init__(self, run_dir: Path, keys: dict[str, str]):
        self.run_dir, self.keys = run_dir, keys
        record = run_dir / STAGES_FILE
        try:
            done = read_json(record, "") if record.is_file() else {}
        except OklasimError:
            done = {}  # a damaged record: every part is made again
        self.done = done if isinstance(done, dict) else {}
        for name, key in keys.items():
            if self.done.get(name) != key:
                (run_dir / FILES[name]).unlink(missing_ok=True)
                self.done.pop(name, None)
        (run_dir / POLICY_FILE).unlink(missing_ok=True)  # rewritten from the parts at the end of every run

    def _finished(self, name: str) -> bool:
        return self.done.get(name) == self.keys[name] and (self.run_dir / FILES[name]).is_file()

    def _record(self, name: str, data: bytes) -> None:
        atomic_write_bytes(self.run_dir / FILES[name], data)
        self.done[name] = self.keys[name]
        atomic_write_bytes(self.run_dir / STAGES_FILE, json.dumps(self.done, indent=2, sort_keys=True).encode())

    def _part(self, name: str, make, write, read):
        """The part ``name``: read back if finished and whole, else made, written and read back."""
        path = self.run_dir / FILES[name]
        if self._finished(name):
            try:
                return read(path)
            except DAMAGED as exc:
                log.info("%s is damaged (%s): made again", path, type(exc).__name__)
        buffer = io.BytesIO()
        write(make(), buffer)
        self._record(name, buffer.getvalue())
        return read(path)

    def frame(self, name: str, make) -> pl.DataFrame:
        return self._part(name, make, lambda frame, buffer: frame.write_parquet(buffer), pl.read_parquet)

    def arrays(self, name: str, make) -> dict[str, np.ndarray]:
        return self._part(name, make, lambda arrays, buffer: np.savez(buffer, **arrays), _load_arrays)


def _load_arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as data:
        return {key: data[key] for key in data.files}


def run(experiment: Experiment, run_dir: Path, workers) -> None:
    opts = options(experiment)
    stages = _Stages(run_dir, stage_keys(experiment))
    rules_grid = grid(opts, experiment.quick)
    base = experiment.base_rules()
    bonuses, opponents = opts["undercut_bonuses"], opts["opponents"]
    rules_of = {bonus: base.replace(undercut_bonus=bonus) for bonus in bonuses}

    def select() -> dict[str, np.ndarray]:
        every_rule = {limit: distinct_rules(rules_grid, limit) for limit in base.knock_limits()}
        rows = [(rules_of[b], o) for b in bonuses for o in opponents]
        nets, limits = play_grid(rows, rules_grid, every_rule, experiment.count, experiment.seed, workers)
        return {"nets": nets.reshape(len(bonuses), len(opponents), len(rules_grid), -1).astype(np.float32),
                "limits": limits}

    selection = stages.arrays("selection", select)
    nets, limits = selection["nets"].astype(np.float64), selection["limits"]
    stages.frame("panel", lambda: _panel_table(nets, limits, rules_grid, bonuses, opponents))
    answers = stages.frame("answers", lambda: _answers(nets, limits, rules_grid, rules_of, opponents, experiment,
                                                       opts, workers))
    equilibrium = stages.frame("equilibrium", lambda: _equilibria(rules_grid, rules_of, experiment, opts, workers))
    policies = _policies(answers, equilibrium)
    played = {}  # whole games are played once for both of their tables

    def games(part: int) -> pl.DataFrame:
        if not played:
            played["tables"] = _games(policies, rules_of, opponents, experiment, opts, workers)
        return played["tables"][part]

    stages.frame("games", lambda: games(0))
    stages.frame("bands", lambda: games(1))
    policy_rows = pl.concat([answers, _equilibrium_answers(equilibrium)], how="diagonal_relaxed").with_columns(
        command=pl.lit(provenance(experiment, {})["reproduce"]), quick=pl.lit(experiment.quick))
    atomic_write_bytes(run_dir / POLICY_FILE, _csv(policy_rows.sort("undercut_bonus", "knock_limit", "answer")))


def _csv(frame: pl.DataFrame) -> bytes:
    buffer = io.BytesIO()
    frame.write_csv(buffer)
    return buffer.getvalue()


# -- single hands: the panel and its answers -------------------------------------------------------------


def _panel_table(nets, limits, rules_grid, bonuses, opponents) -> pl.DataFrame:
    """Every distinct rule per limit against each opponent and the mix: points and gain over knocking at once."""
    asap = rules_grid.index(ASAP)
    rows = []
    for b, bonus in enumerate(bonuses):
        views = {name: nets[b, o] for o, name in enumerate(opponents)} | {MIX: nets[b].mean(axis=0)}
        for limit in sorted(int(x) for x in np.unique(limits)):
            deals = limits == limit
            for index in distinct_rules(rules_grid, limit):
                for against, values in views.items():
                    points = mean_ci(values[index, deals])
                    gain = mean_ci(values[index, deals] - values[asap, deals])
                    t, g = canonical(rules_grid[index], limit)
                    rows.append({"undercut_bonus": bonus, "against": against, "knock_limit": limit, "threshold": t,
                                 "gin_after_draws": g, "n": points.n, "points": points.mean, "points_lo": points.low,
                                 "points_hi": points.high, "gain": gain.mean, "gain_lo": gain.low, "gain_hi": gain.high})
    return pl.DataFrame(rows)


def _choices(values: np.ndarray, names: list[str], rules_grid, limit: int):
    """(answer, choice) per opponent, for the mix and max-min, on ``values[opponent, rule, deal]`` at one limit."""
    candidates = distinct_rules(rules_grid, limit)
    asap = rules_grid.index(ASAP)
    out = [(name, best_against(values[o], candidates, asap, name)) for o, name in enumerate(names)]
    out.append((MIX, best_against(values.mean(axis=0), candidates, asap, f"panel mix ({', '.join(names)})")))
    out.append((MAXMIN, max_min(values, names, candidates, asap)))
    return out


def _answers(nets, limits, rules_grid, rules_of, opponents, experiment, opts, workers) -> pl.DataFrame:
    """Choose on the selection deals, then replay the chosen rules and knocking at once on fresh deals."""
    bonuses = list(rules_of)
    limit_values = sorted(int(x) for x in np.unique(limits))
    chosen = {(b, limit): _choices(nets[b][:, :, limits == limit], opponents, rules_grid, limit)
              for b in range(len(bonuses)) for limit in limit_values}
    replay = {limit: [rules_grid.index(ASAP)] + [c.best for (_, at), found in chosen.items() if at == limit
                                                 for _, c in found] for limit in limit_values}
    fresh, fresh_limits = play_grid([(rules_of[bonus], o) for bonus in bonuses for o in opponents], rules_grid, replay,
                                    experiment.count, opts["confirm_seed"], workers)
    fresh = fresh.reshape(len(bonuses), len(opponents), len(rules_grid), -1)
    asap = rules_grid.index(ASAP)
    rows = []
    for (b, limit), found in chosen.items():
        deals = fresh_limits == limit
        for answer, choice in found:
            if answer == MIX:
                values = fresh[b][:, :, deals].mean(axis=0)
            else:
                values = fresh[b, opponents.index(choice.against if answer == MAXMIN else answer)][:, deals]
            confirmed = mean_ci(values[choice.best] - values[asap])
            tied = [rules_grid[i] for i in choice.tied]
            best = canonical(rules_grid[choice.best], limit)
            rows.append({
                "undercut_bonus": bonuses[b], "knock_limit": limit, "answer": answer, "against": choice.against,
                "threshold": best[0], "gin_after_draws": best[1],
                "advice": advice_over([rules_grid[choice.best], *tied], limit),
                "tied": len(set(canonical(r, limit) for r in tied)),
                "tied_rules": "; ".join(dict.fromkeys(short(r, limit) for r in [rules_grid[choice.best], *tied])),
                "points": choice.points.mean, "points_lo": choice.points.low, "points_hi": choice.points.high,
                "gain": choice.gain.mean, "gain_lo": choice.gain.low, "gain_hi": choice.gain.high,
                "confirmed_gain": confirmed.mean, "confirmed_lo": confirmed.low, "confirmed_hi": confirmed.high,
                "agrees": agrees(choice.gain, confirmed), "deals": choice.points.n, "confirm_deals": confirmed.n,
                "seed": experiment.seed, "confirm_seed": opts["confirm_seed"],
                "rules": json.dumps(rules_of[bonuses[b]].to_dict(), sort_keys=True),
            })
    return pl.DataFrame(rows).sort("undercut_bonus", "knock_limit", "answer")


# -- the equilibrium -------------------------------------------------------------------------------------


def _equilibria(rules_grid, rules_of, experiment, opts, workers) -> pl.DataFrame:
    rounds = opts["quick_equilibrium_rounds" if experiment.quick else "equilibrium_rounds"]
    rows = []
    for bonus, rules in rules_of.items():
        solution = knock_equilibrium.solve(rules_grid, rules, experiment.count, experiment.seed, workers, rounds,
                                           opts["equilibrium_tolerance"])
        knock_equilibrium.confirm(solution, rules_grid, rules, experiment.count, opts["confirm_seed"], workers)
        knock_equilibrium.exploit(solution, rules, opts["exploit_seed"], workers, opts["exploit_half_width"],
                                  opts["quick_exploit_hands" if experiment.quick else "exploit_hands"])
        for limit, found in sorted(solution.by_limit.items()):
            mix = sorted(((w, rule) for rule, w in found.mix.items() if w >= knock_equilibrium.MIX_SHOWN), reverse=True)
            main = mix[0][1]
            rows.append({
                "undercut_bonus": bonus, "knock_limit": limit, "threshold": main[0], "gin_after_draws": main[1],
                "mix": "; ".join(f"{short(rule, limit)} {w:.0%}" for w, rule in mix),
                "advice": rule_words(main, limit) if len(mix) == 1 else
                f"mostly: {rule_words(main, limit)} (a mix: {'; '.join(short(r, limit) for _, r in mix)})",
                "best_response": short(found.best_response, limit),
                "confirmed_response": short(found.confirmed_response, limit),
                "exploitability": found.exploitability.mean, "exploitability_lo": found.exploitability.low,
                "exploitability_hi": found.exploitability.high, "confirmed_exploitability": found.confirmed.mean,
                "confirmed_lo": found.confirmed.low, "confirmed_hi": found.confirmed.high,
                "deviation": short(found.deviation, limit) if found.deviation else "none (every rule is in the mix)",
                "deviation_sd": found.deviation_sd, "exploit": found.exploit.mean, "exploit_lo": found.exploit.low,
                "exploit_hi": found.exploit.high, "exploit_deals": found.exploit.n,
                "deals": found.exploitability.n, "rounds": solution.rounds, "policies": len(solution.columns),
                "seed": experiment.seed, "confirm_seed": opts["confirm_seed"], "exploit_seed": opts["exploit_seed"],
                "rules": json.dumps(rules.to_dict(), sort_keys=True),
            })
    return pl.DataFrame(rows)


def _equilibrium_answers(equilibrium: pl.DataFrame) -> pl.DataFrame:
    """The equilibrium rows in the answers' shape: its figure is the honest exploitability, against the family."""
    return equilibrium.select(
        "undercut_bonus", "knock_limit", pl.lit("equilibrium").alias("answer"),
        pl.lit("any rule of the family (exploitability)").alias("against"), "threshold", "gin_after_draws", "advice",
        pl.col("mix").alias("tied_rules"), pl.col("exploitability").alias("gain"),
        pl.col("exploitability_lo").alias("gain_lo"), pl.col("exploitability_hi").alias("gain_hi"),
        pl.col("exploit").alias("confirmed_gain"), pl.col("exploit_lo").alias("confirmed_lo"),
        pl.col("exploit_hi").alias("confirmed_hi"), pl.col("exploit_deals").alias("confirm_deals"), "deals", "seed",
        pl.col("exploit_seed").alias("confirm_seed"), "rules")


# -- whole games -----------------------------------------------------------------------------------------


def _policies(answers: pl.DataFrame, equilibrium: pl.DataFrame) -> dict[int, dict[str, str]]:
    """Per undercut bonus the policies played in whole games: {label: policy strategy spec}."""
    out = {}
    for bonus in answers["undercut_bonus"].unique().sort().to_list():
        def rules_of(frame):
            return {row["knock_limit"]: (row["threshold"], row["gin_after_draws"])
                    for row in frame.filter(pl.col("undercut_bonus") == bonus).iter_rows(named=True)}
        out[bonus] = {
            "knock at once": "policy",
            "max-min answer": knock_equilibrium.policy_spec(rules_of(answers.filter(pl.col("answer") == MAXMIN))),
            "panel-mix answer": knock_equilibrium.policy_spec(rules_of(answers.filter(pl.col("answer") == MIX))),
            "equilibrium (main rule)": knock_equilibrium.policy_spec(rules_of(equilibrium)),
        }
    return out


def _games(policies, rules_of, opponents, experiment, opts, workers) -> tuple[pl.DataFrame, pl.DataFrame]:
    count = opts["quick_games" if experiment.quick else "games"]
    keys = [(bonus, label, spec, o)
            for bonus, named in policies.items() for label, spec in named.items() for o in opponents]
    pairings = [Pairing(rules_of[bonus], spec, o) for bonus, _, spec, o in keys]
    played = play_games(pairings, count, experiment.seed, workers)
    games, bands = [], []
    for (bonus, label, spec, opponent), result in zip(keys, played):
        games.append({"undercut_bonus": bonus, "strategy": label, "opponent": opponent} | knock_scores.win_rates(result)
                     | {"spec": spec})
    for bonus, named in policies.items():
        for label in named:
            parts = [r for (b, lab, _, _), r in zip(keys, played) if (b, lab) == (bonus, label)]
            bands.append(knock_scores.by_band(GamesPlayed.pooled(parts), opts["score_bands"]).with_columns(
                undercut_bonus=pl.lit(bonus), strategy=pl.lit(label)))
    return pl.DataFrame(games), pl.concat(bands).sort("undercut_bonus", "strategy", "own_band", "their_band")


# -- the report ------------------------------------------------------------------------------------------


def _heatmap(panel: pl.DataFrame, bonuses: list[int]):
    """Gain over knocking at once against the panel mix, by knock limit and threshold (never only gin)."""
    fig, axes = plt.subplots(1, len(bonuses), figsize=(6.6 * len(bonuses), 4.4), squeeze=False, layout="constrained")
    for ax, bonus in zip(axes[0], bonuses):
        cells = panel.filter((pl.col("undercut_bonus") == bonus) & (pl.col("against") == MIX)
                             & (pl.col("gin_after_draws") == NEVER))
        limits = sorted(cells["knock_limit"].unique().to_list())
        thresholds = sorted(cells["threshold"].unique().to_list())
        values = np.full((len(limits), len(thresholds)), np.nan)
        for row in cells.iter_rows(named=True):
            values[limits.index(row["knock_limit"]), thresholds.index(row["threshold"])] = row["gain"]
        bound = np.nanmax(np.abs(values)) or 1.0
        image = ax.imshow(values, cmap="RdBu", vmin=-bound, vmax=bound, aspect="auto", origin="lower")
        ax.set_xticks(range(len(thresholds)), [str(t) if t < 10 else "any" for t in thresholds])
        ax.set_yticks(range(len(limits)), [LIMIT_NAMES.get(x, str(x)) for x in limits])
        ax.set_xlabel("knock with deadwood <= T")
        ax.set_ylabel("knock limit (upcard)")
        ax.set_title(f"undercut bonus {bonus}, against the panel mix")
        fig.colorbar(image, ax=ax, label="gain over knocking at once (points/hand)")
    return fig


def _by_opponent_figure(panel: pl.DataFrame, bonus: int, opponents: list[str]):
    """The gain of holding for gin over knocking at once, per opponent (its sign can depend on whom you play)."""
    fig, ax = plt.subplots(figsize=(7.5, 4))
    cells = panel.filter((pl.col("undercut_bonus") == bonus) & (pl.col("threshold") == 0) & (pl.col("knock_limit") > 0))
    for offset, against in enumerate([*opponents, MIX]):
        rows = cells.filter(pl.col("against") == against).sort("knock_limit")
        x = rows["knock_limit"].to_numpy() + 0.08 * (offset - len(opponents) / 2)
        mean = rows["gain"].to_numpy()
        err = np.vstack([mean - rows["gain_lo"].to_numpy(), rows["gain_hi"].to_numpy() - mean])
        ax.errorbar(x, mean, yerr=err, capsize=2, marker="o", ms=3, label=f"against {against}")
    ax.axhline(0, color="#888", lw=0.8)
    ax.set_xlabel("knock limit")
    ax.set_ylabel("hold for gin minus knock at once (points/hand)")
    ax.set_title(f"Holding for gin vs knocking at once, by opponent (undercut bonus {bonus})")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    return fig


def _interval(mean: float, low: float, high: float) -> str:
    return f"{mean:+.2f} [{low:+.2f}, {high:+.2f}]"


def _mix_lines(mine: pl.DataFrame, bonus: int) -> list[str]:
    lines = []
    for row in mine.filter((pl.col("answer") == MIX) & (pl.col("knock_limit") > 0)).iter_rows(named=True):
        chosen = _interval(row["gain"], row["gain_lo"], row["gain_hi"])
        fresh = _interval(row["confirmed_gain"], row["confirmed_lo"], row["confirmed_hi"])
        lines.append(f"Undercut bonus {bonus}, knock limit {row['knock_limit']}, against the panel mix: {row['advice']}. "
                     f"Gain over knocking at once {chosen} points/hand where chosen, {fresh} on fresh deals.")
    return lines


def _few(tied_rules: str, shown: int = 3) -> str:
    rules = tied_rules.split("; ")
    return "; ".join(rules[:shown]) + (f" and {len(rules) - shown} more" if len(rules) > shown else "")


def _opponent_lines(mine: pl.DataFrame, bonus: int, opponents: list[str]) -> list[str]:
    """Where the answer depends on the opponent: the mix's rule is outside an opponent's tied set."""
    mix_best = {row["knock_limit"]: short((row["threshold"], row["gin_after_draws"]), row["knock_limit"])
                for row in mine.filter(pl.col("answer") == MIX).iter_rows(named=True)}
    differs = [f"limit {row['knock_limit']} against {row['answer']} (best there: {_few(row['tied_rules'])})"
               for row in mine.filter(pl.col("answer").is_in(opponents)).iter_rows(named=True)
               if mix_best[row["knock_limit"]] not in row["tied_rules"].split("; ")]
    maxmin = mine.filter(pl.col("answer") == MAXMIN)
    same = sum(mix_best[row["knock_limit"]] in row["tied_rules"].split("; ") for row in maxmin.iter_rows(named=True))
    lines = [f"Undercut bonus {bonus}: the max-min rule (best worst case over the panel) is tied with the panel-mix "
             f"rule at {same} of {maxmin.height} knock limits."]
    if differs:
        lines.append(f"Undercut bonus {bonus}: against a single opponent the panel-mix rule is significantly beaten in "
                     f"{len(differs)} of {len(opponents) * len(mix_best)} limit/opponent cells: " + "; ".join(differs) + ".")
    return lines


def _equilibrium_line(equilibrium: pl.DataFrame, bonus: int, cap: int, half_width: float) -> str:
    eq = equilibrium.filter(pl.col("undercut_bonus") == bonus)
    worst = eq.sort("exploit_hi", descending=True, maintain_order=True).row(0, named=True)
    top = eq.filter(pl.col("knock_limit") == eq["knock_limit"].max()).row(0, named=True)
    played = eq.filter(pl.col("exploit_deals") > 0)
    met = int((eq["exploit_hi"] <= EXPLOIT_TARGET).sum())
    search = (f"the double oracle stopped after {worst['rounds']} of at most {cap} rounds"
              + (" (no new best response)" if worst["rounds"] < cap else " (the round limit)"))
    return (f"Undercut bonus {bonus}, equilibrium of the rule game (both seats choose from the grid; {search}): the "
            f"best deviation from it, picked on fresh deals (seed {worst['confirm_seed']}) and measured on a third "
            f"sample (seed {worst['exploit_seed']}, {played['exploit_deals'].min():,}-{played['exploit_deals'].max():,} "
            f"deals per limit, sized from its spread for a 95% half-width of {half_width}), gains "
            f"at most {worst['exploit_hi']:+.2f} points/hand (upper 95% end, at limit {worst['knock_limit']}); the "
            f"upper end is <= {EXPLOIT_TARGET} at {met} of {eq.height} limits. Picked and measured on the same deals the "
            f"best rule would seem to gain up to {eq['confirmed_hi'].max():.2f} (biased upwards). At limit "
            f"{top['knock_limit']} it plays {top['mix']}.")


def _game_lines(games: pl.DataFrame, best_bands: pl.DataFrame, bonus: int) -> list[str]:
    mine = games.filter((pl.col("undercut_bonus") == bonus) & (pl.col("strategy") == "panel-mix answer"))
    rates = "; ".join(f"against {r['opponent']} {r['win_rate']:.1%} [{r['win_rate_lo']:.1%}, {r['win_rate_hi']:.1%}]"
                      for r in mine.iter_rows(named=True))
    lines = [f"Whole games, undercut bonus {bonus}: the panel-mix policy wins {rates} ({mine['games'][0]:,} games each)."]
    pooled = games.filter(pl.col("undercut_bonus") == bonus).group_by("strategy", maintain_order=True).agg(
        pl.col("points_per_hand").mean())
    overall = pooled.sort("points_per_hand", descending=True, maintain_order=True)["strategy"][0]
    bands = best_bands.filter(pl.col("undercut_bonus") == bonus)
    moved = bands.filter(~pl.col("tied").str.split("; ").list.contains(overall))
    where = ", ".join(f"own {r['own_band']} vs their {r['their_band']} (best: {r['best']})"
                      for r in moved.iter_rows(named=True))
    verdict = ("within noise of the best in every score band." if moved.is_empty()
               else f"significantly beaten in score bands {where}.")
    lines.append(f"By score (undercut bonus {bonus}, whole games pooled over the panel): the policy with the most points "
                 f"per hand overall, {overall}, is {verdict}")
    return lines


def _summary(answers, equilibrium, games, best_bands, bonuses, opponents, quick: bool, seeds, rounds,
             half_width) -> tuple[list[str], list[str]]:
    """(what every statement assumes, in a line or two; what the study found, answer by answer)."""
    intro = []
    if quick:
        intro.append("QUICK RUN: a small grid on few deals, for trying the study out; its answers are not advice.")
    intro.append(f"Every statement names whom it is against. The panel: {', '.join(opponents)}; against the panel mix "
                 f"({', '.join(opponents)}) means each of them equally likely. Rules are chosen on the deals of seed "
                 f"{seeds[0]} and their gains measured again on fresh deals (seed {seeds[1]}); 95% intervals in brackets.")
    lines = []
    for bonus in bonuses:
        mine = answers.filter(pl.col("undercut_bonus") == bonus)
        lines += _mix_lines(mine, bonus) + _opponent_lines(mine, bonus, opponents)
        lines.append(_equilibrium_line(equilibrium, bonus, rounds, half_width))
        lines += _game_lines(games, best_bands, bonus)
    agree = answers.filter(pl.col("knock_limit") > 0)["agrees"]
    lines.append(f"Honest selection: gains confirmed on fresh deals agree with the gains where the rules were chosen, "
                 f"within their intervals, in {int(agree.sum())} of {agree.len()} answers ({agree.mean():.0%}).")
    return intro, lines


def _at_a_glance(answers: pl.DataFrame, bonus: int) -> pl.DataFrame:
    """The panel mix's answer at one undercut bonus as ``oklasim policy`` shows it: limit, what to do, the gain."""
    rows = knock_policy.compact_rows(answers.filter((pl.col("undercut_bonus") == bonus) & (pl.col("answer") == MIX)))
    return pl.DataFrame([{"knock limit": r["limit"], "what to do": r["do"], "rules within noise": r["also"],
                          "gain": r["gain"], "low": r["low"], "high": r["high"]} for r in rows])


def report(experiment: Experiment, run_dir: Path, report_dir: Path) -> Path:
    opts = options(experiment)
    fix = f"{experiment.command} makes it again"
    panel, answers, equilibrium, games, bands = (read_table(run_dir / FILES[name], fix)
                                                 for name in ("panel", "answers", "equilibrium", "games", "bands"))
    best_bands = pl.concat([knock_scores.best_by_band(bands.filter(pl.col("undercut_bonus") == b)).with_columns(
        undercut_bonus=pl.lit(b)) for b in opts["undercut_bonuses"]])
    bonuses, opponents = opts["undercut_bonuses"], opts["opponents"]
    doc = Report(report_dir, experiment.title)
    rounds = opts["quick_equilibrium_rounds" if experiment.quick else "equilibrium_rounds"]
    doc.summary, findings = _summary(answers, equilibrium, games, best_bands, bonuses, opponents, experiment.quick,
                                     (experiment.seed, opts["confirm_seed"]), rounds, opts["exploit_half_width"])
    for bonus in bonuses:
        doc.table(f"at_a_glance_{bonus}", _at_a_glance(answers, bonus),
                  f"When to knock at a glance, undercut bonus {bonus}, against the panel mix",
                  "Per knock limit: the best measured rule (and how many more are within noise of it), its gain over "
                  "knocking at once in points per hand on fresh deals, 95% interval; the same table as `oklasim "
                  "policy`, whose --details and the sections below give the rest.", digits=2)
    doc.text("What the study found", "\n\n".join(findings))
    rules_grid = grid(opts, experiment.quick)
    doc.provenance = provenance(
        experiment, {}, size=f"{experiment.count:,} deals per knock limit, rule and opponent, each in both seatings "
        f"(deals stratified by knock limit); whole games: "
        f"{opts['quick_games' if experiment.quick else 'games']:,} per policy, opponent and seating",
        panel=", ".join(opponents),
        grid=f"thresholds {sorted({t for t, _ in rules_grid})} x gin after draws {sorted({g for _, g in rules_grid})} "
             f"x undercut bonus {bonuses}",
        selection_and_confirmation=f"rules chosen on seed {experiment.seed}, gains measured again on seed "
                                   f"{opts['confirm_seed']}",
    )
    doc.figure("gain_heatmap", _heatmap(panel, bonuses), "Gain over knocking at once against the panel mix",
               "Blue: 'knock with deadwood <= T' scores more per hand than knocking as soon as legal, on the same "
               "deals, averaged over the panel's opponents; red: less.")
    for bonus in bonuses:
        doc.figure(f"by_opponent_{bonus}", _by_opponent_figure(panel, bonus, opponents),
                   f"Holding for gin against each opponent (undercut bonus {bonus})",
                   "The gain of 'only gin' over knocking at once per opponent, with 95% intervals.")
    for bonus in bonuses:
        doc.table(f"answers_{bonus}", answers.filter(pl.col("undercut_bonus") == bonus).drop("rules"),
                  f"Answers by knock limit, undercut bonus {bonus}",
                  "answer: the opponent the rule is best against, 'mix' (each panel opponent equally likely) or "
                  "'max-min' (best worst case; 'against' names the worst opponent). tied_rules: the rules whose paired "
                  "difference to the best includes 0. gain_*: over knocking at once on the deals where the rule was "
                  "chosen; confirmed_*: on fresh deals; agrees: the two agree within their intervals.")
    doc.table("equilibrium", equilibrium.drop("rules"), "Equilibrium of the rule game, by knock limit",
              "Both seats choose a rule of the grid per knock limit (double oracle, fictitious play on the restricted "
              "game). exploitability_*: the most any grid rule gains against the mix on the solving deals (biased "
              "upwards: the best of many); confirmed_*: the best grid rule picked and measured on fresh deals (still "
              "biased upwards); deviation: the best rule outside the mix on those fresh deals; exploit_*: its gain "
              "against the mix on a third sample of exploit_deals deals, sized as (z deviation_sd / half-width)^2 with z the normal 97.5% quantile "
              "(the honest exploitability).")
    doc.table("games", games, "Whole games against each opponent",
              f"Games to {experiment.base_rules().target_score}, both seatings; win rates with Wilson 95% intervals; "
              "spec is the strategy to play the policy yourself (oklasim match SPEC OPPONENT --games N).")
    doc.table("best_by_band", best_bands, "The best policy by score band",
              "Score bands before the hand (own, opponent's), whole games pooled over the panel; tied: policies whose "
              "unpaired difference to the best includes 0.")
    doc.table("bands", bands, "Points per hand by score band", "Every policy in every band, pooled over the panel.")
    doc.table("panel", panel, "Every distinct rule against every opponent",
              "Per knock limit; thresholds at or above the limit are written 10 (any legal knock).")
    return doc.write()
