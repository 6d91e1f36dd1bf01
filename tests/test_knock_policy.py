"""The knock study's pieces: the policy strategy, paired matches on one pool, honest choices, the equilibrium,
whole games by score, and `oklasim policy` (exact rules, the basis of every figure, no silent quick runs)."""

import json
import math

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

from oklasim.analysis.match import match
from oklasim.analysis.stats import mean_ci
from oklasim.cli import main
from oklasim.game.rules import Rules
from oklasim.runs.batch import RunSpec, run
from oklasim.studies import knock_equilibrium, knock_policy, knock_thresholds
from oklasim.studies.experiment import load, run_experiment
from oklasim.studies.knock_answers import (
    ASAP,
    NEVER,
    advice_over,
    agrees,
    best_against,
    canonical,
    distinct_rules,
    max_min,
)
from oklasim.studies.knock_equilibrium import policy_spec, symmetric_equilibrium
from oklasim.studies.knock_scores import band_names, best_by_band, by_band
from oklasim.studies.paired_pool import GamesPlayed, Pairing, play_by_limit, play_games, play_pairings

SPEC = """
[study]
kind = "knock_thresholds"
seed = 21
hands = 60
quick_hands = 40
[options]
opponents = ["greedy", "threshold:gin_only", "expert"]
thresholds = [0, 4, 10]
gin_after_draws = [99, 4]
quick_thresholds = [0, 10]
quick_gin_after_draws = [99]
undercut_bonuses = [10]
equilibrium_rounds = 3
games = 20
quick_games = 10
exploit_hands = 400
quick_exploit_hands = 100
"""


def hands_of(strategies, rules=Rules(), n=1500, seed=5):
    return run(RunSpec.create(rules, strategies, hands=n, seed=seed), None, progress=False).hands


# -- the policy strategy ---------------------------------------------------------------------------------


def test_policy_plays_the_threshold_rule_of_each_limit():
    uniform = policy_spec({limit: (5, 7) for limit in range(1, 11)})
    assert hands_of([uniform, "greedy"]).equals(hands_of(["threshold(threshold=5, gin_after_draws=7)", "greedy"]))
    # One limit changed: hands at that limit play the threshold rule, every other hand plays knocking at once.
    mixed = hands_of([policy_spec({6: (0, NEVER)}), "greedy"])
    gin_only = hands_of(["threshold:gin_only", "greedy"])
    asap = hands_of(["threshold:asap", "greedy"])
    at_six = mixed["knock_limit"] == 6
    assert at_six.sum() > 50
    assert mixed.filter(at_six).equals(gin_only.filter(at_six))
    assert mixed.filter(~at_six).equals(asap.filter(~at_six))
    assert not mixed.equals(asap)


def test_policy_spec_spells_only_what_differs_from_knocking_at_once():
    assert policy_spec({}) == "policy"
    assert policy_spec({0: (0, NEVER), 3: ASAP, 7: (5, 7)}) == "policy(at_7=507)"


# -- deals stratified by knock limit ---------------------------------------------------------------------


def dealt(rules: Rules, deals: int, seed: int = 11) -> tuple[np.ndarray, np.ndarray]:
    """The engine's own dealing, ``deals`` times: (upcards, seat 0's hands as 52 flags)."""
    from oklasim._kernels import engine_nb as E
    from oklasim._kernels import layout as L
    from oklasim._kernels.rng_nb import stream_state_nb

    board = E.new_board()
    E.load_rules_nb(board, rules.to_array())
    upcards, hands = np.empty(deals, dtype=np.int64), np.zeros((deals, 52), dtype=bool)
    for deal in range(deals):
        E.deal_nb(board, deal % 2, 0, np.zeros(L.MAX_SEATS, dtype=np.int64), np.uint64(stream_state_nb(seed, deal)))
        upcards[deal] = board[0, L.V_UPCARD]
        hands[deal] = (board[L.HIDDEN, L.S_HANDS] >> np.arange(52)) & 1
    return upcards, hands


@pytest.mark.parametrize("limit", Rules().knock_limits())
def test_every_deal_has_an_upcard_of_the_wanted_knock_limit(limit):
    rules = Rules().replace(deal_knock_limit=limit)
    upcards, hands = dealt(rules, 300)
    assert {rules.knock_limit(int(card)) for card in upcards} == {limit}
    assert (hands.sum(axis=1) == 10).all() and not hands[np.arange(300), upcards].any()
    played = hands_of(["greedy", "greedy"], rules, n=300)
    assert (played["knock_limit"] == limit).all()


def test_the_rest_of_a_stratified_deal_is_uniform():
    """Chi-square: the upcard is uniform over the limit's 16 cards, and every other card is in a given hand with
    probability 10/51 (the swap that places the upcard must not leave its trace in the hands)."""
    deals = 4000
    upcards, hands = dealt(Rules().replace(deal_knock_limit=10), deals)
    tens = [card for card in range(52) if Rules().knock_limit(card) == 10]
    seen = np.bincount(upcards, minlength=52)[tens]
    assert ((seen - deals / 16) ** 2 / (deals / 16)).sum() < 37.7  # chi-square, 15 degrees of freedom, 0.999
    not_upcard = (np.arange(52)[None, :] != upcards[:, None]).sum(axis=0)
    expected = not_upcard * 10 / 51
    assert ((hands.sum(axis=0) - expected) ** 2 / expected).sum() < 88.0  # 51 degrees of freedom, 0.999
    ten_valued = hands[:, tens].sum(axis=1).mean()
    assert abs(ten_valued - 10 * 15 / 51) < 0.05  # 15 ten-valued cards left among the 51


def test_a_stratified_deal_depends_only_on_seed_and_deal_number():
    rules = Rules().replace(deal_knock_limit=6)
    alone = run(RunSpec.create(rules, ["greedy", "defensive"], hands=500, seed=4), None, workers=1).hands
    sharded = run(RunSpec.create(rules, ["greedy", "defensive"], hands=500, seed=4, shard_size=120), None,
                  workers=2).hands
    assert alone.equals(sharded)
    by_limit = play_by_limit({6: [Pairing(Rules(), "greedy", "defensive")]}, 500, 4, workers=2)[6][0]
    assert np.array_equal(by_limit, match("greedy", "defensive", rules, hands=500, seed=4).deal_nets)


def test_a_knock_limit_no_upcard_gives_is_refused():
    with pytest.raises(ValueError, match="no upcard gives that knock limit"):
        Rules().replace(deal_knock_limit=1)
    assert Rules().replace(ace_upcard="one", deal_knock_limit=1).knock_limits() == list(range(1, 11))
    with pytest.raises(ValueError, match="outside its range"):
        Rules().replace(deal_knock_limit=11)
    from oklasim.table.referee import Table

    with pytest.raises(ValueError, match="for simulations only"):  # the table deals as in play, never silently
        Table(Rules().replace(deal_knock_limit=5), [], seed=1)


# -- paired matches on one pool --------------------------------------------------------------------------


def test_pairings_match_the_match_command_deal_by_deal():
    rules = Rules()
    pairings = [Pairing(rules, "threshold:gin_only", "greedy"), Pairing(rules, "simple", "defensive")]
    nets, limits = play_pairings(pairings, 400, 3, workers=1)
    for row, pairing in zip(nets, pairings):
        direct = match(pairing.strategy, pairing.opponent, rules, hands=400, seed=3)
        assert np.array_equal(row, direct.deal_nets)
    assert np.array_equal(limits, hands_of(["greedy", "greedy"], n=400, seed=3)["knock_limit"].to_numpy())
    pooled, _ = play_pairings(pairings, 400, 3, workers=2)
    assert np.array_equal(pooled, nets)


def test_zero_workers_are_refused():
    with pytest.raises(ValueError, match="at least 1"):
        play_pairings([Pairing(Rules(), "greedy", "greedy")], 50, 1, workers=0)


def test_pairings_that_deal_differently_are_refused():
    plain = Rules().replace(oklahoma=False)
    with pytest.raises(ValueError, match="dealt different hands"):
        play_pairings([Pairing(Rules(), "greedy", "greedy"), Pairing(plain, "greedy", "greedy")], 300, 1, workers=1)


def test_whole_games_count_wins_and_scores_before_each_hand():
    rules = Rules()
    played = play_games([Pairing(rules, "threshold:gin_only", "greedy")], 40, 9, workers=1)[0]
    direct = match("threshold:gin_only", "greedy", rules, games=40, seed=9)
    assert played.won.size == 80 and played.won.sum() == round(direct.a.games_won.mean * 80)
    assert played.net.size == direct.hands
    # Scores before a hand start at 0 and never exceed the target by more than one hand's points.
    assert (played.own_before >= 0).all() and (played.their_before >= 0).all()
    assert (played.own_before == 0).sum() >= 80 and played.own_before.max() < rules.target_score


def test_score_bands():
    assert band_names([50, 80]) == ["0-49", "50-79", "80+"]
    played = GamesPlayed(net=np.array([10, -10, 20, 0]), own_before=np.array([0, 55, 85, 85]),
                         their_before=np.array([0, 0, 90, 90]), knock_limit=np.zeros(4), won=np.array([1]))
    table = by_band(played, [50, 80]).sort("own_band")
    assert table["own_band"].to_list() == ["0-49", "50-79", "80+"]
    assert table["hands"].to_list() == [1, 1, 2] and table["points"].to_list() == [10, -10, 10]
    frame = pl.DataFrame({"strategy": ["a", "b", "c"], "own_band": ["0-49"] * 3, "their_band": ["0-49"] * 3,
                          "points": [1.0, 0.9, -5.0], "points_lo": [0.5, 0.4, -5.5], "points_hi": [1.5, 1.4, -4.5],
                          "hands": [100] * 3})
    best = best_by_band(frame).row(0, named=True)
    assert best["best"] == "a" and best["tied"] == "a; b"


# -- honest choices --------------------------------------------------------------------------------------


def test_rules_alike_at_a_limit_are_one_rule():
    grid = [(0, NEVER), (0, 5), (3, NEVER), (3, 5), (10, NEVER), (10, 5)]
    assert canonical((7, 5), 4) == (10, 5) and canonical((0, 5), 9) == (0, NEVER)
    assert [canonical(grid[i], 2) for i in distinct_rules(grid, 2)] == [(0, NEVER), (10, 5), (10, NEVER)]
    assert grid[distinct_rules(grid, 2)[2]] == ASAP  # knocking at once keeps its own spelling
    assert len(distinct_rules(grid, 8)) == 5


def test_best_rule_and_its_tied_set():
    rng = np.random.default_rng(0)
    noise = rng.normal(0, 1, 4000)
    values = np.vstack([noise, noise + 1.0, noise + 1.0 + rng.normal(0, 0.5, 4000) * 0.1, noise + 0.5])
    choice = best_against(values, [0, 1, 2, 3], asap=0, against="x")
    assert choice.best in (1, 2) and set(choice.tied) == {1, 2}
    assert choice.gain.low > 0.9 and choice.against == "x"


def test_max_min_picks_the_best_worst_case():
    deals = 3000
    rng = np.random.default_rng(1)
    means = np.array([[0.0, 2.0, 1.0],    # against opponent a: rule 1 best
                      [0.0, -3.0, 0.5]])  # against b: rule 1 collapses
    panel = means[:, :, None] + rng.normal(0, 1, (2, 3, deals))
    choice = max_min(panel, ["a", "b"], [0, 1, 2], asap=0)
    assert choice.best == 2 and choice.tied == (2,) and choice.against == "b"
    assert choice.points.mean == pytest.approx(0.5, abs=0.1)


def test_agreement_of_two_estimates():
    a, b = mean_ci(np.arange(100.0)), mean_ci(np.arange(100.0) + 1)
    assert agrees(a, b) and not agrees(a, mean_ci(np.arange(100.0) + 40))


def test_advice_is_worded_over_the_tied_set():
    assert advice_over([(10, 3)], 10) == "knock as soon as you can up to your 3rd draw; after that hold for gin"
    text = advice_over([(10, 3), (10, 7), (10, 5)], 10)
    assert text.startswith("knock as soon as you can up to your 3rd-7th draw, then hold for gin")
    assert "3 rules are within noise" in text and "best measured: knock as soon as you can up to your 3rd" in text
    assert advice_over([(0, NEVER), (0, 5)], 6) == "hold for gin"
    assert advice_over([(4, NEVER), (0, NEVER)], 6).startswith("hold for gin or knock with 4 or less")
    assert advice_over([(3, 5)], 0) == "only gin is allowed: hold for gin"


# -- the equilibrium -------------------------------------------------------------------------------------


def test_fictitious_play_solves_small_symmetric_games():
    rock_paper_scissors = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], dtype=float)
    mix = symmetric_equilibrium(rock_paper_scissors)
    assert mix == pytest.approx([1 / 3] * 3, abs=0.02)
    assert (rock_paper_scissors @ mix).max() < 0.02
    dominant = np.array([[0, -2, -1], [2, 0, 1], [1, -1, 0]], dtype=float)
    assert symmetric_equilibrium(dominant)[1] > 0.99


# -- the study and `oklasim policy` ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    root = tmp_path_factory.mktemp("knock")
    spec = root / "knock.toml"
    spec.write_text(SPEC)
    full = run_experiment(spec, workers=2, runs_root=root / "runs", reports_root=root / "reports")
    quick = run_experiment(spec, quick=True, workers=2, runs_root=root / "runs", reports_root=root / "reports")
    return root, spec, full.parent, quick.parent


def test_every_answer_names_its_opponent_and_keeps_its_intervals(study):
    root, _, report, _ = study
    policy = pl.read_csv(root / "runs" / "knock" / knock_thresholds.POLICY_FILE)
    answers = set(policy["answer"])
    assert answers == {"greedy", "threshold:gin_only", "expert", "mix", "max-min", "equilibrium"}
    assert (policy["rules"] == knock_policy.rules_key(Rules())).all()
    for row in policy.filter(pl.col("knock_limit") > 0).iter_rows(named=True):
        assert row["gain_lo"] <= row["gain"] <= row["gain_hi"]
        assert row["confirmed_lo"] <= row["confirmed_gain"] <= row["confirmed_hi"]
        # The equilibrium's figure comes from a third sample (its exploitability), the answers' from the second.
        assert row["seed"] == 21 and row["confirm_seed"] == (23 if row["answer"] == "equilibrium" else 22)
        assert row["against"]
        if row["answer"] not in ("mix", "max-min", "equilibrium"):
            assert row["against"] == row["answer"]
    mix = policy.filter(pl.col("answer") == "mix")["against"][0]
    assert "greedy" in mix and "expert" in mix
    summary, first, *sections = (report / "report.md").read_text().split("## ")
    assert "against the panel mix (greedy, threshold:gin_only, expert)" in summary
    assert "on fresh deals (seed 22)" in summary
    # The report opens with the compact table of `oklasim policy`, then what the study found.
    assert first.startswith("When to knock at a glance, undercut bonus") and "| knock limit | what to do |" in first
    assert "A (gin only)" in first and ("as soon as you can" in first or "hold for gin" in first)
    found = next(s for s in sections if s.startswith("What the study found"))
    assert "Honest selection" in found


def test_the_equilibrium_is_measured_against_the_whole_grid(study):
    _, _, report, _ = study
    table = pl.read_csv(report / "equilibrium.csv")
    assert table["knock_limit"].to_list() == sorted(table["knock_limit"].to_list())
    for row in table.iter_rows(named=True):
        assert row["confirmed_lo"] <= row["confirmed_exploitability"] <= row["confirmed_hi"]
        weights = [float(part.rsplit(" ", 1)[1].rstrip("%")) for part in row["mix"].split("; ")]
        assert 99 <= sum(weights) <= 101
    # A best response does at least as well as the mix's own rule, which gains exactly 0 against itself.
    assert (table["exploitability"] >= -1e-9).all()
    # The honest exploitability: a deviation from the mix, on a third sample sized from its spread.
    assert table.filter(pl.col("knock_limit") == 0)["deviation"].str.starts_with("none").all()
    for row in table.iter_rows(named=True):
        assert row["exploit_lo"] <= row["exploit"] <= row["exploit_hi"] and row["exploit_seed"] == 23
        if row["deviation"].startswith("none"):  # every rule is in the mix: nothing to deviate to
            assert row["exploit_deals"] == 0 and row["exploit"] == 0
        else:
            wanted = math.ceil((1.96 * row["deviation_sd"] / 0.05) ** 2)
            assert row["exploit_deals"] == max(2, min(400, wanted))
            assert row["deviation"] not in [part.rsplit(" ", 1)[0] for part in row["mix"].split("; ")]


def test_whole_games_against_every_opponent(study):
    _, _, report, _ = study
    games = pl.read_csv(report / "games.csv")
    assert set(games["opponent"]) == {"greedy", "threshold:gin_only", "expert"}
    assert set(games["strategy"]) == {"knock at once", "max-min answer", "panel-mix answer", "equilibrium (main rule)"}
    assert (games["games"] == 40).all()
    assert ((games["win_rate_lo"] <= games["win_rate"]) & (games["win_rate"] <= games["win_rate_hi"])).all()
    assert games.filter(pl.col("strategy") == "knock at once")["spec"][0] == "policy"
    bands = pl.read_csv(report / "best_by_band.csv")
    assert set(bands["own_band"]) <= {"0-49", "50-79", "80+"} and bands["best"].is_not_null().all()


def test_an_unchanged_study_is_not_played_again(study, monkeypatch, tmp_path):
    root, spec, _, _ = study
    monkeypatch.setattr(knock_equilibrium, "play_by_limit", lambda *a, **k: pytest.fail("replayed"))
    monkeypatch.setattr(knock_thresholds, "play_games", lambda *a, **k: pytest.fail("replayed games"))
    run_experiment(spec, workers=1, runs_root=root / "runs", reports_root=tmp_path)


def invoke(*args):
    return CliRunner().invoke(main, ["policy", *args])


def test_policy_names_opponents_and_basis(study):
    root, _, _, _ = study
    shown = invoke("--runs", str(root / "runs"), "--answer", "mix,greedy,equilibrium")
    assert shown.exit_code == 0, shown.output
    text = shown.output
    assert str(root / "runs" / "knock") in text and "measured by: oklasim run" in text and "seed 21" in text
    assert "against the panel mix (greedy, threshold:gin_only, expert), each of them equally likely" in text
    assert "against greedy only" in text and "QUICK" not in text
    # At a glance: one row per knock limit with what to do and its gain; the long form behind --details.
    assert "\n  A (gin only)  " in text and "fresh deals" in text and "best deviation's gain over it" in text
    assert "oklasim policy --details" in text and "exploitability:" not in text
    details = invoke("--runs", str(root / "runs"), "--answer", "mix,greedy,equilibrium", "--details").output
    assert "exploitability:" in details and "limit A (gin only)" in details and "on fresh deals" in details
    assert "measured by: oklasim run" in details and "seed 21" in details


def test_policy_never_uses_a_quick_run_silently(study, tmp_path):
    root, _, _, _ = study
    quick_only = tmp_path / "runs"
    quick_only.mkdir()
    (root / "runs" / "knock-quick").rename(quick_only / "knock-quick")
    try:
        shown = invoke("--runs", str(quick_only), "--rules", "pagat")
        assert shown.exit_code != 0 and "--quick run" not in shown.output  # measured under other rules: not offered
        assert "oklasim policy --rules pagat --write-study" in shown.output
        quick = invoke("--runs", str(quick_only), "--quick")
        assert quick.exit_code == 0 and "QUICK run" in quick.output
    finally:
        (quick_only / "knock-quick").rename(root / "runs" / "knock-quick")


def test_policy_matches_rules_exactly(tmp_path):
    shown = invoke("--runs", str(tmp_path), "--rules", "pagat")
    assert shown.exit_code != 0 and "no knock policy measured under exactly these rules" in shown.output
    assert "Traceback" not in shown.output
    study_file = tmp_path / "pagat.toml"
    written = invoke("--rules", "pagat", "--write-study", str(study_file))
    assert written.exit_code == 0 and f"oklasim run {study_file}" in written.output
    experiment = load(study_file)
    rules = experiment.base_rules().replace(undercut_bonus=experiment.options["undercut_bonuses"][0])
    assert knock_policy.rules_key(rules) == knock_policy.rules_key(Rules.preset("pagat"))


def test_shipped_table_answers_the_seeds_rules(tmp_path):
    no_runs = str(tmp_path)  # a folder without runs: the shipped table answers (a missing folder is an error)
    shown = invoke("--runs", no_runs, "--answer", "all")
    assert shown.exit_code == 0, shown.output
    assert "the shipped table" in shown.output and "measured by: oklasim run knock_thresholds;" in shown.output
    for answer in ("mix", "max-min", "equilibrium", "greedy", "expert"):
        assert f"\n{answer}: " in shown.output
    bonus25 = invoke("--runs", no_runs, "--rules", "north_american")
    assert ("undercut bonus 25" in bonus25.output) == (bonus25.exit_code == 0)


def test_shipped_experiment_files_load():
    for name in ("knock_thresholds", "knock_thresholds_reduced"):
        for quick in (False, True):
            experiment = load(name, quick=quick)  # a shipped study, by name
            assert experiment.source == name
            assert set(knock_thresholds.options(experiment)["opponents"]) >= {"greedy", "defensive", "expert"}
    table = pl.read_csv(knock_policy.SHIPPED)
    assert not table["quick"].any() and (table["command"] == "oklasim run knock_thresholds").all()
    assert json.loads(table["rules"][0])["undercut_bonus"] in (10, 25)


@pytest.mark.parametrize("preset, answer, bonus", [
    ("seeds_mix", "mix", 10), ("seeds_maxmin", "max-min", 10), ("seeds_equilibrium", "equilibrium", 10),
    ("ub25_mix", "mix", 25)])
def test_policy_presets_are_the_shipped_answers(preset, answer, bonus):
    from oklasim.strategies.registry import resolve

    table = pl.read_csv(knock_policy.SHIPPED).filter((pl.col("answer") == answer) & (pl.col("undercut_bonus") == bonus))
    rules = {row["knock_limit"]: (row["threshold"], row["gin_after_draws"]) for row in table.iter_rows(named=True)}
    assert resolve(policy_spec(rules)).values == resolve(f"policy:{preset}").values


def test_a_changed_option_redoes_only_the_parts_it_touches(tmp_path, monkeypatch):
    text = SPEC.replace('opponents = ["greedy", "threshold:gin_only", "expert"]', 'opponents = ["greedy"]')
    spec = tmp_path / "small.toml"
    spec.write_text(text.replace("hands = 60", "hands = 24").replace("equilibrium_rounds = 3", "equilibrium_rounds = 1"))
    run_experiment(spec, workers=1, runs_root=tmp_path / "runs", reports_root=tmp_path / "reports")
    run_dir = tmp_path / "runs" / "small"
    before = {name: (run_dir / file).read_bytes() for name, file in knock_thresholds.FILES.items()}
    old_keys = json.loads((run_dir / knock_thresholds.STAGES_FILE).read_text())
    spec.write_text(text.replace("hands = 60", "hands = 24").replace("equilibrium_rounds = 3", "equilibrium_rounds = 2"))
    monkeypatch.setattr(knock_thresholds, "play_grid", lambda *a, **k: pytest.fail("replayed the panel"))
    run_experiment(spec, workers=1, runs_root=tmp_path / "runs", reports_root=tmp_path / "reports")
    for name in ("selection", "panel", "answers"):
        assert (run_dir / knock_thresholds.FILES[name]).read_bytes() == before[name], name
    keys = json.loads((run_dir / knock_thresholds.STAGES_FILE).read_text())
    assert keys == knock_thresholds.stage_keys(load(spec))
    changed = {name for name in keys if keys[name] != old_keys[name]}
    assert changed == {"equilibrium", "games", "bands"}
    assert pl.read_csv(run_dir / knock_thresholds.POLICY_FILE).height > 0


@pytest.mark.parametrize("options, message", [
    ("opponents = []", "at least one opponent"),
    ("thresholds = [0, 5]", "asap cell"),
    ("confirm_seed = 3", "fresh deals"),
    ("exploit_seed = 4", "fresh deals"),
    ("exploit_half_width = 0", "half_width must be > 0"),
    ("equilibrium_rounds = 0", "at least 1 round"),
    ("opponent = 'greedy'", "unknown option"),
])
def test_bad_study_options_are_refused(tmp_path, options, message):
    spec = tmp_path / "bad.toml"
    spec.write_text(f'[study]\nkind = "knock_thresholds"\nseed = 3\nhands = 10\n[options]\n{options}\n')
    with pytest.raises(ValueError, match=message):
        load(spec)
