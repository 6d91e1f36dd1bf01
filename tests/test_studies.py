"""Studies and their reports: tiny runs of each shipped study, exact counts checked by brute force,
and tournament answers known by construction."""

import itertools
import json
import math
from html.parser import HTMLParser

import numpy as np
import polars as pl
import pytest

from oklasim._kernels.rng_nb import random_hands_nb
from oklasim._kernels.tables import N_RANKS
from oklasim.analysis import tables as analysis
from oklasim.analysis.match import match
from oklasim.errors import OklasimError
from oklasim.game import combinatorics, melds
from oklasim.game.rules import Rules
from oklasim.runs import storage
from oklasim.studies import dealt_hands, tournament
from oklasim.studies.common import quantile_ci
from oklasim.studies.experiment import build_report, load, run_experiment, shipped

NEVER_KNOCKS = "random(knock_probability=0)"
SPECS = {
    "upcard_effects": """
[study]
kind = "upcard_effects"
seed = 11
hands = 1500
strategies = ["simple", "greedy"]
[options]
spade_double = true
players = [3]
""",
    "knock_thresholds": """
[study]
kind = "knock_thresholds"
seed = 14
hands = 400
[options]
opponents = ["greedy", "threshold:gin_only"]
thresholds = [0, 3, 10]
gin_after_draws = [99, 5]
undercut_bonuses = [10, 25]
equilibrium_rounds = 2
games = 30
""",
    "dealt_hands": """
[study]
kind = "dealt_hands"
seed = 12
hands = 20000
""",
    "tournament": f"""
[study]
kind = "tournament"
seed = 13
hands = 300
strategies = ["{NEVER_KNOCKS}", "simple", "greedy"]
[options]
deals = {{ "greedy" = 200 }}  # a slow entrant's pairings play fewer deals
""",
    "ladder": """
[study]
kind = "ladder"
seed = 15
games = 40
strategies = ["greedy", "simple", "eaai"]
[options]
levels = { low = "greedy", high = "simple" }
deals = { "eaai" = 20 }
""",
}


@pytest.fixture(scope="module")
def studies(tmp_path_factory):
    """Each study run once, tiny: {kind: (experiment file, run folder, report folder)}."""
    root = tmp_path_factory.mktemp("studies")
    out = {}
    for kind, text in SPECS.items():
        spec = root / f"{kind}.toml"
        spec.write_text(text)
        index = run_experiment(spec, runs_root=root / "runs", reports_root=root / "reports")
        out[kind] = (spec, root / "runs" / kind, index.parent)
    return out


class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.targets = []

    def handle_starttag(self, tag, attrs):
        self.targets += [value for name, value in attrs if name in ("src", "href") and value]


# -- every report ------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(SPECS))
def test_report_files_exist_and_links_resolve(studies, kind):
    _, _, folder = studies[kind]
    page = (folder / "index.html").read_text()
    parser = Links()
    parser.feed(page)
    assert parser.targets, "the page links nothing"
    for target in parser.targets:
        assert "://" not in target and not target.startswith("/"), target
        assert (folder / target).is_file(), f"index.html refers to missing {target}"
    markdown = (folder / "report.md").read_text()
    for target in __import__("re").findall(r"\]\(([^)]+)\)", markdown):
        assert (folder / target).is_file(), f"report.md refers to missing {target}"
    figures = sorted(p.stem for p in folder.glob("*.svg"))
    assert figures and figures == sorted(p.stem for p in folder.glob("*.png"))
    for stem in figures:
        assert (folder / f"{stem}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert (folder / f"{stem}.png").stat().st_size > 2000
        assert "<svg" in (folder / f"{stem}.svg").read_text()[:2000]
    for table in folder.glob("*.csv"):
        assert pl.read_csv(table).height > 0
    assert "class='summary'" in page and page.count("<li>") > 3
    assert "oklasim run" in markdown and "oklasim version" in markdown and "seed" in markdown


@pytest.mark.parametrize("kind", list(SPECS))
def test_report_rebuilds_identically_from_the_run_folder(studies, kind, tmp_path, monkeypatch):
    _, run_dir, folder = studies[kind]
    # Rebuilding must not deal or play again.
    monkeypatch.setattr(dealt_hands, "sample", lambda *a, **k: pytest.fail("dealt hands resampled"))
    monkeypatch.setattr(tournament, "match", lambda *a, **k: pytest.fail("tournament replayed"))
    again = build_report(run_dir, tmp_path).parent
    names = sorted(p.name for p in folder.iterdir())
    assert names == sorted(p.name for p in again.iterdir())
    for name in names:
        assert (folder / name).read_bytes() == (again / name).read_bytes(), name


# -- upcard_effects ----------------------------------------------------------------------------


def test_upcard_tables_match_the_data(studies):
    _, run_dir, folder = studies["upcard_effects"]
    hands = storage.read(run_dir / "oklahoma", "hands")
    expected = analysis.by_upcard(hands)
    table = pl.read_csv(folder / "by_upcard_oklahoma.csv")
    assert table["n"].sum() == hands.height == 1500
    for row in table.iter_rows(named=True):
        want = expected.filter(pl.col("upcard_rank") == str(row["upcard_rank"])).row(0, named=True)
        for column in ("n", "knock", "gin", "undercut", "void", "draws", "points", "dealer_edge_lo"):
            assert row[column] == pytest.approx(want[column], rel=1e-9), column
    overall = pl.read_csv(folder / "overall.csv")
    assert set(overall["rules"]) == {"Oklahoma", "plain gin", "Oklahoma, spades double"}


# -- dealt_hands -------------------------------------------------------------------------------


def window(suits, ranks) -> tuple[int, list[int]]:
    """A smaller deck: the card mask, and the cards in bit order of a compact window index."""
    cards = [s * N_RANKS + r for s in suits for r in ranks]
    return sum(1 << c for c in cards), cards


def all_hands(cards: list[int], size: int) -> np.ndarray:
    """Every hand of ``size`` cards from ``cards`` (at most 24), by brute force over all window subsets."""
    assert len(cards) <= 24
    subsets = np.arange(1 << len(cards), dtype=np.int64)
    subsets = subsets[np.bitwise_count(subsets.view(np.uint64)) == size]
    hands = np.zeros(subsets.size, dtype=np.int64)
    for bit, card in enumerate(cards):
        hands |= ((subsets >> bit) & 1) << card
    assert hands.size == math.comb(len(cards), size)
    return hands


@pytest.mark.parametrize("suits, ranks", [
    (range(4), range(6)),          # A-6 in four suits: sets and short runs
    (range(3), range(8)),          # A-8 in three suits: runs up to 8 long
    (range(4), range(7, 13)),      # 8-K in four suits
])
def test_exact_gin_count_agrees_with_brute_force(suits, ranks):
    deck, cards = window(suits, ranks)
    ten = all_hands(cards, 10)
    brute_gin = np.sort(ten[melds.deadwood(ten) == 0])
    counted = combinatorics.melded_hands(10, deck)
    assert counted.size == brute_gin.size > 0
    assert np.array_equal(counted, brute_gin)
    eleven = all_hands(cards, 11)
    assert combinatorics.melded_hands(11, deck).size == int((melds.deadwood(eleven) == 0).sum())
    assert combinatorics.with_one_more(counted, deck).size == int((melds.deadwood_after_discard(eleven) == 0).sum())
    splits = combinatorics.split_patterns(deck)
    assert splits["4+3+3"] + splits["5+5"] - splits["both"] == counted.size


def test_exact_counts_on_the_full_deck():
    for size in (3, 4):  # every 3- and 4-card hand, brute force
        hands = np.array([sum(1 << c for c in combo) for combo in itertools.combinations(range(52), size)])
        assert combinatorics.melded_hands(size).size == int((melds.deadwood(hands) == 0).sum())
    assert combinatorics.melded_hands(3).size == 13 * 4 + 4 * 11  # sets of 3, runs of 3
    exact = combinatorics.exact_counts()
    assert exact["gin_10"] == 136_694 and exact["hands_10"] == math.comb(52, 10)
    assert exact["splits"]["4+3+3"] + exact["splits"]["5+5"] - exact["splits"]["both"] == exact["gin_10"]
    # Sampling agrees with the exact probabilities (99.9% binomial bounds).
    n = 2_000_000
    for size, key, total in ((10, "gin_10", "hands_10"), (11, "gin_in_11", "hands_11")):
        hands = np.empty(n, dtype=np.int64)
        random_hands_nb(99, size, hands)
        hits = int(((melds.deadwood(hands) if size == 10 else melds.deadwood_after_discard(hands)) == 0).sum())
        p = exact[key] / exact[total]
        assert abs(hits - n * p) < 3.3 * math.sqrt(n * p * (1 - p)) + 1, (size, hits, n * p)


def test_first_turn_take_never_discards_the_upcard():
    hand, upcard, stock = dealt_hands.deal(5, 400)
    assert np.all(np.bitwise_count((hand | upcard | stock).view(np.uint64)) == 12)
    take = dealt_hands.take_deadwood(hand, upcard, discard_taken_card=False)
    allowed = dealt_hands.take_deadwood(hand, upcard, discard_taken_card=True)
    for h, u, t, a in zip(hand.tolist(), upcard.tolist(), take.tolist(), allowed.tolist()):
        options = [int(melds.deadwood([(h | u) & ~(1 << c)])[0]) for c in range(52) if h >> c & 1]
        assert t == min(options)
        assert a == min(options + [int(melds.deadwood([h])[0])])
    assert np.any(take > allowed)  # the rule matters on some deals


def test_dealt_tables_match_the_data(studies):
    spec, run_dir, folder = studies["dealt_hands"]
    experiment = load(spec)
    hand, upcard, _ = dealt_hands.deal(experiment.seed, experiment.count)
    dealt = melds.deadwood(hand)
    summary = pl.read_csv(folder / "deadwood_summary.csv")
    row = summary.filter(pl.col("quantity") == "dealt_10").row(0, named=True)
    assert row["n"] == experiment.count
    assert row["mean"] == pytest.approx(dealt.mean(), rel=1e-12)
    assert row["sd"] == pytest.approx(dealt.std(ddof=1), rel=1e-9)
    assert row["median"] == np.quantile(dealt, 0.5, method="inverted_cdf")
    assert row["max"] == dealt.max()
    best = summary.filter(pl.col("quantity") == "best_11").row(0, named=True)
    assert best["mean"] == pytest.approx(melds.deadwood_after_discard(hand | upcard).mean(), rel=1e-12)
    dist = pl.read_csv(folder / "deadwood_distribution.csv")
    counts = np.bincount(dealt, minlength=dist["deadwood"].max() + 1)
    assert dist["dealt_10_count"].to_list() == counts[dist["deadwood"].to_numpy()].tolist()
    exact = pl.read_csv(folder / "exact_gin.csv")
    assert exact["count"][0] == 136_694 and exact["sampled"][0] == int((dealt == 0).sum())
    first = pl.read_csv(folder / "first_turn_by_limit.csv", schema_overrides={"limit": pl.String})
    assert first.filter(pl.col("limit") == "all")["n"][0] == experiment.count
    assert first.filter(pl.col("limit") != "all")["n"].sum() == experiment.count
    ace = first.filter(pl.col("limit") == "0").row(0, named=True)  # ace upcard: gin only
    assert ace["upcards"] == "A" and ace["take"] == ace["take_gin"] and ace["draw"] == ace["draw_gin"]


def test_dealt_hands_reuses_its_results(studies, monkeypatch):
    spec, run_dir, _ = studies["dealt_hands"]
    monkeypatch.setattr(dealt_hands, "sample", lambda *a, **k: pytest.fail("resampled an unchanged spec"))
    run_experiment(spec, runs_root=run_dir.parent, reports_root=run_dir.parent.parent / "reports")


def test_quantile_interval_from_a_histogram():
    values = np.arange(100)
    value, low, high = quantile_ci(values, np.ones(100, dtype=np.int64), 0.5)
    assert value == 49 and low < 49 < high and high - low < 25


# -- tournament --------------------------------------------------------------------------------


def test_a_strategy_that_never_knocks_never_wins_by_knocking(studies):
    _, _, folder = studies["tournament"]
    outcomes = pl.read_csv(folder / "outcomes.csv")
    never = outcomes.filter(pl.col("strategy") == NEVER_KNOCKS).row(0, named=True)
    for outcome in ("knock", "gin", "undercut_suffered"):
        assert never[outcome] == 0 and never[f"{outcome}_lo"] == pytest.approx(0, abs=1e-12)
    assert never["lost_to_knock"] > 0.5
    for row in outcomes.iter_rows(named=True):  # every hand ends one way
        assert sum(row[k] for k in tournament.OUTCOMES) == pytest.approx(1.0)
    ranking = pl.read_csv(folder / "ranking.csv")
    assert ranking["strategy"][-1] == NEVER_KNOCKS and ranking["significant_losses"][-1] == 2


def test_tournament_tables_match_a_direct_match(studies):
    spec, _, folder = studies["tournament"]
    experiment = load(spec)
    capped = experiment.options["deals"]["greedy"]
    direct = match("simple", "greedy", experiment.base_rules(), hands=capped, seed=experiment.seed)
    pairings = pl.read_csv(folder / "pairings.csv")
    row = pairings.filter((pl.col("a") == "simple") & (pl.col("b") == "greedy")).row(0, named=True)
    d = direct.diff_points_per_hand
    assert (row["a_minus_b"], row["a_minus_b_lo"], row["a_minus_b_hi"]) == pytest.approx((d.mean, d.low, d.high))
    assert row["hands"] == 2 * capped and pairings.height == 3
    uncapped = pairings.filter((pl.col("a") == NEVER_KNOCKS) & (pl.col("b") == "simple")).row(0, named=True)
    assert uncapped["hands"] == 2 * experiment.count
    assert "greedy 200" in (folder / "report.md").read_text()
    matrix = pl.read_csv(folder / "matrix.csv")
    cell = matrix.filter(pl.col("strategy") == "greedy")["simple"][0]
    assert cell.startswith(f"{-d.mean:+.2f}")


def test_tournament_reuses_finished_matches(studies, monkeypatch, tmp_path):
    spec, run_dir, _ = studies["tournament"]
    monkeypatch.setattr(tournament, "match", lambda *a, **k: pytest.fail("replayed an unchanged match"))
    run_experiment(spec, runs_root=run_dir.parent, reports_root=tmp_path)
    index = json.loads((run_dir / tournament.INDEX_FILE).read_text())
    assert len(index["matches"]) == 3 and len(list((run_dir / tournament.MATCH_DIR).glob("*.json"))) == 3


@pytest.mark.parametrize("text, message", [
    ('[study]\nkind = "tournament"\nhands = 10\nstrategies = ["simple", "simple", "greedy"]', "listed twice"),
    ('[study]\nkind = "tournament"\nhands = 10\nstrategies = ["simple", "no_such_family"]', "no_such_family"),
    ('[study]\nkind = "tournament"\nhands = 10\nstrategies = ["threshold:asap", "threshold"]', "same strategy"),
    ('[study]\nkind = "tournament"\ngames = 10\nstrategies = ["simple", "greedy"]', "hands = N"),
    ('[study]\nkind = "tournament"\nhands = 10\nstrategies = ["simple", "greedy"]\n[options]\ndeals = {"mc" = 5}',
     "not in \\[study\\] strategies"),
    ('[study]\nkind = "tournament"\nhands = 10\nstrategies = ["simple", "greedy"]\n[options]\ndeals = {"simple" = 0}',
     "whole number of deals"),
    ('[study]\nkind = "tournament"\nhands = 10\nstrategies = ["simple", "greedy"]\n[options]\nrounds = 3',
     "one option"),
    ('[study]\nkind = "ladder"\nhands = 10\nstrategies = ["simple", "greedy"]', "games = N"),
    ('[study]\nkind = "ladder"\ngames = 10\nstrategies = ["simple", "greedy"]', "levels is a table"),
    ('[study]\nkind = "ladder"\ngames = 10\nstrategies = ["simple", "greedy"]\n[options]\nlevels = {a = "mc"}',
     "levels names mc, not in"),
    ('[study]\nkind = "ladder"\ngames = 10\nstrategies = ["simple", "greedy"]\n[options]\nlevels = {a = "simple"}'
     '\nrounds = 3', "the options deals"),
    ('[study]\nkind = "dealt_hands"\ngames = 10', "hands = N"),
    ('[study]\nkind = "dealt_hands"\nhands = 10\n[rules]\nplayers = 3', "two-player"),
])
def test_bad_specs_are_refused(tmp_path, text, message):
    spec = tmp_path / "bad.toml"
    spec.write_text(text)
    with pytest.raises(ValueError, match=message):
        load(spec)


def test_shipped_experiment_files_load():
    assert set(shipped()) == {"dealt_hands", "knock_thresholds", "knock_thresholds_reduced", "ladder", "tournament",
                              "upcard_effects"}
    for name in ("dealt_hands", "ladder", "tournament", "upcard_effects"):
        experiment = load(name, quick=True)  # by name, from inside the package
        assert experiment.kind == name and experiment.count >= 1 and experiment.source == name
        assert load(shipped()[name], quick=True).source == str(shipped()[name])  # and by its path


def test_an_unknown_study_name_lists_the_shipped_ones():
    with pytest.raises(OklasimError, match="no shipped study of that name; the shipped ones: dealt_hands"):
        load("knock_thresholdz")
    assert Rules().knock_limit("As") == 0


def test_upcard_effects_compares_player_counts(studies):
    _, _, folder = studies["upcard_effects"]
    table = pl.read_csv(folder / "by_players.csv")
    assert table["players"].to_list() == [2, 3] and (table["n"] == 1500).all()
    assert (folder / "outcomes_by_players.svg").is_file()
