"""The engine: RULES.md §10 through whole hands, every rule re-checked on random games, determinism."""

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hand_strategies import any_hands
from hypothesis import given, settings
from hypothesis import strategies as st
from trace_checker import check_games

from oklasim._kernels import engine_nb as E
from oklasim._kernels import layout as L
from oklasim._kernels.rng_nb import stream_state_nb
from oklasim.game import melds, reference
from oklasim.game.cards import parse_card, parse_cards, parse_hand
from oklasim.game.rules import PRESETS, Rules
from oklasim.sim import engine
from oklasim.sim.engine import IllegalDecision, play_situation, simulate
from oklasim.sim.situation import Situation

TEST_STRATEGIES = [str(Path(__file__).parent / "strategies")]


def knock_hand(knocker, defender, upcard, draw, answers, rules=None):
    """Seat 0 holds ``knocker`` (10 cards), draws ``draw`` from the stock and follows ``answers``.

    With ``answers=None`` both seats play ``eager``, which knocks whenever the rules let it.
    """
    rules = rules or Rules()
    up = parse_card(upcard)
    hands = [parse_hand(knocker, 10), parse_hand(defender, 10)]
    top = parse_card(draw)
    used = hands[0] | hands[1] | (1 << up) | (1 << top)
    stock = (top,) + tuple(c for c in range(52) if not used >> c & 1)
    situation = Situation(hands=tuple(hands), upcard=up, pile=(up,), stock=stock, turn=0, phase="draw")
    if answers is None:
        return play_situation(rules, ["eager"], situation, extra_paths=TEST_STRATEGIES)
    script = "script(" + ", ".join(f"a{i}={a}" for i, a in enumerate(answers)) + ")"
    return play_situation(rules, [script, "script"], situation, extra_paths=TEST_STRATEGIES)


def first_move(result):
    """The event of seat 0's first turn after its draw."""
    return [row[3] for row in result.trace.tolist() if row[3] != E.EV_DRAW_STOCK][0]


def knock_with(card):
    return [0, parse_card(card)]  # draw from the stock, then knock discarding ``card``


def test_example_1_knock():
    r = knock_hand("2h 3h 4h 7s 7d 7h Jc Qc Kc 5d", "4c 5c 6c Qs Qd Qh As 2s 8d 9h", "9c", "Ks", knock_with("Ks"))
    assert r.record["outcome"] == L.OUT_KNOCK and r.record["winner"] == 0
    assert r.record["seat_points"][:2] == [15, 0] and r.record["laid_off"] == 0
    assert r.record["knock_limit"] == 9


def test_example_2_knock_limit_from_upcard():
    knocker, defender = "2h 3h 4h 7s 7d 7h Jc Qc Kc 6d", "4c 5c 6c Qs Qd Qh As 2s 8d 9h"
    assert first_move(knock_hand(knocker, defender, "5h", "Ks", None)) == E.EV_DISCARD  # 6 > 5: no knock
    r = knock_hand(knocker, defender, "6h", "Ks", None)
    assert first_move(r) == E.EV_KNOCK
    assert r.record["outcome"] == L.OUT_KNOCK and r.record["seat_points"][0] == 14


@pytest.mark.parametrize("undercut_bonus, points", [(10, 12), (25, 27)])
def test_example_3_undercut_after_chain_layoff(undercut_bonus, points):
    r = knock_hand(
        "3d 4d 5d 8s 8c 8h Js Qs Ks 6c", "2d 6d 7d 8d Ts 9s Ac Ah As 4c", "Td", "Kh", knock_with("Kh"),
        Rules(undercut_bonus=undercut_bonus),
    )
    assert r.record["outcome"] == L.OUT_UNDERCUT and r.record["winner"] == 1
    assert r.record["seat_points"][:2] == [0, points] and r.record["defender_deadwood"] == 4


@pytest.mark.parametrize("preset, outcome, points", [("seeds", L.OUT_UNDERCUT, [0, 10]), ("openspiel", L.OUT_TIE, [0, 0])])
def test_example_4_tie(preset, outcome, points):
    r = knock_hand(
        "Ac 2c 3c 4h 5h 6h Td Jd Qd 5s", "9s 9c 9h 9d Ks Kc Kh Kd 2d 3s", "7h", "Qh", knock_with("Qh"), Rules.preset(preset)
    )
    assert r.record["outcome"] == outcome and r.record["seat_points"][:2] == points


def test_example_5_gin_without_layoffs():
    r = knock_hand("As 2s 3s 4s 7d 7c 7h 9h Th Jh", "2d 3d 4d 5s 7s 8h Qh Kd Ks 6h", "6c", "Kh", knock_with("Kh"))
    assert r.record["outcome"] == L.OUT_GIN and r.record["seat_points"][:2] == [81, 0] and r.record["laid_off"] == 0


def test_example_6_ace_upcard_is_gin_only():
    knocker, defender = "2h 3h 4h 7s 7d 7h Jc Qc Kc As", "4c 5c 6c Qs Qd Qh 3s 2s 8d 9h"
    r = knock_hand(knocker, defender, "Ad", "Kh", None)
    assert r.record["knock_limit"] == 0 and first_move(r) == E.EV_DISCARD
    r = knock_hand(knocker, defender, "Ad", "Kh", None, Rules(ace_upcard="one"))
    assert first_move(r) == E.EV_KNOCK and r.record["seat_points"][0] == 22 - 1


def test_example_7_layoffs_on_both_ends_and_a_set():
    r = knock_hand("5h 6h 7h Ks Kd Kc 9s 9d 9c 3d", "3h 4h 8h 9h Kh Qc Jd 2s As Ts", "4c", "Qs", knock_with("Qs"))
    assert r.record["seat_points"][:2] == [30, 0] and r.record["laid_off"] == 5


@pytest.mark.parametrize("lay, outcome, points", [("sets", L.OUT_KNOCK, [2, 0]), ("runs", L.OUT_UNDERCUT, [0, 11])])
def test_example_8_the_knocker_chooses_its_arrangement(lay, outcome, points):
    knocker = "5s 5c 5d 6s 6c 6d 7s 7c 7d As"
    arrangements = melds.optimal_arrangements(parse_hand(knocker))
    sets = tuple(sorted(parse_hand(m) for m in ("5s 5c 5d", "6s 6c 6d", "7s 7c 7d")))
    index = arrangements.index(sets) if lay == "sets" else 1 - arrangements.index(sets)
    r = knock_hand(knocker, "3s 4s 4c 4d 5h 6h 7h 8s 8c 8d", "2h", "Kh", knock_with("Kh") + [index])
    assert r.record["outcome"] == outcome and r.record["seat_points"][:2] == points


def test_example_9_spade_doubles():
    args = ("4d 5d 6d Jc Js Jh 2c 3c 4c Ah", "Qs Qd Qc 6h 7h 8h 9h 9d Td As", "8s", "Kh", knock_with("Kh"))
    assert knock_hand(*args).record["seat_points"][0] == 19
    doubled = knock_hand(*args, Rules(spade_double=True)).record
    assert doubled["seat_points"][0] == 38 and doubled["multiplier"] == 2


@pytest.mark.parametrize("big_gin, answer, outcome, points", [(True, L.BIG_GIN, L.OUT_BIG_GIN, 62), (False, "3c", L.OUT_GIN, 56)])
def test_example_10_big_gin(big_gin, answer, outcome, points):
    knock = L.BIG_GIN if answer == L.BIG_GIN else parse_card(answer)
    r = knock_hand(
        "3c 4c 5c 6c 8s 8d 8h Js Jc Jd", "2s 4s 9s Ts Ks Ac 2c Kd 3h Kh", "9d", "Jh", [0, knock], Rules(big_gin=big_gin)
    )
    assert r.record["outcome"] == outcome and r.record["seat_points"][:2] == [points, 0]


def test_first_turn_offer_order_and_forced_stock_draw():
    rules = Rules()
    result = simulate(rules, ["greedy", "simple"], hands=400, seed=11)
    trace_lines = engine.run_kernel(engine.kernel_rules(rules, True), engine.resolve_all(["greedy", "simple"], 2), 11, 0, 50, 20000)[2]
    for game in range(50):
        rows = trace_lines[trace_lines[:, 0] == game]
        dealer = rows[rows[:, 3] == E.EV_UPCARD][0, 2]
        actions = [(seat, ev) for _, _, seat, ev, _, _ in rows.tolist() if ev not in (E.EV_DEAL, E.EV_UPCARD)]
        first_seat, first_event = actions[0]
        assert first_seat == 1 - dealer  # the non-dealer is offered the upcard first
        if first_event == E.EV_PASS:
            second_seat, second_event = actions[1]
            assert second_seat == dealer
            if second_event == E.EV_PASS:
                assert actions[2] == (1 - dealer, E.EV_DRAW_STOCK)  # then the non-dealer must draw from the stock
    takers = result.hands["first_taker"].to_numpy()
    assert set(np.unique(takers)) <= {-1, 0, 1} and (takers >= 0).any() and (takers < 0).any()


def random_rules():
    yield from (Rules.preset(name) for name in PRESETS)
    yield Rules(big_gin=True, ace_upcard="one", dealer_rule="alternate", tie_rule="knocker_zero")
    yield Rules(oklahoma=False, discard_taken_card=True, wall_rule="fiftieth_card")


@pytest.mark.parametrize("rules", list(random_rules()), ids=lambda r: f"{r.tie_rule}-{r.wall_rule}-{r.single_hand}")
@pytest.mark.parametrize("pairing", [("simple", "greedy"), ("random", "simple")])
def test_every_rule_holds_on_random_games(rules, pairing):
    seats = engine.resolve_all(list(pairing), rules.players)
    hand_records, game_records, trace = engine.run_kernel(
        engine.kernel_rules(rules, False), seats, 3, 0, 25, trace_capacity=400_000
    )
    assert len(trace) < 400_000
    assert check_games(rules, trace, hand_records, game_records) == len(hand_records)


def test_same_seed_same_games_whatever_the_batches(monkeypatch):
    whole = simulate(strategies=["random", "simple"], games=60, seed=9)
    monkeypatch.setattr(engine, "GAMES_PER_CALL", 7)  # many kernel calls, buffers refilled
    parts = [simulate(strategies=["random", "simple"], games=20, seed=9, first_game=g) for g in (0, 20, 40)]
    assert whole.hands.equals(pl.concat([p.hands for p in parts]))
    assert whole.games.equals(pl.concat([p.games for p in parts]))
    other = simulate(strategies=["random", "simple"], games=60, seed=10)
    assert not whole.hands.equals(other.hands)


def test_games_end_at_the_target_and_bonuses_add_up():
    rules = Rules.preset("north_american")
    result = simulate(rules, ["simple", "greedy"], games=300, seed=4)
    g = result.games
    assert g.select((pl.max_horizontal("score_0", "score_1") >= 100).all()).item()
    winner_total = pl.when(pl.col("winner") == 0).then(pl.col("total_0")).otherwise(pl.col("total_1"))
    winner_score = pl.when(pl.col("winner") == 0).then(pl.col("score_0")).otherwise(pl.col("score_1"))
    winner_boxes = pl.when(pl.col("winner") == 0).then(pl.col("hands_won_0")).otherwise(pl.col("hands_won_1"))
    loser_score = pl.when(pl.col("winner") == 0).then(pl.col("score_1")).otherwise(pl.col("score_0"))
    expected = winner_score + 25 * winner_boxes + pl.when(loser_score == 0).then(200).otherwise(100)
    assert g.select((winner_total == expected).all()).item()
    per_game = result.hands.group_by("game").agg(pl.len().alias("n"), (pl.col("winner") >= 0).sum().alias("won"))
    joined = g.join(per_game, on="game")
    assert (joined["n"] == joined["hands"]).all()
    assert (joined["won"] == joined["hands_won_0"] + joined["hands_won_1"]).all()


def test_loser_deals_next():
    rules = Rules(dealer_rule="loser")
    hands = simulate(rules, ["simple", "greedy"], games=40, seed=2).hands
    rows = hands.select("game", "dealer", "winner").rows()
    for (g1, dealer, winner), (g2, next_dealer, _) in zip(rows, rows[1:]):
        if g1 == g2:
            assert next_dealer == (dealer if winner < 0 else 1 - winner)


def test_void_hands_score_nothing_and_stop_at_the_wall():
    hands = simulate(strategies=["random(knock_probability=0)"], hands=300, seed=1).hands
    void = hands.filter(pl.col("outcome") == "void")
    assert void.height > 0 and (void["points"] == 0).all() and (void["stock_left"] == 2).all()
    assert (void["winner"] == -1).all()


def test_draw_guard_ends_endless_hands():
    hands = simulate(Rules(max_draws=6), ["random(knock_probability=0)"], hands=50, seed=1).hands
    assert (hands["outcome"] == "guard").all() and (hands["draws"] == 6).all()


def test_hand_records_carry_the_promised_columns():
    hands = simulate(strategies=["simple"], hands=50, seed=3).hands
    for column in ("game", "hand", "dealer", "upcard", "knock_limit", "spade_double", "outcome", "knocker",
                   "knocker_deadwood", "defender_deadwood", "laid_off", "points", "winner", "draws", "stock_left",
                   "first_taker"):
        assert column in hands.columns
    assert set(hands["upcard"].to_list()) <= {c for c in "As 2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks".split()} | set(
        engine.CARD_NAMES
    )


@pytest.mark.parametrize("foul, message", [(0, "answered As to 'discard'"), (1, "answered 7 to 'take the upcard'"),
                                           (2, "may not discard")])
def test_illegal_decisions_are_caught_and_named(foul, message):
    with pytest.raises(IllegalDecision, match=rf"strategy 'cheat\(foul={foul}\)' \(seat 0\).*{message}") as info:
        simulate(strategies=[f"cheat(foul={foul})", "simple"], games=3, extra_paths=TEST_STRATEGIES)
    assert "game 0" in str(info.value)


def test_bad_simulate_arguments():
    with pytest.raises(ValueError, match="exactly one of"):
        simulate(hands=3, games=3)
    with pytest.raises(ValueError, match="2 players need 2 strategies"):
        simulate(strategies=["simple", "simple", "simple"], hands=3)
    with pytest.raises(ValueError, match="unknown strategy 'nosuch'"):
        simulate(strategies=["nosuch"], hands=3)


def test_situation_must_account_for_every_card():
    good = Situation(hands=(parse_hand("As 2s 3s 4s 5s 6s 7s 8s 9s Ts"), parse_hand("Ac 2c 3c 4c 5c 6c 7c 8c 9c Tc")),
                     upcard=parse_card("Kd"), pile=(parse_card("Kd"),), stock=None, turn=0)
    good.check(Rules())
    with pytest.raises(ValueError, match="appear twice"):
        Situation(hands=good.hands, upcard=parse_card("As"), pile=(parse_card("As"),), stock=None, turn=0).check(Rules())
    with pytest.raises(ValueError, match="holds 9 cards"):
        Situation(hands=(good.hands[0] & ~1, good.hands[1]), upcard=good.upcard, pile=good.pile, stock=None,
                  turn=0).check(Rules())
    with pytest.raises(ValueError, match="missing from every place"):
        Situation(hands=good.hands, upcard=good.upcard, pile=good.pile, stock=tuple(parse_cards("Qd Jd")),
                  turn=0).check(Rules())


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_deal_leaves_the_rules_first_stock(players):
    rules = Rules(players=players)
    board = E.new_board()
    E.load_rules_nb(board, rules.to_array())
    E.deal_nb(board, 0, 0, np.zeros(L.MAX_SEATS, dtype=np.int64), stream_state_nb(players, 0))
    assert board[0, L.V_STOCK_LEFT] == rules.first_stock == 52 - players * rules.hand_size - 1


def test_hand_record_fields_fill_their_slots_once():
    """Each H_* field has its own slot (the per-seat ones MAX_SEATS wide), and N_HAND_FIELDS counts them."""
    slots = []
    for name in dir(L):
        if name.startswith("H_"):
            width = L.MAX_SEATS if name in ("H_SEAT_POINTS", "H_SEAT_DEADWOOD") else 1
            slots += range(getattr(L, name), getattr(L, name) + width)
    assert sorted(slots) == list(range(L.N_HAND_FIELDS))


@settings(deadline=None, max_examples=300)  # the first example compiles the kernels
@given(any_hands(11, 11), st.integers(0, 10), st.integers(-1, 51))
def test_the_knock_discards_are_every_discard_leaving_at_most_the_limit(hand, limit, forbidden):
    """The one-pass kernel against a reference deadwood for each discard (NO_CARD = nothing forbidden)."""
    expected = sum(
        1 << card
        for card in range(52)
        if hand >> card & 1 and card != forbidden and reference.deadwood(hand & ~(1 << card)) <= limit
    )
    assert E.knock_discards_nb(np.int64(hand), limit, forbidden) == expected
