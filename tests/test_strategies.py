"""The strategy library: legal play everywhere, presets that do what they are named for, names, parameter order."""

import ast
import math

import polars as pl
import pytest

from oklasim._kernels import mc_nb
from oklasim.game.rules import PRESETS, Rules
from oklasim.sim.engine import simulate
from oklasim.strategies import registry as strategy

ALL_NAMES = strategy.names()  # every family (its defaults) and every preset
FUZZ_RULES = {name: Rules.preset(name) for name in PRESETS} | {
    "big_gin_fiftieth_discard_taken": Rules(big_gin=True, wall_rule="fiftieth_card", discard_taken_card=True),
    "three_players": Rules(players=3, big_gin=True, wall_rule="fiftieth_card"),
    "four_players": Rules(players=4, discard_taken_card=True, spade_double=True),
}
FUZZ_GAMES = 300  # per strategy and rule set (four times as many single hands)
# A family that takes up to a second a game (search) plays fewer: a fixed number too, the same on every machine.
FEWER_GAMES = {"search": 50}


def test_the_library_is_complete():
    known = strategy.families()
    for family in ("random", "simple", "greedy", "eaai", "threshold", "score_aware", "defensive"):
        assert family in known
    for preset in ("asap", "gin_only", "early_then_gin", "knock_le_5", "knock_le_3"):
        assert f"threshold:{preset}" in ALL_NAMES


@pytest.mark.parametrize("name", sorted(strategy.families()))
def test_families_are_documented(name):
    loaded = strategy.families()[name]
    assert ast.get_docstring(ast.parse(loaded.source.read_text())), f"{loaded.source} needs a module docstring"
    assert loaded.family.doc
    for param in loaded.family.params:
        assert param.help and param.low <= param.default <= param.high, param
    for preset, values in loaded.family.presets.items():
        names = {p.name for p in loaded.family.params}
        assert set(values) <= names, f"{name}:{preset} sets unknown parameters"
        for key, value in values.items():
            param = next(p for p in loaded.family.params if p.name == key)
            assert value in param.choices if param.choices else param.low <= value <= param.high, \
                f"{name}:{preset} {key}={value}"


@pytest.mark.parametrize("name", ALL_NAMES)
def test_every_strategy_only_makes_legal_decisions(name):
    """simulate raises IllegalDecision on any illegal answer: playing many games under every rule set is the check.

    Each rule set plays a fixed number of games (FUZZ_GAMES, fewer for a slow family: FEWER_GAMES).
    """
    games = FEWER_GAMES.get(name.split(":")[0], FUZZ_GAMES)
    for k, (label, rules) in enumerate(FUZZ_RULES.items()):
        if rules.players == 2:
            seats = [[name, name], [name, "random"], ["greedy", name]][k % 3]
        else:
            seats = [name] + ["random", "greedy", name][: rules.players - 1]
        target = 4 * games if rules.single_hand else games
        result = simulate(rules, strategies=seats, games=target, seed=100 + k)
        assert result.games.height == target, label


# -- threshold: each preset does what its name says -------------------------------------------------

N_HANDS = 6000


def knocks_by(name, rules=None, seat=0, hands=N_HANDS, seed=7):
    """The hands that seat ``seat`` (playing ``name`` against greedy) ended by knocking, with its own draws."""
    seats = [name, "greedy"] if seat == 0 else ["greedy", name]
    h = simulate(rules or Rules(), strategies=seats, hands=hands, seed=seed).hands
    # Seats alternate draws after the first one and the knocker drew last: it made ceil(draws / 2).
    return h.filter(pl.col("knocker") == seat).with_columns(own_draws=(pl.col("draws") + 1) // 2)


@pytest.mark.parametrize("seat", [0, 1])
def test_asap_is_greedy(seat):
    seats = ["threshold:asap", "greedy"] if seat == 0 else ["greedy", "threshold:asap"]
    a = simulate(strategies=seats, hands=3000, seed=3).hands
    b = simulate(strategies=["greedy", "greedy"], hands=3000, seed=3).hands
    assert a.equals(b)


@pytest.mark.parametrize("seat", [0, 1])
def test_gin_only_never_knocks_with_deadwood(seat):
    k = knocks_by("threshold:gin_only", seat=seat)
    assert k.height > 100
    assert (k["knocker_deadwood"] == 0).all()
    assert set(k["outcome"].unique()) == {"gin"}


def test_gin_only_declines_the_fiftieth_card_unless_it_is_gin():
    # The last discard may be taken only to knock, never must be: gin_only stays gin only.
    rules = Rules(wall_rule="fiftieth_card")
    k = knocks_by("threshold:gin_only", rules=rules, hands=20000)
    assert k.height > 0 and (k["knocker_deadwood"] == 0).all()


@pytest.mark.parametrize("preset, limit", [("knock_le_5", 5), ("knock_le_3", 3), ("knock_le_1", 1)])
def test_fixed_thresholds(preset, limit):
    k = knocks_by(f"threshold:{preset}")
    assert k["knocker_deadwood"].max() == limit  # knocks right up to the threshold, never above
    assert (k["knocker_deadwood"] <= k["knock_limit"]).all()


def test_limit_minus_two():
    k = knocks_by("threshold:limit_minus_2")
    dw, limit = k["knocker_deadwood"], k["knock_limit"]
    assert ((dw == 0) | (dw <= limit - 2)).all()
    assert (dw == limit - 2).any()


def test_early_then_gin():
    early = strategy.resolve("threshold:early_then_gin")
    last_early_draw = dict(early.values)["gin_after_draws"]
    k = knocks_by("threshold:early_then_gin", hands=10000)
    not_gin = k.filter(pl.col("knocker_deadwood") > 0)
    assert not_gin.height > 100
    assert not_gin["own_draws"].max() == last_early_draw
    assert k.filter(pl.col("own_draws") > last_early_draw).height > 0  # it does go on to win by gin
    # ... while asap, on the same deals, knocks with deadwood after that point
    asap = knocks_by("threshold:asap", hands=10000)
    assert asap.filter((pl.col("knocker_deadwood") > 0) & (pl.col("own_draws") > last_early_draw)).height > 100


def test_threshold_rules_combine():
    k = knocks_by("threshold(threshold=6, threshold_offset=-3)")
    dw, limit = k["knocker_deadwood"], k["knock_limit"]
    assert ((dw == 0) | ((dw <= 6) & (dw <= limit - 3))).all()
    early = knocks_by("threshold(threshold=0, early_draws=2)")
    assert (early.filter(pl.col("knocker_deadwood") > 0)["own_draws"] <= 2).all()
    late = knocks_by("threshold(threshold=0, late_stock=12)", hands=20000)
    assert (late.filter(pl.col("knocker_deadwood") > 0)["stock_left"] <= 12).all()


def test_parameters_never_recompile():
    from oklasim._kernels import engine_nb as E

    simulate(strategies=["threshold", "greedy"], hands=10, seed=1)
    engine_versions = len(E.play_games_nb.overloads)
    for t in (0, 4, 7, 10):
        s = strategy.resolve(f"threshold(threshold={t}, gin_after_draws={t + 3})")
        simulate(strategies=[s, "greedy"], hands=200, seed=1)
        assert len(s.decide.overloads) == 1  # the kernel is compiled once, for DECIDE_SIGNATURE
        assert s.decide is strategy.resolve("threshold").decide
    assert len(E.play_games_nb.overloads) == engine_versions


# -- names ---------------------------------------------------------------------------------------


def test_names_resolve():
    asap = strategy.resolve("asap")
    assert asap.family == "threshold" and dict(asap.values)["threshold"] == 10
    gin = strategy.resolve("threshold:gin_only")
    assert gin.family == "threshold" and dict(gin.values)["threshold"] == 0
    four = strategy.resolve("threshold(threshold=4)")
    assert dict(four.values)["threshold"] == 4 and dict(four.values)["gin_after_draws"] == 99
    mixed = strategy.resolve("early_then_gin(threshold=3)")
    assert dict(mixed.values)["threshold"] == 3 and dict(mixed.values)["gin_after_draws"] == 6
    assert strategy.resolve("defensive:bold").family == "defensive"
    assert strategy.resolve("eaai(tie_break=highest)").family == "eaai"
    assert dict(strategy.resolve("score_aware", overrides={"behind_margin": 10}).values)["behind_margin"] == 10


@pytest.mark.parametrize(
    "spec, message",
    [
        ("threshold(treshold=4)", r"strategy threshold has no parameter 'treshold' \(parameters: threshold, "),
        ("threshold(threshold=11)", r"threshold=11 is outside 0..10"),
        ("threshold(threshold_offset=2)", r"threshold_offset=2 is outside -10..0"),
        ("threshold(threshold=four)", r"threshold=four: write a number"),
        ("threshold(threshold=1-2)", r"write parameters as name=number or name=option"),
        ("eaai(tie_break=best)", r"tie_break=best is not one of highest, random"),
        ("eaai(tie_break=0.5)", r"tie_break=0.5: write one of highest, random"),
        ("threshold:gin_olny", r"strategy threshold has no preset 'gin_olny' \(presets: asap, gin_only"),
        ("eaai(tie_break=2)", r"tie_break=2 is outside 0..1"),
        ("defensive(max_undercut_risk=-0.1)", r"max_undercut_risk=-0.1 is outside 0..1"),
        ("nosuch", r"unknown strategy 'nosuch'"),
    ],
)
def test_bad_names_are_clear_errors(spec, message):
    with pytest.raises(ValueError, match=message):
        strategy.resolve(spec)


# -- strength: what the docs call strong beats greedy ---------------------------------------------


def paired_gain(name, opponent="greedy", hands=20000, seed=2026):
    """Mean points per deal of ``name`` minus ``opponent``, both seatings of the same deals, and its standard error."""
    a = simulate(strategies=[name, opponent], hands=hands, seed=seed).hands
    b = simulate(strategies=[opponent, name], hands=hands, seed=seed).hands
    d = 0.5 * ((a["points_0"] - a["points_1"]).to_numpy() + (b["points_1"] - b["points_0"]).to_numpy())
    return d.mean(), d.std(ddof=1) / math.sqrt(hands)


@pytest.mark.parametrize("name", ["defensive", "defensive:bold", "score_aware"])
def test_strong_strategies_beat_greedy(name):
    mean, se = paired_gain(name)
    assert mean - 3 * se > 0.5, (mean, se)


def test_score_aware_plays_defensive_bold_in_single_deals():
    """At 0-0 no score rule applies: score_aware's draws, discards and layout must stay defensive's defaults."""
    a = simulate(strategies=["score_aware", "greedy"], hands=3000, seed=4).hands
    b = simulate(strategies=["defensive:bold", "greedy"], hands=3000, seed=4).hands
    assert a.equals(b)


@pytest.mark.parametrize("name", sorted(strategy.families()))
def test_parameter_index_names_follow_the_declared_order(name):
    """A kernel reads ``params[NAME]``: every parameter has its index constant, and it is the parameter's place in
    FAMILY.params (mc's are mc_nb's P_* places; policy's the AT tuple, one per knock limit)."""
    loaded = strategy.families()[name]
    module = strategy.family_module(loaded.source)
    places = {
        "mc": lambda param: module.PLACES[param.name],
        "policy": lambda param: module.AT[int(param.name.removeprefix("at_")) - 1],
    }.get(name, lambda param: getattr(module, param.name.upper(), None))
    for index, param in enumerate(loaded.family.params):
        assert places(param) == index, f"{name}: {param.name}'s constant is {places(param)}, declared {index}th"


def test_index_constants_are_generated_by_name():
    threshold = strategy.families()["threshold"].family
    assert threshold.indexes("late_stock", "threshold") == (4, 0)
    with pytest.raises(ValueError, match=r"strategy threshold has no parameter lat_stock \(parameters: threshold, "):
        threshold.indexes("lat_stock")


def test_mc_kernel_indices_follow_the_mc_parameters():
    """mc's kernel (_kernels/mc_nb.py) names its parameters P_<NAME>; they must match strategies/mc.py's order."""
    declared = [p.name.upper() for p in strategy.families()["mc"].family.params]
    indices = {name[2:]: value for name, value in vars(mc_nb).items() if name.startswith("P_")}
    assert indices == {name: k for k, name in enumerate(declared)}


def test_choice_parameters_are_written_and_shown_by_name():
    from oklasim._kernels import mc_nb as M

    searched = strategy.resolve("mc(continuation=expert, prior=history)")
    assert dict(searched.values)["continuation"] == M.CONTINUE_EXPERT and dict(searched.values)["prior"] == M.PRIOR_HISTORY
    assert "continuation=expert, opponent=simple, prior=history" in searched.canonical()
    assert strategy.resolve(searched.canonical()).values == searched.values
    assert "continuation=2, opponent=0, prior=3" in searched.key()  # run ids and study keys: the numbers, as before
    assert strategy.resolve("eaai:original").canonical() == "eaai(tie_break=random, take_rule=any_meld, no_repeat=1)"
    assert dict(strategy.resolve("score_aware(play=greedy)").values)["play"] == 0


def test_a_choice_written_as_a_number_still_works_with_a_warning():
    with pytest.warns(FutureWarning, match="continuation=2 by number is deprecated .* write continuation=expert"):
        old = strategy.resolve("mc(continuation=2)")
    assert old.values == strategy.resolve("mc(continuation=expert)").values
    with pytest.warns(FutureWarning, match="write play=greedy"):
        strategy.resolve("score_aware", overrides=strategy.parse_overrides(["play=0"]))
    held = strategy.resolve("mc", overrides={"continuation": 2.0})  # a value the program holds: no warning
    assert held.values == old.values


def test_a_run_keeps_its_id_across_choices_getting_names():
    """A run's manifest from before holds its strategies with choices by number: its id is the id of the same run
    made now, with choices by name, so that it resumes and its shards stay its own."""
    from dataclasses import asdict, replace

    from oklasim.runs.batch import RunSpec
    from oklasim.runs.keys import result_key

    now = RunSpec.create(None, "mc(samples=4, continuation=expert),eaai", hands=100, seed=1)
    numbers = ("mc(samples=4, discards=0, draws=0, continuation=2, opponent=0, prior=1, window=3, played_draws=3, "
               "roulette=0)", "eaai(tie_break=1, take_rule=0, no_repeat=1)")
    before = replace(now, strategies=numbers)  # as the manifest of a run made before holds it
    assert "continuation=expert" in now.strategies[0] and before.run_id == now.run_id
    assert now.run_id == result_key(asdict(now) | {"strategies": list(numbers)})



WIDE_FAMILY = '''
"""wide: simple's play, with more parameters than any shipped family; it stops the game unless it reads its last."""
from oklasim.strategies.families.simple import decide_nb as simple_nb
from oklasim.strategy_api import Family, Param, decide_kernel

FAMILY = Family(name="wide", doc="simple, declaring 100 parameters",
                params=tuple(Param(f"p{i}", i, -1, 1000, f"number {i}") for i in range(100)))
LAST = len(FAMILY.params) - 1


@decide_kernel()
def decide_nb(kind, view, params):
    if params[LAST] != LAST:
        return -1  # an illegal answer: the engine stops with an error
    return simple_nb(kind, view, params)
'''


def test_a_family_declares_as_many_parameters_as_it_needs(tmp_path):
    """Nothing in the layout caps a family's parameters: one with 100 (expert has 24) plays beside expert, reading
    its last one, exactly as simple does, in the engine."""
    (tmp_path / "wide.py").write_text(WIDE_FAMILY)
    wide = strategy.resolve("wide", extra_paths=[tmp_path])
    assert len(wide.vector()) == 100 > len(strategy.resolve("expert").vector())
    for seats in (["wide", "expert"], ["expert", "wide", "wide"]):
        rules = Rules(players=len(seats))
        played = simulate(rules, seats, hands=300, seed=3, extra_paths=[tmp_path])
        simple = simulate(rules, [s.replace("wide", "simple") for s in seats], hands=300, seed=3)
        assert played.hands.equals(simple.hands)
