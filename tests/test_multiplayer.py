"""Three and four players (RULES.md §8, seeds/RULES.md section H): scripted deals scored by hand,
every rule re-checked on random games, determinism, and what each seat is shown."""

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from trace_checker import check_games

from oklasim._kernels import engine_nb as E
from oklasim._kernels import layout as L
from oklasim.game.cards import mask_of, parse_card, parse_cards, parse_hand
from oklasim.game.rules import PRESETS, Rules
from oklasim.sim import engine
from oklasim.sim.engine import play_situation, simulate
from oklasim.sim.situation import Situation, board_for

TEST_STRATEGIES = [str(Path(__file__).parent / "strategies")]


def cards(text):
    return mask_of(parse_cards(text))


def answer(a):
    return parse_card(a) if isinstance(a, str) else a


def play(rules, hands, upcard, answers, stock_top="", pile=None, watch=None, **fields):
    """Play a scripted hand: ``hands`` by seat, seat ``s`` answers ``answers[s]`` in order.

    Cards may be named ("Qh" = discard or knock with it); the stock starts with
    ``stock_top`` and goes on with the other cards in index order. With ``watch``
    every seat is a ``spy`` logging that view slot at each of its decisions.
    """
    hands = tuple(parse_hand(h, rules.hand_size) for h in hands)
    up = parse_card(upcard)
    pile = tuple(parse_cards(pile) if isinstance(pile, str) else pile) if pile else (up,)
    top = tuple(parse_cards(stock_top))
    used = mask_of(pile) | mask_of(top) | (1 << up) | mask_of(c for h in hands for c in range(52) if h >> c & 1)
    stock = top + tuple(c for c in range(52) if not used >> c & 1)
    situation = Situation(hands=hands, upcard=up, pile=pile, stock=stock, **fields)
    seats = []
    for seat_answers in answers:
        settings = [f"a{i}={answer(a)}" for i, a in enumerate(seat_answers)]
        if watch is not None:
            settings.append(f"watch={watch}")
        seats.append(f"{'script' if watch is None else 'spy'}({', '.join(settings)})")
    return play_situation(rules, seats, situation, extra_paths=TEST_STRATEGIES)


def events(result, kinds=None):
    """(seat, event, a) of the trace, without the deal."""
    return [(s, ev, a) for _, _, s, ev, a, _ in result.trace.tolist() if kinds is None or ev in kinds]


ACTIONS = (E.EV_PASS, E.EV_TAKE_UPCARD, E.EV_DRAW_STOCK, E.EV_DRAW_PILE, E.EV_DISCARD, E.EV_KNOCK)

# The knocking hand of the scripted deals: runs 5h-7h and 9s 9c 9d, deadwood 3c = 3.
KNOCKER = "5h 6h 7h 9s 9c 9d 3c"


# -- the showdown: every opponent lays off, the knocker settles with each separately ----------------


@pytest.mark.parametrize(
    "dealer_hand, dealer_deadwood, knocker_points, winner",
    [
        ("9h Ks Kc Kh Js Tc 4c", 24, 21, 0),  # the knocker collects 21 > 11: it wins the hand
        ("9h Ks Kc Kh Js 2d 2h", 14, 11, 0),  # 11 = 11: a tie for the hand goes to the knocker
        ("9h Ks Kc Kh 4c 4s 2d", 10, 7, 1),  # 7 < 11: the undercutter wins the hand
    ],
)
def test_three_players_one_undercuts_the_other_pays(dealer_hand, dealer_deadwood, knocker_points, winner):
    # Seat 0 (left of dealer 2) draws Qh and knocks on 3 (upcard 5d: limit 5). Seat 1 lays off
    # 4h, 3h (a chain) and 8h on the heart run, keeps Ad As Ac, is left with 2s = 2: it undercuts,
    # 3 - 2 + 10 = 11. Seat 2 lays off 9h on the nines and pays the knocker its deadwood - 3.
    r = play(Rules(players=3), [KNOCKER, "3h 4h 8h Ad As Ac 2s", dealer_hand], "5d", [[0, "Qh"], [], []],
             stock_top="Qh", turn=0, dealer=2)
    rec = r.record
    assert rec["seat_points"] == [knocker_points, 11, 0, 0]
    assert rec["outcome"] == L.OUT_UNDERCUT  # someone undercut the knocker, whoever won the hand
    assert rec["winner"] == winner and rec["points"] == max(knocker_points, 11)
    assert rec["knocker"] == 0 and rec["knocker_deadwood"] == 3 and rec["knock_limit"] == 5
    assert rec["seat_deadwood"][:3] == [3, 2, dealer_deadwood]
    assert rec["defender_deadwood"] == 2 and rec["laid_off"] == 4
    layoffs = [(s, a) for s, ev, a in events(r, [E.EV_LAYOFF])]
    assert layoffs == [(1, cards("3h 4h 8h")), (2, cards("9h"))]  # round the table from the knocker
    assert events(r, [E.EV_SCORE]) == [(winner, E.EV_SCORE, max(knocker_points, 11))]


def test_four_players_two_undercutters_tie_round_the_table_from_the_knocker():
    # Dealer 1; seat 2 knocks on 3. Seat 3 lays off 3h 4h 8h and holds four aces: 0, +13.
    # Seat 0 has nothing to lay off, 10 left: knocker +7. Seat 1 lays off 9h, two sets: 0, +13.
    # 13 = 13: the first round the table from the knocker (seat 3) wins the hand, not seat 1.
    hands = ["Ks Kc Kh 8c 8s 8d Tc", "9h Qs Qc Qd 2c 2d 2h", KNOCKER, "3h 4h 8h Ad As Ac Ah"]
    r = play(Rules(players=4), hands, "5d", [[], [], [0, "Qh"], []], stock_top="Qh", turn=2, dealer=1)
    rec = r.record
    assert rec["seat_points"] == [0, 13, 7, 13] and rec["winner"] == 3 and rec["points"] == 13
    assert rec["outcome"] == L.OUT_UNDERCUT and rec["knocker"] == 2
    assert rec["seat_deadwood"] == [10, 0, 3, 0] and rec["defender_deadwood"] == 0 and rec["laid_off"] == 4
    assert [s for s, _, _ in events(r, [E.EV_LAYOFF])] == [3, 0, 1]
    # Who deals next, by each dealer rule (the loser: lowest score from the hand, round from the winner).
    for dealer_rule, expected in (("winner", 3), ("alternate", 2), ("loser", 0)):
        board = E.new_board()
        E.load_rules_nb(board, Rules(players=4, dealer_rule=dealer_rule).to_array())
        assert E.next_dealer_nb(board, r.board[L.HIDDEN, L.S_RECORD : L.S_RECORD + L.N_HAND_FIELDS], 1) == expected


@pytest.mark.parametrize(
    "tie_rule, outcome, points, winner",
    [
        ("undercut", L.OUT_UNDERCUT, [0, 10, 10], 1),  # both undercut by 0 + 10; seat 1 is first from the knocker
        ("no_score", L.OUT_TIE, [0, 0, 0], -1),  # nobody wins: the same dealer deals again
        ("knocker_zero", L.OUT_KNOCK, [0, 0, 0], 0),  # the knocker wins the hand with 0
    ],
)
def test_three_players_tie_with_both_opponents(tie_rule, outcome, points, winner):
    # Knocker on 3; seat 1 lays off 3h 4h 8h and keeps 3s; seat 2 lays off 9h, keeps Ah 2d: all on 3.
    hands = [KNOCKER, "3h 4h 8h Ad As Ac 3s", "9h Ks Kc Kh Kd Ah 2d"]
    r = play(Rules(players=3, tie_rule=tie_rule), hands, "5d", [[0, "Qh"], [], []], stock_top="Qh", turn=0, dealer=2)
    assert r.record["outcome"] == outcome and r.record["seat_points"][:3] == points
    assert r.record["winner"] == winner and r.record["seat_deadwood"][:3] == [3, 3, 3]


def test_three_players_one_tie_one_loser_under_no_score():
    # Seat 1 ties (nothing for either), seat 2 pays 24 - 3: the knocker's result is the hand's.
    hands = [KNOCKER, "3h 4h 8h Ad As Ac 3s", "9h Ks Kc Kh Js Tc 4c"]
    r = play(Rules(players=3, tie_rule="no_score"), hands, "5d", [[0, "Qh"], [], []], stock_top="Qh", turn=0, dealer=2)
    assert r.record["outcome"] == L.OUT_KNOCK and r.record["seat_points"][:3] == [21, 0, 0] and r.record["winner"] == 0


GIN_HANDS = ["Qs Qc Qd Qh Tc Td 8h", "4s 5s 6s 7s Jd Jc Jh", "3s 8s Js 2c 2d 2h Kc", "As 2s 3c 4c 5c 9h 9d"]


@pytest.mark.parametrize(
    "players, rules, points",
    [
        (3, Rules(players=3), (25 + 28) + (25 + 31)),
        (4, Rules(players=4), (25 + 28) + (25 + 31) + (25 + 21)),
        (4, Rules(players=4, gin_bonus=20, spade_double=True), 2 * ((20 + 28) + (20 + 31) + (20 + 21))),
    ],
)
def test_gin_against_every_opponent_no_layoffs(players, rules, points):
    # Seat 1 draws 9c and goes gin (4s-7s, three jacks). Seat 2 could lay off 3s, 8s and Js,
    # seat 3 could not; on gin nobody lays off, and each opponent pays the gin bonus + its deadwood.
    r = play(rules, GIN_HANDS[:players], "Ks", [[], [0, "9c"]] + [[]] * (players - 2), stock_top="9c", turn=1,
             dealer=0)
    rec = r.record
    assert rec["outcome"] == L.OUT_GIN and rec["knocker"] == 1 and rec["knocker_deadwood"] == 0
    assert rec["seat_points"][:players] == [0, points] + [0] * (players - 2)
    assert rec["laid_off"] == 0 and rec["seat_deadwood"][:players] == [28, 0, 31, 21][:players]
    assert rec["defender_deadwood"] == min([28, 31, 21][: players - 1])
    assert rec["winner"] == 1 and rec["multiplier"] == (2 if rules.spade_double else 1)


# -- the first turn: the upcard goes round from the dealer's left ------------------------------------

# Hands that cannot knock, with upcard 5d (limit 5), whatever they draw or take here.
JUNK = ["Ks Kc 8c 8s 2d Tc Jh", "Qs Qc 7d 4s 2h Td Js", "Ad 6c 4d 3s Th Jc Kd"]


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_all_pass_then_the_dealers_left_draws_from_the_stock(players, dealer):
    left = (dealer + 1) % players
    hands = list(JUNK[: players - 1])
    hands.insert(left, KNOCKER)
    answers = [[0] for _ in range(players)]
    answers[left] = [0, "Qh"]  # pass; then (no question: the draw is forced) knock with the drawn Qh
    r = play(Rules(players=players), hands, "5d", answers, stock_top="Qh", turn=left, dealer=dealer, phase="offer")
    passes = [(left + k) % players for k in range(players)]
    assert events(r, ACTIONS) == [(s, E.EV_PASS, 0) for s in passes] + [
        (left, E.EV_DRAW_STOCK, parse_card("Qh")), (left, E.EV_KNOCK, parse_card("Qh"))
    ]
    assert r.record["first_taker"] == -1 and r.record["draws"] == 1 and r.record["knocker"] == left
    assert r.record["stock_left"] == 52 - 7 * players - 2


@pytest.mark.parametrize("players, dealer, taker", [(4, 1, 0), (3, 2, 2), (3, 0, 1), (4, 3, 2)])
def test_a_taken_upcard_and_play_goes_on_to_the_takers_left(players, dealer, taker):
    # The offers run from the dealer's left to the taker; the taker discards, then its left-hand
    # neighbour plays (it draws Qh from the stock and knocks).
    left, nxt = (dealer + 1) % players, (taker + 1) % players
    hands = list(JUNK[: players - 1])
    hands.insert(nxt, KNOCKER)
    passers = [(left + k) % players for k in range((taker - left) % players)]
    answers = [[0] for _ in range(players)]
    answers[taker] = [1, hands[taker].split()[0]]  # take the upcard, discard the first card listed
    answers[nxt] = ([0] if nxt in passers else []) + [0, "Qh"]
    r = play(Rules(players=players), hands, "5d", answers, stock_top="Qh", turn=left, dealer=dealer, phase="offer")
    first_card = parse_card(hands[taker].split()[0])
    assert events(r, ACTIONS) == [(s, E.EV_PASS, 0) for s in passers] + [
        (taker, E.EV_TAKE_UPCARD, parse_card("5d")), (taker, E.EV_DISCARD, first_card),
        (nxt, E.EV_DRAW_STOCK, parse_card("Qh")), (nxt, E.EV_KNOCK, parse_card("Qh")),
    ]
    assert r.record["first_taker"] == taker and r.record["draws"] == 2
    for seat in range(players):  # every view knows exactly who passed and who took the upcard
        assert [r.board[seat, L.V_PASSED + s] for s in range(players)] == [int(s in passers) for s in range(players)]
        assert r.board[seat, L.V_TAKEN + taker] == 1 << parse_card("5d")


def test_situations_check_the_offer_order():
    hands = [KNOCKER] + JUNK[:2]
    with pytest.raises(ValueError, match="offered round the table from the dealer's left"):
        play(Rules(players=3), hands, "5d", [[0]] * 3, turn=2, dealer=0, phase="offer", offers=0)
    with pytest.raises(ValueError, match="dealer's left draws from the stock"):
        play(Rules(players=3), hands, "5d", [[0]] * 3, turn=0, dealer=0, phase="forced_stock")


@pytest.mark.parametrize("phase, offers, first_taker, passed", [
    ("offer", 2, -1, {2, 3}), ("draw", 0, 0, {2, 3}), ("draw", 0, 2, set()), ("forced_stock", 0, -1, {0, 1, 2, 3}),
])
def test_a_situation_shows_who_passed(phase, offers, first_taker, passed):
    hands = tuple(parse_hand(h) for h in JUNK + ["5h 6h 7h 9s 9c 9d 3c"])
    up = parse_card("5d")
    turn = {"offer": 0, "draw": 3, "forced_stock": 2}[phase]
    situation = Situation(hands=hands, upcard=up, pile=(up,), stock=None, turn=turn, phase=phase, dealer=1,
                          offers=offers, first_taker=first_taker)
    board = board_for(Rules(players=4), situation)
    for seat in range(4):
        assert {s for s in range(4) if board[seat, L.V_PASSED + s]} == passed


# -- the wall: still 2 stock cards ---------------------------------------------------------------------


WALL_HANDS = ["Ks Kc 8c 8s 2d Tc Jh", "5h 6h 9s 9c 9d 3c Kd", "Qs Qc 7d 4s 2h Td Js", "Ad 6c 4d 3s Th Jc Qd"]


def wall_play(players, wall_rule, stock, turn, answers):
    """Upcard 5d; the pile holds every card not in a hand or the (short) stock."""
    hands = WALL_HANDS[:players]
    used = cards(" ".join(hands)) | cards(stock) | cards("5d")
    pile = [parse_card("5d")] + [c for c in range(52) if not used >> c & 1]
    rules = Rules(players=players, wall_rule=wall_rule)
    seat_answers = [answers.get(seat, []) for seat in range(players)]
    return play(rules, hands, "5d", seat_answers, stock_top=stock, pile=pile, turn=turn, dealer=(turn - 1) % players)


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("wall_rule", ["void", "fiftieth_card"])
def test_the_wall_is_two_stock_cards(players, wall_rule):
    # A stock of four: the last seat draws Qh and throws it (3 left), seat 0 draws 7h and throws it
    # (2 left): the wall. Seat 1 could knock with 7h (5h 6h 7h, the nines, 3c: 3 <= 5): under
    # fiftieth_card it takes 7h to knock; by default the hand is void.
    last = players - 1
    r = wall_play(players, wall_rule, "Qh 7h 8h 7c", last, {last: [0, "Qh"], 0: [0, "7h"], 1: ["Kd"]})
    acts = events(r, ACTIONS)
    qh, h7 = parse_card("Qh"), parse_card("7h")
    assert acts[:4] == [(last, E.EV_DRAW_STOCK, qh), (last, E.EV_DISCARD, qh), (0, E.EV_DRAW_STOCK, h7),
                        (0, E.EV_DISCARD, h7)]
    assert r.record["stock_left"] == 2 and r.record["draws"] == (2 if wall_rule == "void" else 3)
    if wall_rule == "void":
        assert acts[4:] == [] and r.record["outcome"] == L.OUT_VOID and r.record["winner"] == -1
        assert r.record["seat_points"] == [0, 0, 0, 0]
    else:
        assert acts[4:] == [(1, E.EV_DRAW_PILE, h7), (1, E.EV_KNOCK, parse_card("Kd"))]
        assert r.record["knocker"] == 1 and r.record["knocker_deadwood"] == 3


@pytest.mark.parametrize("players", [3, 4])
def test_a_knock_on_the_third_last_card_still_counts(players):
    r = wall_play(players, "void", "7h 8h 7c", 1, {1: [0, "Kd"]})  # seat 1 draws 7h (2 left) and knocks
    assert events(r, ACTIONS) == [(1, E.EV_DRAW_STOCK, parse_card("7h")), (1, E.EV_KNOCK, parse_card("Kd"))]
    assert r.record["knocker"] == 1 and r.record["stock_left"] == 2 and r.record["outcome"] != L.OUT_VOID


# -- what each seat sees ----------------------------------------------------------------------------------

# Four players, dealer 3, upcard Ad (gin only). Seats 0 and 1 pass, seat 2 takes Ad and throws Ks;
# seat 3 takes Ks and throws Kc; seat 0 draws Qc and throws it; seat 1 draws 5s and goes gin throwing Kh.
SPY_HANDS = ["3c 6d 9h Jc 4h 7d Th", "2s 3s 4s 8c 8d 8h Kh", "Ks 5c 9d 2h 6c Td Jh", "Kc 7c 2d 6h Jd 3h 9c"]
SPY_ANSWERS = [[0, 0, "Qc"], [0, 0, "Kh"], [1, "Ks"], [1, "Kc"]]
AD, KS, KC, QC = (1 << parse_card(c) for c in ("Ad", "Ks", "Kc", "Qc"))
# view slot -> what each seat saw at each of its decisions (seat 0: offer, draw, discard;
# seat 1: offer, draw, knock; seat 2: offer, discard; seat 3: draw, discard).
SEEN = {
    L.V_PASSED + 0: [[0, 1, 1], [1, 1, 1], [1, 1], [1, 1]],
    L.V_PASSED + 1: [[0, 1, 1], [0, 1, 1], [1, 1], [1, 1]],
    L.V_PASSED + 2: [[0, 0, 0], [0, 0, 0], [0, 0], [0, 0]],
    L.V_PASSED + 3: [[0, 0, 0], [0, 0, 0], [0, 0], [0, 0]],
    L.V_TAKEN + 0: [[0, 0, 0], [0, 0, 0], [0, 0], [0, 0]],
    L.V_TAKEN + 2: [[0, AD, AD], [0, AD, AD], [0, AD], [AD, AD]],
    L.V_TAKEN + 3: [[0, KS, KS], [0, KS, KS], [0, 0], [0, KS]],
    L.V_DISCARDED + 0: [[0, 0, 0], [0, QC, QC], [0, 0], [0, 0]],
    L.V_DISCARDED + 2: [[0, KS, KS], [0, KS, KS], [0, 0], [KS, KS]],
    L.V_DISCARDED + 3: [[0, KC, KC], [0, KC, KC], [0, 0], [0, 0]],
    L.V_PILE_MASK: [[AD, KC, KC], [AD, KC | QC, KC | QC], [AD, 0], [KS, 0]],
    L.V_SCORES + 3: [[40, 40, 40], [40, 40, 40], [40, 40], [40, 40]],
    L.V_STOCK_LEFT: [[23, 23, 22], [23, 22, 21], [23, 23], [23, 23]],
}


@pytest.mark.parametrize("slot", list(SEEN), ids=lambda s: str(s))
def test_every_seat_sees_each_opponents_passes_pickups_and_discards(slot):
    r = play(Rules(players=4), SPY_HANDS, "Ad", SPY_ANSWERS, stock_top="Qc 5s", watch=slot, turn=0, dealer=3,
             phase="offer", scores=(10, 20, 30, 40))
    assert r.record["outcome"] == L.OUT_GIN and r.record["knocker"] == 1
    seen = [r.board[s, L.V_MEMORY + 1 : L.V_MEMORY + 1 + len(SEEN[slot][s])].tolist() for s in range(4)]
    assert [r.board[s, L.V_MEMORY] for s in range(4)] == [3, 3, 2, 2]  # decisions each seat was asked
    assert seen == SEEN[slot]


def test_the_spy_refuses_an_inconsistent_view():
    from oklasim.strategies.registry import resolve

    spy = resolve("spy(check=1)", extra_paths=TEST_STRATEGIES)
    view = np.zeros(L.V_SIZE, dtype=np.int64)
    view[L.V_PLAYERS], view[L.V_DEALER], view[L.V_SEAT] = 3, 0, 1
    view[L.V_UPCARD] = view[L.V_PILE] = 20
    view[L.V_PILE_SIZE], view[L.V_PILE_MASK] = 1, 1 << 20
    assert spy.decide(L.D_TAKE_UPCARD, view.copy(), spy.vector()) in (0, 1)
    view[L.V_PASSED + 2] = 1  # seat 2 passed before seat 1, the dealer's left
    assert spy.decide(L.D_TAKE_UPCARD, view.copy(), spy.vector()) == -9


# -- random games: every rule re-checked, determinism ---------------------------------------------------


def rule_sets(players):
    for name in PRESETS:
        yield Rules.preset(name).replace(players=players)
    yield Rules(players=players, big_gin=True, ace_upcard="one", dealer_rule="alternate", tie_rule="knocker_zero")
    yield Rules(players=players, oklahoma=False, discard_taken_card=True, wall_rule="fiftieth_card")
    yield Rules(players=players, dealer_rule="loser", tie_rule="no_score", spade_double=True)


def test_every_preset_is_valid_with_three_and_four_players():
    for players in (3, 4):
        for name in PRESETS:
            rules = Rules.preset(name).replace(players=players)
            assert rules.players == players and rules.hand_size == 7
            assert Rules.from_dict({"preset": name, "players": players}) == rules


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("rules_index", range(7))
@pytest.mark.parametrize("seats", ["mixed", "spy"])
def test_every_rule_holds_on_random_games(players, rules_index, seats):
    rules = list(rule_sets(players))[rules_index]
    names = ["spy(check=1)"] if seats == "spy" else ["simple", "greedy", "random", "simple"][:players]
    strategies = engine.resolve_all(names, players, TEST_STRATEGIES)
    hand_records, game_records, trace = engine.run_kernel(
        engine.kernel_rules(rules, False), strategies, 5, 0, 15, trace_capacity=1_000_000
    )
    assert len(trace) < 1_000_000
    assert check_games(rules, trace, hand_records, game_records) == len(hand_records)
    assert set(hand_records[:, L.H_PLAYERS]) == {players}


@pytest.mark.parametrize("players", [3, 4])
def test_same_seed_same_games_whatever_the_batches(monkeypatch, players):
    rules = Rules(players=players)
    names = ["random", "simple", "greedy", "simple"][:players]
    whole = simulate(rules, names, games=40, seed=9)
    monkeypatch.setattr(engine, "GAMES_PER_CALL", 7)
    parts = [simulate(rules, names, games=20, seed=9, first_game=g) for g in (0, 20)]
    assert whole.hands.equals(pl.concat([p.hands for p in parts]))
    assert whole.games.equals(pl.concat([p.games for p in parts]))
    assert {f"points_{s}" for s in range(players)} <= set(whole.hands.columns)
    assert f"score_{players - 1}" in whole.games.columns and f"score_{players}" not in whole.games.columns
    assert not whole.hands.equals(simulate(rules, names, games=40, seed=10).hands)


@pytest.mark.parametrize("players", [3, 4])
def test_void_hands_stop_at_the_wall(players):
    hands = simulate(Rules(players=players), ["random(knock_probability=0)"], hands=100, seed=1).hands
    assert (hands["outcome"] == "void").all() and (hands["stock_left"] == 2).all()
    assert (hands["winner"] == -1).all() and (hands["points"] == 0).all()


# -- the end of a game ------------------------------------------------------------------------------------


def settle(players, scores, last_points, knocker, single_hand=False):
    board = E.new_board()
    E.load_rules_nb(board, Rules(players=players, single_hand=single_hand).to_array())
    record = board[L.HIDDEN, L.S_RECORD : L.S_RECORD + L.N_HAND_FIELDS]
    record[L.H_KNOCKER] = knocker
    record[L.H_SEAT_POINTS : L.H_SEAT_POINTS + players] = last_points
    game = np.zeros(L.N_GAME_FIELDS, dtype=np.int64)
    pad = np.zeros(L.MAX_SEATS, dtype=np.int64)
    pad[:players] = scores
    E.settle_game_nb(board, pad, np.zeros(L.MAX_SEATS, dtype=np.int64), game)
    return game[L.G_WINNER]


def test_a_tie_at_the_target_goes_to_the_bigger_last_hand_then_the_knocker():
    # Knocker 0 took 10 from seat 1 (95 -> 105), seat 2 undercut it for 15 (90 -> 105).
    assert settle(3, [105, 40, 105], [10, 0, 15], knocker=0) == 2
    # Four players: knocker 2 collects 13, seats 3 and 0 undercut for 13 each; all end on 105:
    # 13 = 13 = 13, so the knocker wins; without it, seat 3 (first from the knocker) before seat 0.
    assert settle(4, [105, 30, 105, 105], [13, 0, 13, 13], knocker=2) == 2
    assert settle(4, [105, 30, 90, 105], [13, 0, 3, 13], knocker=2) == 3
    assert settle(4, [105, 30, 90, 120], [13, 0, 3, 13], knocker=2) == 3  # no tie: the highest score
    assert settle(2, [0, 0], [0, 0], knocker=1, single_hand=True) == 0  # a single tied hand: as before
