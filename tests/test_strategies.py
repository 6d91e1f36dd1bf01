"""The strategy library: legal play everywhere, presets that do what they are named for, names, kit helpers."""

import ast
import math
import time

import numpy as np
import polars as pl
import pytest

from oklasim import melds, strategy
from oklasim._kernels import kit_nb as K
from oklasim._kernels import layout as L
from oklasim.cards import parse_card, parse_hand
from oklasim.engine import simulate
from oklasim.rules import PRESETS, Rules

ALL_NAMES = strategy.names()  # every family (its defaults) and every preset
FUZZ_RULES = {name: Rules.preset(name) for name in PRESETS} | {
    "big_gin_fiftieth_discard_taken": Rules(big_gin=True, wall_rule="fiftieth_card", discard_taken_card=True),
    "three_players": Rules(players=3, big_gin=True, wall_rule="fiftieth_card"),
    "four_players": Rules(players=4, discard_taken_card=True, spade_double=True),
}
FUZZ_GAMES = 300
FUZZ_SECONDS = 0.6  # per strategy and rule set, after the first chunk


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
            assert param.low <= value <= param.high, f"{name}:{preset} {key}={value}"


@pytest.mark.parametrize("name", ALL_NAMES)
def test_every_strategy_only_makes_legal_decisions(name):
    """simulate raises IllegalDecision on any illegal answer: playing many games under every rule set is the check.

    Games run in chunks until FUZZ_GAMES are played or the time budget of the
    rule set is spent (at least one chunk), so a slow family (``mc``) stays cheap.
    """
    for k, (label, rules) in enumerate(FUZZ_RULES.items()):
        if rules.players == 2:
            seats = [[name, name], [name, "random"], ["greedy", name]][k % 3]
        else:
            seats = [name] + ["random", "greedy", name][: rules.players - 1]
        target, chunk = (4 * FUZZ_GAMES, 200) if rules.single_hand else (FUZZ_GAMES, 50)
        played, start = 0, time.perf_counter()
        while played < target and (played == 0 or time.perf_counter() - start < FUZZ_SECONDS):
            result = simulate(rules, strategies=seats, games=chunk, seed=100 + k, first_game=played)
            assert result.games.height == chunk, label
            played += chunk


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
    assert strategy.resolve("eaai(tie_break=0)").family == "eaai"
    assert dict(strategy.resolve("score_aware", overrides={"behind_margin": 10}).values)["behind_margin"] == 10


@pytest.mark.parametrize(
    "spec, message",
    [
        ("threshold(treshold=4)", r"strategy threshold has no parameter 'treshold' \(parameters: threshold, "),
        ("threshold(threshold=11)", r"threshold=11 is outside 0..10"),
        ("threshold(threshold_offset=2)", r"threshold_offset=2 is outside -10..0"),
        ("threshold(threshold=four)", r"write parameters as name=number"),
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


# -- kit helpers -----------------------------------------------------------------------------------


def random_hands(n, size, seed):
    rng = np.random.default_rng(seed)
    for i in range(n):
        if i % 2:
            cards = rng.choice(52, size, replace=False)
        else:  # dense hands: many overlapping melds
            low = rng.integers(0, 8)
            cards = rng.choice([s * 13 + r for s in range(4) for r in range(low, low + 6)], size, replace=False)
        yield sum(1 << int(c) for c in cards), int(cards[0])


def in_a_meld(hand, card):
    """Brute force: ``card`` (held) is in a set or a 3-card run of ``hand``."""
    rank, suit = card % 13, card // 13
    same_rank = sum((hand >> (13 * s + rank)) & 1 for s in range(4))
    starts = range(max(0, rank - 2), min(rank, 10) + 1)
    return same_rank >= 3 or any(all((hand >> (13 * suit + r)) & 1 for r in range(a, a + 3)) for a in starts)


def test_meld_tests_against_brute_force():
    for hand, card in random_hands(1500, 11, seed=1):
        some = any((meld >> card) & 1 for arrangement in melds.optimal_arrangements(hand) for meld in arrangement)
        assert K.melded_in_some_optimal_nb(hand, card) == some
        assert K.in_any_meld_nb(hand & ~(1 << card), card) == in_a_meld(hand, card)


def test_meld_outs_against_brute_force():
    for hand, _ in random_hands(500, 10, seed=2):
        outs = K.meld_outs_nb(hand)
        for card in range(52):
            if hand >> card & 1:
                assert not outs >> card & 1
                continue
            assert bool(outs >> card & 1) == in_a_meld(hand | (1 << card), card), (hand, card)


def blank_view(hand, players=2, seat=0):
    view = np.zeros(L.V_SIZE, dtype=np.int64)
    view[L.V_HAND] = hand
    view[L.V_PLAYERS] = players
    view[L.V_SEAT] = seat
    view[L.V_RULES + L.R_HAND_SIZE] = 10
    return view


def test_least_exposed_arrangement_is_the_rules_example_8():
    """RULES.md §10 ex. 8: laid as three runs the opponent lays off everything; as three sets, almost nothing."""
    hand = parse_hand("5s 5c 5d 6s 6c 6d 7s 7c 7d As")
    runs = [parse_hand(m) for m in ("5s 6s 7s", "5c 6c 7c", "5d 6d 7d")]
    sets = [parse_hand(m) for m in ("5s 5c 5d", "6s 6c 6d", "7s 7c 7d")]
    for order, sets_row in (((runs, sets), 1), ((sets, runs), 0)):
        view = blank_view(hand)
        for row, arrangement in enumerate(order):
            view[L.V_ARRANGEMENTS + 4 * row : L.V_ARRANGEMENTS + 4 * row + 3] = arrangement
        view[L.V_N_ARRANGEMENTS] = 2
        assert K.least_exposed_arrangement_nb(view) == sets_row


def test_knowledge_of_the_opponents_hand():
    view = blank_view(parse_hand("2h 3h 4h 7s 7d 7h Jc Qc Kc 5d"))
    view[L.V_PILE_MASK] = parse_hand("9c 8s")
    view[L.V_TAKEN + 1] = parse_hand("8s 6c 6d")  # 8s was thrown back: it is in the pile again
    assert K.opponents_known_nb(view) == parse_hand("6c 6d")
    unseen = K.unseen_nb(view)
    assert unseen & (view[L.V_HAND] | view[L.V_PILE_MASK] | parse_hand("6c 6d")) == 0
    assert bin(unseen).count("1") == 52 - 10 - 2 - 2
    # 6s / 6h complete the known pair of sixes; 5c, 7c... sit next to them
    for card, danger in (("6s", 2), ("6h", 2), ("5c", 1), ("8d", 1), ("Ks", 0)):
        assert K.discard_danger_nb(parse_card(card), K.opponents_known_nb(view), unseen) == danger, card


def test_undercut_risk_estimate():
    view = blank_view(parse_hand("2h 3h 4h 7s 7d 7h Jc Qc Kc 5d"))
    risks = []
    for opponent_draws in (0, 5, 10, 15):
        view[L.V_DRAWS] = opponent_draws
        risks.append([K.undercut_risk_nb(view, d) for d in range(11)])
    risks = np.array(risks)
    assert (risks[:, 0] == 0).all()  # gin is never undercut
    assert (np.diff(risks, axis=1) >= 0).all() and (np.diff(risks, axis=0) >= 0).all()
    assert risks[0, 10] < 0.1 and risks[3, 10] > 0.5 and (risks <= 1).all()


def test_score_aware_plays_defensive_bold_in_single_deals():
    """At 0-0 no score rule applies: score_aware's draws, discards and layout must stay defensive's defaults."""
    a = simulate(strategies=["score_aware", "greedy"], hands=3000, seed=4).hands
    b = simulate(strategies=["defensive:bold", "greedy"], hands=3000, seed=4).hands
    assert a.equals(b)
