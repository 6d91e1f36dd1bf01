"""Re-play an engine trace in plain Python and check every rule against oklasim.reference.

Given the trace of whole games, ``check_games`` re-plays every event: each
card is in exactly one place, draws come from where they say, discards are
held and allowed, knocks are legal, the knocker's melds are an optimal
arrangement, every layoff and score agrees with the reference, void hands
score nothing, the dealer moves by the rule, and the game ends at the target.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from oklasim import reference
from oklasim._kernels import engine_nb as E
from oklasim._kernels import layout as L
from oklasim.cards import card_value, suit_of
from oklasim.rules import Rules

BIG_GIN = L.BIG_GIN


@dataclass
class HandState:
    hands: list[int]
    pile: list[int]
    stock_left: int
    limit: int
    upcard: int
    dealer: int
    draws: int = 0
    taken_this_turn: int = -1
    knocker: int = -1
    knock_discard: int = -1
    melds: list[int] = field(default_factory=list)
    points: dict[int, int] = field(default_factory=dict)
    layoffs: dict[int, tuple[int, int]] = field(default_factory=dict)
    void: bool = False


def _knock_limit(rules: Rules, upcard: int) -> int:
    if not rules.oklahoma:
        return rules.fixed_knock_limit
    value = card_value(upcard)
    return 0 if value == 1 and rules.ace_upcard == "gin_only" else value


def _check_showdown(rules: Rules, s: HandState, score_event) -> None:
    """The knocker's melds are optimal, layoffs and the score agree with the reference."""
    knocker_hand = s.hands[s.knocker]
    k_dw = reference.deadwood(knocker_hand)
    assert k_dw <= s.limit or s.knock_discard == BIG_GIN
    arrangement = tuple(sorted(s.melds))
    assert arrangement in reference.optimal_arrangements(knocker_hand), "melds are not an optimal arrangement"
    gin = k_dw == 0
    big_gin = s.knock_discard == BIG_GIN
    assert not big_gin or (rules.big_gin and knocker_hand.bit_count() == rules.hand_size + 1 and gin)
    multiplier = 2 if rules.spade_double and suit_of(s.upcard) == 0 else 1
    totals = dict.fromkeys(range(rules.players), 0)
    outcomes = []
    for seat in range(rules.players):
        if seat == s.knocker:
            continue
        dw, laid = s.layoffs[seat]
        defender = s.hands[seat]
        if gin:
            assert laid == 0 and dw == reference.deadwood(defender)
        else:
            assert dw == reference.layoff_deadwood(arrangement, defender)[0]
            assert reference.layable(arrangement, laid) == laid and reference.deadwood(defender & ~laid) == dw
        outcome, kp, dp = reference.settle(k_dw, dw, gin, big_gin, rules)
        outcomes.append(outcome)
        totals[s.knocker] += kp * multiplier
        totals[seat] += dp * multiplier
    winner, points = score_event
    if winner < 0:
        assert set(outcomes) == {"tie"} and set(totals.values()) == {0}
    else:
        assert totals[winner] == points == max(totals.values())
    s.points = totals


def check_games(rules: Rules, trace, hand_records, game_records) -> int:
    """Check every game in the trace; returns the number of hands checked."""
    hands_by_key = {(int(r[0]), int(r[1])): r for r in hand_records.tolist()}
    games = {int(g[0]): g for g in game_records.tolist()}
    state: HandState | None = None
    deal: dict[int, int] = {}
    scores = dict.fromkeys(range(rules.players), 0)
    expected_dealer = None
    checked = 0
    current_game = None
    for game, hand, seat, event, a, b in trace.tolist():
        if game != current_game:
            current_game, scores, expected_dealer = game, dict.fromkeys(range(rules.players), 0), None
        if event == E.EV_DEAL:
            deal[seat] = a
            continue
        if event == E.EV_UPCARD:
            assert len(deal) == rules.players and all(h.bit_count() == rules.hand_size for h in deal.values())
            union = 0
            for h in deal.values():
                assert union & h == 0
                union |= h
            assert not union >> a & 1
            if expected_dealer is not None:
                assert seat == expected_dealer, "wrong dealer"
            state = HandState(
                [deal[s] for s in range(rules.players)], [a], 52 - rules.players * rules.hand_size - 1,
                _knock_limit(rules, a), a, seat,
            )
            assert b == state.limit
            deal = {}
            continue
        s = state
        assert s is not None
        if event in (E.EV_TAKE_UPCARD, E.EV_DRAW_PILE):
            assert s.pile and s.pile[-1] == a, "took a card that is not on top of the pile"
            s.pile.pop()
            s.hands[seat] |= 1 << a
            s.draws += 1
            s.taken_this_turn = a
        elif event == E.EV_DRAW_STOCK:
            assert s.stock_left > 2
            assert not any(h >> a & 1 for h in s.hands) and a not in s.pile
            s.stock_left -= 1
            s.hands[seat] |= 1 << a
            s.draws += 1
            s.taken_this_turn = -1
        elif event == E.EV_DISCARD:
            assert s.hands[seat] >> a & 1, "discarded a card not held"
            assert rules.discard_taken_card or a != s.taken_this_turn, "discarded the card just taken"
            s.hands[seat] &= ~(1 << a)
            s.pile.append(a)
        elif event == E.EV_KNOCK:
            s.knocker, s.knock_discard = seat, a
            if a != BIG_GIN:
                assert s.hands[seat] >> a & 1 and (rules.discard_taken_card or a != s.taken_this_turn)
                s.hands[seat] &= ~(1 << a)
                s.pile.append(a)
            assert b == reference.deadwood(s.hands[seat])
        elif event == E.EV_MELDS:
            s.melds.append(a)
        elif event == E.EV_LAYOFF:
            s.layoffs[seat] = (b, a)
        elif event == E.EV_PASS:
            pass
        elif event in (E.EV_SCORE, E.EV_VOID):
            record = hands_by_key[(game, hand)]
            seat_points = record[L.H_SEAT_POINTS : L.H_SEAT_POINTS + rules.players]
            if event == E.EV_VOID:
                assert seat_points == [0] * rules.players, "a void hand scored"
                if a == L.OUT_VOID:  # the wall, not the guard
                    assert s.stock_left == 2 or rules.wall_rule == "fiftieth_card"
                expected_dealer = s.dealer
            else:
                _check_showdown(rules, s, (seat, a))
                assert seat_points == [s.points[p] for p in range(rules.players)]
                winner = record[L.H_WINNER]
                if rules.dealer_rule == "winner":
                    expected_dealer = s.dealer if winner < 0 else winner
                elif rules.dealer_rule == "alternate":
                    expected_dealer = s.dealer if winner < 0 else (s.dealer + 1) % rules.players
                else:
                    expected_dealer = None  # the loser rule is checked in its own test
            held = sum(h.bit_count() for h in s.hands)
            assert held + len(s.pile) + s.stock_left == 52, "cards lost or created"
            for p in range(rules.players):
                scores[p] += seat_points[p]
            if game in games and hand == games[game][2] - 1:  # the game's last hand
                assert rules.single_hand or max(scores.values()) >= rules.target_score
            else:
                assert max(scores.values()) < rules.target_score or rules.single_hand
            checked += 1
            state = None
    return checked
