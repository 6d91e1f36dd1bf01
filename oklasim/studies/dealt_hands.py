"""Study: what the deal gives you, before anyone plays.

* The deadwood of the dealt 10 cards, and the best deadwood of 11 cards
  (10 dealt + one more, after the best discard), sampled.
* The exact probability of a dealt gin (10 cards with no deadwood), by
  counting (``oklasim.game.combinatorics``): every union of pairwise-disjoint
  melds covering exactly 10 cards is a gin hand and every gin hand is one,
  so the distinct unions, divided by C(52, 10), give the probability. The
  same count for 11 cards gives the exact chance that the non-dealer's first
  11 cards hold a gin (and a big gin).
* The non-dealer's chance to knock on its very first turn, by the knock
  limit the upcard sets: its 10 cards H, the upcard U (the 11th card of the
  deal) and the first stock card S (the 12th). "Take": after taking U, its
  best deadwood over the discards it may make (not U itself unless the rules
  allow discarding the taken card) is within the limit. "Draw": both pass
  and it draws S, best deadwood over any discard within the limit (the
  dealer's pass is assumed). "Either": take U if that knocks, else pass and
  draw, which knocks when either does.

The sample comes from ``random_hands_nb`` with the key of the experiment's
seed: hand i of 10, 11 and 12 cards share their first cards (a partial
shuffle), so the 11th and 12th cards are the upcard and the stock card of
the same deal. Aggregated counts go to the run folder; ``oklasim report``
rebuilds the report from them without dealing again.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import polars as pl

from oklasim import __version__
from oklasim._kernels import SOURCE_HASH
from oklasim._kernels.rng_nb import random_hands_nb
from oklasim._kernels.tables import N_RANKS
from oklasim.analysis.report import Report
from oklasim.analysis.stats import Z95, proportion
from oklasim.analysis.tables import RANK_ORDER
from oklasim.errors import OklasimError
from oklasim.game import melds
from oklasim.game.combinatorics import exact_counts
from oklasim.runs import storage
from oklasim.sim.engine import stream_key
from oklasim.studies.common import fmt_interval, quantile_ci
from oklasim.studies.spec import Experiment, provenance, result_key

RESULTS_FILE = "dealt_hands.json"
HISTOGRAM_FILE = "deadwood_histograms.csv"
FIRST_TURN_FILE = "first_turn_counts.csv"
TABLES = {HISTOGRAM_FILE: {"quantity": pl.String, "deadwood": pl.Int64, "count": pl.Int64},
          FIRST_TURN_FILE: {"upcard_rank": pl.Int64, "take": pl.Int64, "draw": pl.Int64, "count": pl.Int64}}
METHOD = 1  # bump when the sampling or the definitions change, so old results are not reused
OVER = 11  # first-turn deadwoods above 10 are stored as 11: no knock limit exceeds 10
QUANTITIES = {"dealt_10": "dealt 10 cards", "best_11": "best 11 cards (after the best discard)"}

# Published figures the report compares with (each cited in the report).
PUBLISHED = [
    {
        "source": "Yimmaw blog, 'Deadwood Distribution' (https://www.yimmaw.com/blog/post/deadwood-distribution)",
        "quantity": "mean deadwood of a dealt 10-card hand",
        "published": 56.6,
        "note": "250,000 simulated deals, least deadwood over arrangements",
        "ours": "mean",
    },
    {
        "source": "Yimmaw blog, 'Deadwood Distribution' (https://www.yimmaw.com/blog/post/deadwood-distribution)",
        "quantity": "standard deviation of the dealt deadwood",
        "published": 13.76,
        "note": "same 250,000 deals",
        "ours": "sd",
    },
    {
        "source": "Yimmaw blog, 'Maximum Deadwood' (https://yimmaw.com/blog/)",
        "quantity": "largest possible dealt deadwood",
        "published": 98.0,
        "note": "two each of K, Q, J, T, 9; our figure is the sample's maximum, which cannot exceed it",
        "ours": "max",
    },
]
NO_GIN_SOURCE = (
    "We found no published value for the probability of a dealt gin to compare with. The search turned up "
    "copies of a blog post that counts gin hands the same way (combining melds into 5-5 and 4-3-3 splits, "
    "which indeed cover every gin hand: a run of 6, 7 or 10 splits into shorter runs), but the copies "
    "available to us stop before its result, so we do not quote one."
)


# -- sampling ----------------------------------------------------------------------------------


def _cards_of(masks: np.ndarray, count: int) -> np.ndarray:
    """The single-card masks of each hand, lowest first: shape (len(masks), count)."""
    out = np.empty((masks.size, count), dtype=np.int64)
    rest = masks.copy()
    for k in range(count):
        low = rest & -rest
        out[:, k] = low
        rest ^= low
    return out


def _card_index(single: np.ndarray) -> np.ndarray:
    return np.bitwise_count((single - 1).view(np.uint64)).astype(np.int64)


def deal(seed: int, count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``count`` deals from the seed's key: the non-dealer's 10 cards, the upcard and the first stock card (masks).

    Hand i of 10, 11 and 12 cards comes from the same partial shuffle (stream i), so the 11th and 12th
    cards extend the same deal.
    """
    key = stream_key(seed)
    deals = {}
    for size in (10, 11, 12):
        deals[size] = np.empty(count, dtype=np.int64)
        random_hands_nb(key, size, deals[size])
    return deals[10], deals[11] ^ deals[10], deals[12] ^ deals[11]


def take_deadwood(hand: np.ndarray, upcard: np.ndarray, discard_taken_card: bool) -> np.ndarray:
    """Least deadwood after taking the upcard and discarding, the upcard itself excluded unless allowed."""
    held = hand | upcard
    best = melds.deadwood_after_discard(held)
    if discard_taken_card:
        return best
    only_upcard = (melds.best_discards(held) & ~upcard) == 0  # every best discard would be the upcard
    if only_upcard.any():
        cards = _cards_of(hand[only_upcard], 10)
        options = np.stack([melds.deadwood(held[only_upcard] & ~cards[:, k]) for k in range(10)], axis=1)
        best = best.copy()
        best[only_upcard] = options.min(axis=1)
    return best


def sample(seed: int, count: int, discard_taken_card: bool) -> tuple[pl.DataFrame, pl.DataFrame, dict]:
    """Deal ``count`` hands from the seed's key; returns (deadwood histograms, first-turn counts, the paired
    drop in deadwood from 10 to 11 cards as mean, standard deviation and n)."""
    hand, upcard, stock = deal(seed, count)
    dealt = melds.deadwood(hand)
    best_11 = melds.deadwood_after_discard(hand | upcard)  # any discard
    take = take_deadwood(hand, upcard, discard_taken_card)
    draw = melds.deadwood_after_discard(hand | stock)
    histograms = pl.concat([_histogram(dealt, "dealt_10"), _histogram(best_11, "best_11")])
    drop = (dealt - best_11).astype(np.float64)  # the same deal before and after its 11th card
    paired = {"drop_mean": float(drop.mean()), "drop_sd": float(drop.std(ddof=1)), "n": int(count)}
    first_turn = (
        pl.DataFrame({
            "upcard_rank": _card_index(upcard) % N_RANKS,
            "take": np.minimum(take, OVER),
            "draw": np.minimum(draw, OVER),
        })
        .group_by(["upcard_rank", "take", "draw"])
        .agg(pl.len().cast(pl.Int64).alias("count"))
        .sort(["upcard_rank", "take", "draw"])
    )
    return histograms, first_turn, paired


def _histogram(values: np.ndarray, quantity: str) -> pl.DataFrame:
    counts = np.bincount(values)
    present = np.nonzero(counts)[0]
    return pl.DataFrame({"quantity": quantity, "deadwood": present.astype(np.int64),
                         "count": counts[present].astype(np.int64)})


# -- the study ---------------------------------------------------------------------------------


def check(experiment: Experiment) -> None:
    if experiment.mode != "hands":
        raise OklasimError(f"{experiment.source}: dealt_hands deals independent hands: use hands = N")
    rules = experiment.base_rules()
    if rules.players != 2 or rules.hand_size != 10:
        raise OklasimError(f"{experiment.source}: dealt_hands studies the two-player, 10-card deal")
    if experiment.options:
        raise OklasimError(f"{experiment.source}: dealt_hands takes no [options]")


def run(experiment: Experiment, run_dir: Path, workers) -> None:
    # What the stored results depend on: change any of it and they are recomputed.
    key = result_key({"seed": experiment.seed, "count": experiment.count, "discard_taken_card":
                      experiment.base_rules().discard_taken_card, "method": METHOD, "kernels": SOURCE_HASH})
    results = run_dir / RESULTS_FILE
    try:
        if load_results(experiment, run_dir)[0]["key"] == key:
            return  # the same spec, every file intact: reuse
    except OklasimError:
        pass  # none yet, or damaged: sampled again
    results.unlink(missing_ok=True)  # until the new results are complete, the folder holds none
    histograms, first_turn, paired = sample(experiment.seed, experiment.count,
                                            experiment.base_rules().discard_taken_card)
    histograms.write_csv(run_dir / HISTOGRAM_FILE)
    first_turn.write_csv(run_dir / FIRST_TURN_FILE)
    data = {"key": key, "version": __version__, "sampled_hands": experiment.count, "paired": paired,
            "exact": exact_counts()}
    storage.atomic_write_bytes(results, json.dumps(data, indent=2).encode())  # last: marks the run complete


# -- tables ------------------------------------------------------------------------------------


def summary_table(histograms: pl.DataFrame) -> pl.DataFrame:
    """Mean, spread and quantiles of each deadwood distribution, each with its 95% interval."""
    rows = []
    for quantity in QUANTITIES:
        h = histograms.filter(pl.col("quantity") == quantity).sort("deadwood")
        values, counts = h["deadwood"].to_numpy(), h["count"].to_numpy()
        n = int(counts.sum())
        mean = float((values * counts).sum() / n)
        sd = math.sqrt(float(((values - mean) ** 2 * counts).sum()) / (n - 1))
        half = Z95 * sd / math.sqrt(n)
        row = {"quantity": quantity, "n": n, "mean": mean, "mean_lo": mean - half, "mean_hi": mean + half,
               "sd": sd, "sd_se": sd / math.sqrt(2 * (n - 1))}
        for name, q in (("p10", 0.1), ("median", 0.5), ("p90", 0.9)):
            value, low, high = quantile_ci(values, counts, q)
            row |= {name: value, f"{name}_lo": low, f"{name}_hi": high}
        row |= {"min": int(values.min()), "max": int(values.max())}
        rows.append(row)
    return pl.DataFrame(rows)


def distribution_table(histograms: pl.DataFrame) -> pl.DataFrame:
    """Share of hands at each deadwood value and at or below it, both quantities side by side, with Wilson
    intervals (columns QUANTITY_share, QUANTITY_at_most and their _lo, _hi)."""
    values = sorted(set(histograms["deadwood"].to_list()))
    table = pl.DataFrame({"deadwood": values})
    for quantity in QUANTITIES:
        h = histograms.filter(pl.col("quantity") == quantity)
        counts = dict(h.select("deadwood", "count").iter_rows())
        n = int(h["count"].sum())
        columns: dict[str, list] = {}
        cumulative = 0
        for value in values:
            count = counts.get(value, 0)
            cumulative += count
            for name, est in (("share", proportion(count, n)), ("at_most", proportion(cumulative, n))):
                for suffix, x in (("", est.mean), ("_lo", est.low), ("_hi", est.high)):
                    columns.setdefault(f"{quantity}_{name}{suffix}", []).append(x)
            columns.setdefault(f"{quantity}_count", []).append(count)
        table = table.with_columns(**{k: pl.Series(v) for k, v in columns.items()})
    return table


def within_limit_table(histograms: pl.DataFrame) -> pl.DataFrame:
    """Chance that a hand's deadwood is within each knock limit 0..10, whatever the upcard."""
    rows = []
    for limit in range(11):
        row = {"limit": limit}
        for quantity in QUANTITIES:
            h = histograms.filter(pl.col("quantity") == quantity)
            n = int(h["count"].sum())
            est = proportion(int(h.filter(pl.col("deadwood") <= limit)["count"].sum()), n)
            row |= {quantity: est.mean, f"{quantity}_lo": est.low, f"{quantity}_hi": est.high}
        rows.append(row)
    return pl.DataFrame(rows)


def knock_limits(experiment: Experiment) -> dict[int, int]:
    """The knock limit each upcard rank sets under the experiment's rules (rank 0 = ace)."""
    rules = experiment.base_rules()
    return {rank: rules.knock_limit(rank) for rank in range(N_RANKS)}  # card index = rank for spades


def first_turn_table(first_turn: pl.DataFrame, limits: dict[int, int]) -> pl.DataFrame:
    """The non-dealer's first-turn knock (and gin) chances, by the knock limit the upcard sets."""
    frame = first_turn.with_columns(limit=pl.col("upcard_rank").replace_strict(limits, return_dtype=pl.Int64))
    conditions = {
        "take": pl.col("take") <= pl.col("limit"),
        "draw": pl.col("draw") <= pl.col("limit"),
        "either": (pl.col("take") <= pl.col("limit")) | (pl.col("draw") <= pl.col("limit")),
        "take_gin": pl.col("take") == 0,
        "draw_gin": pl.col("draw") == 0,
    }
    rows = []
    groups = [(str(limit), pl.col("limit") == limit) for limit in sorted(set(limits.values()))]
    for label, selector in groups + [("all", pl.lit(True))]:
        part = frame.filter(selector)
        n = int(part["count"].sum())
        ranks = sorted(set(part["upcard_rank"].to_list()))
        row = {"limit": label, "upcards": " ".join(RANK_ORDER[r] for r in ranks), "n": n}
        for name, condition in conditions.items():
            est = proportion(int(part.filter(condition)["count"].sum()), n)
            row |= {name: est.mean, f"{name}_lo": est.low, f"{name}_hi": est.high}
        rows.append(row)
    return pl.DataFrame(rows)


def exact_table(exact: dict, histograms: pl.DataFrame) -> pl.DataFrame:
    """The exact gin probabilities, each next to the sample's estimate of the same thing."""
    def sampled(quantity: str) -> tuple[int, int]:
        h = histograms.filter(pl.col("quantity") == quantity)
        return int(h.filter(pl.col("deadwood") == 0)["count"].sum()), int(h["count"].sum())

    rows = []
    for name, count, total, quantity in (
        ("dealt gin (10 cards, no deadwood)", exact["gin_10"], exact["hands_10"], "dealt_10"),
        ("11 cards holding a gin (gin after the best discard)", exact["gin_in_11"], exact["hands_11"], "best_11"),
        ("big gin (all 11 cards melded)", exact["big_gin_11"], exact["hands_11"], None),
    ):
        row = {"event": name, "count": count, "hands": total, "probability": count / total,
               "one_in": round(total / count)}
        if quantity:
            hits, n = sampled(quantity)
            est = proportion(hits, n)
            row |= {"sampled": hits, "sample_size": n, "sample_share": est.mean, "sample_share_lo": est.low,
                    "sample_share_hi": est.high}
        else:
            row |= dict.fromkeys(("sampled", "sample_size", "sample_share", "sample_share_lo", "sample_share_hi"))
        rows.append(row)
    return pl.DataFrame(rows)


def published_table(summary: pl.DataFrame) -> pl.DataFrame:
    dealt = summary.row(0, named=True)
    ours = {
        "mean": (dealt["mean"], dealt["mean_lo"], dealt["mean_hi"]),
        "sd": (dealt["sd"], dealt["sd"] - Z95 * dealt["sd_se"], dealt["sd"] + Z95 * dealt["sd_se"]),
        "max": (float(dealt["max"]), None, None),
    }
    rows = []
    for item in PUBLISHED:
        value, low, high = ours[item["ours"]]
        rows.append({"quantity": item["quantity"], "published": item["published"], "ours": value, "ours_lo": low,
                     "ours_hi": high, "source": item["source"], "note": item["note"]})
    return pl.DataFrame(rows)


# -- figures -----------------------------------------------------------------------------------


def _distribution_figure(dist: pl.DataFrame, summary: pl.DataFrame):
    fig, ax = plt.subplots(figsize=(8, 3.8))
    colours = {"dealt_10": "#4c78a8", "best_11": "#f58518"}
    x = dist["deadwood"].to_numpy()
    for quantity, label in QUANTITIES.items():
        ax.step(x, dist[f"{quantity}_share"].to_numpy(), where="mid", color=colours[quantity], label=label)
        ax.fill_between(x, dist[f"{quantity}_share_lo"].to_numpy(), dist[f"{quantity}_share_hi"].to_numpy(),
                        step="mid", alpha=0.3, color=colours[quantity], linewidth=0)
        mean = summary.filter(pl.col("quantity") == quantity)["mean"][0]
        ax.axvline(mean, color=colours[quantity], linestyle=":", linewidth=1)
    ax.set_xlabel("deadwood")
    ax.set_ylabel("share of hands")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def _within_limit_figure(within: pl.DataFrame, exact: pl.DataFrame):
    fig, ax = plt.subplots(figsize=(7, 3.8))
    x = within["limit"].to_numpy()
    for offset, (quantity, label) in enumerate(QUANTITIES.items()):
        mean = within[quantity].to_numpy()
        low, high = within[f"{quantity}_lo"].to_numpy(), within[f"{quantity}_hi"].to_numpy()
        ax.errorbar(x + 0.08 * offset, mean, yerr=np.vstack([mean - low, high - mean]), capsize=3, marker="o",
                    label=label)
    ax.scatter([0, 0.08], exact["probability"][:2].to_list(), marker="x", color="black", zorder=3,
               label="exact (gin)")
    ax.set_yscale("log")
    ax.set_xticks(x)
    ax.set_xlabel("knock limit")
    ax.set_ylabel("share of hands with deadwood <= limit")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    return fig


def _first_turn_figure(table: pl.DataFrame):
    table = table.filter(pl.col("limit") != "all")
    fig, ax = plt.subplots(figsize=(7, 3.8))
    x = np.arange(table.height)
    labels = {"take": "take the upcard", "draw": "draw from the stock", "either": "either (take if it knocks)"}
    for offset, (name, label) in enumerate(labels.items()):
        mean = table[name].to_numpy()
        low, high = table[f"{name}_lo"].to_numpy(), table[f"{name}_hi"].to_numpy()
        shown = mean > 0  # a log axis cannot show a zero
        ax.errorbar(x[shown] + 0.1 * (offset - 1), mean[shown], yerr=np.vstack([mean - low, high - mean])[:, shown],
                    capsize=3, marker="o", linestyle="none", label=label)
    ax.set_yscale("log")
    ax.set_xticks(x, [f"{lim}\n({up})" for lim, up in zip(table["limit"], table["upcards"])], fontsize=8)
    ax.set_xlabel("knock limit (upcards)")
    ax.set_ylabel("share of deals")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    return fig


# -- the report --------------------------------------------------------------------------------


def _interval(row: dict, name: str, digits: int = 1, percent: bool = False) -> str:
    return fmt_interval(row[name], row[f"{name}_lo"], row[f"{name}_hi"], digits, percent)


def _summary(summary: pl.DataFrame, exact: pl.DataFrame, first: pl.DataFrame, published: pl.DataFrame,
             paired: dict) -> list[str]:
    dealt, best = summary.row(0, named=True), summary.row(1, named=True)
    gin, gin11 = exact.row(0, named=True), exact.row(1, named=True)
    rows = {r["limit"]: r for r in first.iter_rows(named=True)}
    top = max((k for k in rows if k != "all"), key=int)
    low = min((k for k in rows if k != "all"), key=int)
    pub = published.row(0, named=True)
    half = Z95 * paired["drop_sd"] / math.sqrt(paired["n"])
    drop = {"drop": paired["drop_mean"], "drop_lo": paired["drop_mean"] - half, "drop_hi": paired["drop_mean"] + half}
    covers = gin["sample_share_lo"] <= gin["probability"] <= gin["sample_share_hi"]
    lines = [
        f"A dealt 10-card hand carries {_interval(dealt, 'mean')} deadwood points on average; half of all hands "
        f"have at most {dealt['median']} (95% interval {dealt['median_lo']} to {dealt['median_hi']}).",
        f"An 11th card and the best discard bring it down to {_interval(best, 'mean')}: the same deal drops by "
        f"{_interval(drop, 'drop', 2)} points.",
        f"Exactly {gin['count']:,} of the {gin['hands']:,} possible 10-card hands are gin: a dealt gin has "
        f"probability {gin['probability']:.4g}, about 1 in {gin['one_in']:,}. The sample saw {gin['sampled']:,} "
        f"in {gin['sample_size']:,} hands, a share of {gin['sample_share']:.2g} (95% interval "
        f"{gin['sample_share_lo']:.2g} to {gin['sample_share_hi']:.2g}), "
        f"which {'covers' if covers else 'does not cover'} the exact value.",
        f"{gin11['count']:,} of the {gin11['hands']:,} 11-card hands hold a gin (probability "
        f"{gin11['probability']:.4g}, 1 in {gin11['one_in']:,}): about how often a player can go gin with its "
        f"first 11 cards (a little less when the 11th is a taken upcard, which may not be discarded).",
        f"On its first turn the non-dealer can knock by taking the upcard in {_interval(rows['all'], 'take', 2, True)} "
        f"of deals and by drawing from the stock in {_interval(rows['all'], 'draw', 2, True)}.",
        f"With a knock limit of {top} ({rows[top]['upcards']}) these are {_interval(rows[top], 'take', 2, True)} "
        f"and {_interval(rows[top], 'draw', 2, True)}"
        + (f"; with a limit of {low} ({rows[low]['upcards']}) {_interval(rows[low], 'take', 3, True)} and "
           f"{_interval(rows[low], 'draw', 3, True)}." if low != top else "."),
        f"Published for comparison: a mean dealt deadwood of {pub['published']} over 250,000 simulated deals "
        f"(Yimmaw blog), against our {_interval(pub, 'ours', 2)}. We found no published probability of a dealt gin.",
    ]
    return lines


def load_results(experiment: Experiment, run_dir: Path) -> tuple[dict, pl.DataFrame, pl.DataFrame]:
    """The stored results and the two tables; an error naming the file that is missing or damaged."""
    results = run_dir / RESULTS_FILE
    if not results.is_file():
        raise OklasimError(f"{run_dir} holds no finished dealt_hands results; run the study first")
    fix = f"{experiment.command} samples it again"
    data = storage.read_json(results, fix)
    if not isinstance(data, dict) or not {"key", "paired", "exact"} <= data.keys():
        raise OklasimError(f"{results} is damaged (not the study's results); {fix}")
    histograms, first_turn = (storage.read_table(run_dir / name, fix, columns) for name, columns in TABLES.items())
    return data, histograms, first_turn


def report(experiment: Experiment, run_dir: Path, report_dir: Path) -> Path:
    data, histograms, first_turn = load_results(experiment, run_dir)
    summary = summary_table(histograms)
    dist = distribution_table(histograms)
    within = within_limit_table(histograms)
    first = first_turn_table(first_turn, knock_limits(experiment))
    exact = exact_table(data["exact"], histograms)
    published = published_table(summary)
    splits = data["exact"]["splits"]

    doc = Report(report_dir, experiment.title)
    doc.summary = _summary(summary, exact, first, published, data["paired"])
    doc.provenance = provenance(experiment, {}, size=f"{experiment.count:,} sampled deals (10-card hand, upcard "
                                "and first stock card each); exact counts over all C(52,10) and C(52,11) hands",
                                strategies="none: the hands are dealt, not played")
    doc.figure("deadwood_distribution", _distribution_figure(dist, summary), "Deadwood of the deal",
               "Share of hands at each deadwood value: the dealt 10 cards, and 11 cards after the best discard. "
               "Shaded: 95% intervals; dotted lines: the means.")
    doc.figure("within_limit", _within_limit_figure(within, exact), "How often a hand is within a knock limit",
               "Share of hands whose deadwood is at most each limit (log scale), whatever the upcard: the dealt "
               "10 cards, and 11 cards after the best discard. Limit 0 is gin.")
    doc.figure("first_turn_by_limit", _first_turn_figure(first), "The non-dealer's first-turn knock, by knock limit",
               "Share of deals in which the non-dealer could knock on its first turn (log scale), by the limit "
               "the upcard sets: taking the upcard, drawing from the stock after both pass, or either. 95% "
               "intervals.")
    doc.table("exact_gin", exact, "Gin by exact counting",
              "Hands that are all melds, counted exactly, with the sample's estimate of the same share "
              "(sample_share_lo and sample_share_hi bound its 95% interval). The exact figures have no error.",
              significant=5)
    doc.table("gin_splits", pl.DataFrame({"melds": list(splits), "gin_hands": list(splits.values())}),
              "How dealt gins are melded",
              "Dealt gin hands that can be laid as a 4-card meld and two 3-card melds, as two 5-card melds, or "
              "both (exact counts; every gin hand is at least one of these, since a longer run splits).")
    doc.table("deadwood_summary", summary, "Deadwood: means, spread and quantiles",
              "n hands; *_lo and *_hi bound 95% intervals (quantile intervals from the order statistics); "
              "sd_se is the standard error of the standard deviation.")
    doc.table("within_limit", within, "Within each knock limit",
              "Share of hands with deadwood at most the limit, with 95% Wilson intervals.", significant=4)
    doc.table("first_turn_by_limit", first, "First-turn knocks by knock limit",
              "n deals per limit; shares with 95% intervals (*_lo, *_hi). take_gin and draw_gin: gin on the first "
              "turn that way.", significant=4)
    doc.table("deadwood_distribution", dist, "The full distributions",
              "For each deadwood value: the count and share of hands at that value and at or below it (*_at_most), "
              "with 95% Wilson intervals; dealt_10 = the dealt 10 cards, best_11 = 11 cards after the best discard.",
              significant=4)
    doc.table("published", published, "Published figures",
              "Figures found in published sources next to ours (ours_lo and ours_hi bound the 95% interval; the "
              "maximum is the sample's largest value).")
    doc.text("Definitions and sources", DEFINITIONS + "\n\n" + NO_GIN_SOURCE)
    return doc.write()


DEFINITIONS = (
    "Deadwood is the least total value of the cards left out of melds, under the arrangement that minimises it "
    "(RULES.md §1). The best 11-card deadwood is the least over the 11 possible discards. The first-turn chances "
    "look at the non-dealer's 10 cards, the upcard and the first stock card of a deal; 'take' may not discard the "
    "taken upcard unless the rules allow it; 'draw' assumes the dealer passes too; 'either' is the chance for a "
    "player who takes the upcard when that lets it knock and otherwise passes and draws. The knock limit is the "
    "one the upcard sets under the study's rules (an ace allows gin only by default)."
)
