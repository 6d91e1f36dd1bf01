"""Re-play an engine trace in plain Python and check every rule against oklasim.game.reference.

Given the trace of whole games (2, 3 or 4 players), ``check_games`` re-plays
every event: each card is in exactly one place, seats act in turn (the first
upcard offered round the table from the dealer's left, the forced stock draw
by the dealer's left when all pass, then play to the left), draws come from
where they say, discards are held and allowed, knocks are legal, the
knocker's melds are an optimal arrangement, every opponent's layoffs and
every knocker-opponent settlement agree with the reference, void hands score
nothing, every field of the hand record is right, the hand's winner and the
next dealer follow the rules, and each game's record adds up and ends at the
target.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from oklasim._kernels import engine_nb as E
from oklasim._kernels import layout as L
from oklasim.game import reference
from oklasim.game.cards import card_value, suit_of
from oklasim.game.rules import Rules

BIG_GIN = L.BIG_GIN


@dataclass
class HandState:
    hands: list[int]
    pile: list[int]
    stock_left: int
    limit: int
    upcard: int
    dealer: int
    players: int
    phase: str = "offer"  # offer, forced, draw, act (drawn: discard or knock), last_chance, wall, showdown
    turn: int = -1
    offers: int = 0
    first_taker: int = -1
    draws: int = 0
    taken_this_turn: int = -1
    knocker: int = -1
    knock_discard: int = -1
    melds: list[int] = field(default_factory=list)
    points: list[int] = field(default_factory=list)
    layoffs: dict[int, tuple[int, int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.turn = (self.dealer + 1) % self.players


def _knock_limit(rules: Rules, upcard: int) -> int:
    if not rules.oklahoma:
        return rules.fixed_knock_limit
    value = card_value(upcard)
    return 0 if value == 1 and rules.ace_upcard == "gin_only" else value


def round_from(start: int, players: int) -> list[int]:
    """The seats round the table (to the left) from ``start``, ``start`` first."""
    return [(start + k) % players for k in range(players)]


def hand_winner(points: list[int], knocker: int) -> int:
    """The largest score from the hand; ties go to the knocker, then round the table from it."""
    best = knocker
    for seat in round_from(knocker, len(points)):
        if points[seat] > points[best]:
            best = seat
    return best


def next_dealer(rules: Rules, dealer: int, winner: int, points: list[int]) -> int:
    if winner < 0:
        return dealer  # a void or all-tied hand is redealt by the same dealer
    if rules.dealer_rule == "winner":
        return winner
    if rules.dealer_rule == "alternate":
        return (dealer + 1) % rules.players
    loser = None  # the lowest score from the hand, round the table from the winner
    for seat in round_from(winner, rules.players)[1:]:
        if loser is None or points[seat] < points[loser]:
            loser = seat
    return loser


def game_winner(rules: Rules, scores: list[int], last: list[int]) -> int:
    """The highest score; a tie goes to who scored more in the last hand, then its knocker, round the table.

    A single-hand game is won by the hand's winner (nobody, -1, after a void or tied hand).
    """
    if rules.single_hand:
        return last[L.H_WINNER]
    knocker = last[L.H_KNOCKER]
    first = knocker if knocker >= 0 else 0
    best = first
    for seat in round_from(first, rules.players):
        key, best_key = (scores[seat], last[L.H_SEAT_POINTS + seat]), (scores[best], last[L.H_SEAT_POINTS + best])
        if key > best_key:
            best = seat
    return best


def _check_showdown(rules: Rules, s: HandState, record: list[int], score_event) -> None:
    """The knocker's melds are optimal; each opponent's layoffs and settlement agree with the reference."""
    players = rules.players
    knocker_hand = s.hands[s.knocker]
    k_dw = reference.deadwood(knocker_hand)
    assert k_dw <= s.limit or s.knock_discard == BIG_GIN
    arrangement = tuple(sorted(s.melds))
    assert arrangement in reference.optimal_arrangements(knocker_hand), "melds are not an optimal arrangement"
    gin = k_dw == 0
    big_gin = s.knock_discard == BIG_GIN
    assert not big_gin or (rules.big_gin and knocker_hand.bit_count() == rules.hand_size + 1 and gin)
    assert knocker_hand.bit_count() == rules.hand_size + (1 if big_gin else 0)
    assert list(s.layoffs) == round_from(s.knocker, players)[1:], "every opponent lays off once, round the table"
    multiplier = 2 if rules.spade_double and suit_of(s.upcard) == 0 else 1
    points = [0] * players
    outcomes = []
    for seat, (dw, laid) in s.layoffs.items():
        defender = s.hands[seat]
        if gin:
            assert laid == 0 and dw == reference.deadwood(defender), "layoffs on gin"
        else:
            # Each opponent lays off onto the knocker's melds as laid, on its own (a pair of §6).
            assert dw == reference.layoff_deadwood(arrangement, defender)[0]
            assert reference.layable(arrangement, laid) == laid and reference.deadwood(defender & ~laid) == dw
        outcome, kp, dp = reference.settle(k_dw, dw, gin, big_gin, rules)
        outcomes.append(outcome)
        points[s.knocker] += kp * multiplier  # the knocker collects from each opponent separately
        points[seat] += dp * multiplier  # an opponent scores only by undercutting
        assert dp == 0 or outcome == "undercut"
        assert record[L.H_SEAT_DEADWOOD + seat] == dw
    others = {o for o in outcomes if o != "tie"}
    assert len(others - {"undercut"}) <= 1
    outcome = "undercut" if "undercut" in others else others.pop() if others else "tie"
    winner = -1 if outcome == "tie" else hand_winner(points, s.knocker)
    assert score_event == (winner, points[winner] if winner >= 0 else 0, L.OUTCOME_NAMES.index(outcome))
    assert record[L.H_OUTCOME] == L.OUTCOME_NAMES.index(outcome)
    assert record[L.H_WINNER] == winner and record[L.H_POINTS] == (points[winner] if winner >= 0 else 0)
    assert record[L.H_KNOCKER] == s.knocker and record[L.H_KNOCKER_DEADWOOD] == k_dw
    assert record[L.H_SEAT_DEADWOOD + s.knocker] == k_dw
    assert record[L.H_DEFENDER_DEADWOOD] == min(dw for dw, _ in s.layoffs.values())
    assert record[L.H_LAID_OFF] == sum(laid.bit_count() for _, laid in s.layoffs.values())
    s.points = points


def _check_game(rules: Rules, game_record: list[int], hands: list[list[int]]) -> None:
    """A game's record adds up from its hands."""
    players = rules.players
    scores = [sum(h[L.H_SEAT_POINTS + p] for h in hands) for p in range(players)]
    boxes = [sum(1 for h in hands if h[L.H_WINNER] == p) for p in range(players)]
    assert game_record[L.G_HANDS] == len(hands)
    assert game_record[L.G_FIRST_DEALER] == hands[0][L.H_DEALER]
    voids = sum(1 for h in hands if L.OUTCOME_NAMES[h[L.H_OUTCOME]] in ("void", "guard"))
    assert game_record[L.G_VOID_HANDS] == voids
    winner = game_winner(rules, scores, hands[-1])
    assert game_record[L.G_WINNER] == winner
    shutout = all(scores[p] == 0 for p in range(players) if p != winner)
    bonus = 0 if rules.single_hand else rules.game_bonus * (2 if shutout and rules.shutout_rule == "double_bonus" else 1)
    for p in range(players):
        assert game_record[L.G_SCORES + p] == scores[p] and game_record[L.G_BOXES + p] == boxes[p]
        total = scores[p] + boxes[p] * rules.box_bonus + (bonus if p == winner else 0)
        if p == winner and shutout and rules.shutout_rule == "double_total":
            total *= 2
        assert game_record[L.G_TOTALS + p] == total
    if not game_record[L.G_GUARD]:
        assert rules.single_hand or max(scores) >= rules.target_score


def _check_turn(s: HandState, seat: int, event: int) -> None:
    """Seats act in turn; each event is allowed in the phase the hand is in."""
    offered = (s.dealer + 1 + s.offers) % s.players
    if event == E.EV_PASS:
        assert s.phase == "offer" and seat == offered, "the upcard is offered round from the dealer's left"
        s.offers += 1
        if s.offers == s.players:  # all passed: the dealer's left must draw from the stock
            s.phase, s.turn = "forced", (s.dealer + 1) % s.players
    elif event == E.EV_TAKE_UPCARD:
        assert s.phase == "offer" and seat == offered
        s.first_taker, s.phase, s.turn = seat, "act", seat
    elif event == E.EV_DRAW_STOCK:
        assert s.phase in ("forced", "draw") and seat == s.turn, f"seat {seat} drew out of turn ({s.phase})"
        s.phase = "act"
    elif event == E.EV_DRAW_PILE:
        assert s.phase in ("draw", "last_chance") and seat == s.turn, "took the pile top out of turn"
        s.phase = "must_knock" if s.phase == "last_chance" else "act"
    elif event == E.EV_DISCARD:
        assert s.phase == "act" and seat == s.turn
        s.phase, s.turn = "draw", (seat + 1) % s.players
    elif event == E.EV_KNOCK:
        assert s.phase in ("act", "must_knock") and seat == s.turn
        s.phase = "showdown"
    elif event in (E.EV_MELDS, E.EV_LAYOFF):
        assert s.phase == "showdown"
        assert event != E.EV_MELDS or seat == s.knocker


def check_games(rules: Rules, trace, hand_records, game_records) -> int:
    """Check every game in the trace; returns the number of hands checked."""
    players = rules.players
    hands_by_key = {(int(r[0]), int(r[1])): r for r in hand_records.tolist()}
    games = {int(g[0]): g for g in game_records.tolist()}
    state: HandState | None = None
    deal: dict[int, int] = {}
    expected_dealer = None
    game_hands: list[list[int]] = []
    checked = 0
    current_game = None
    for game, hand, seat, event, a, b in trace.tolist():
        if game != current_game:
            current_game, expected_dealer, game_hands = game, None, []
        if event == E.EV_DEAL:
            deal[seat] = a
            continue
        if event == E.EV_UPCARD:
            assert sorted(deal) == list(range(players)) and all(h.bit_count() == rules.hand_size for h in deal.values())
            union = 0
            for h in deal.values():
                assert union & h == 0
                union |= h
            assert not union >> a & 1
            if expected_dealer is not None:
                assert seat == expected_dealer, "wrong dealer"
            state = HandState(
                [deal[s] for s in range(players)], [a], 52 - players * rules.hand_size - 1,
                _knock_limit(rules, a), a, seat, players,
            )
            assert b == state.limit
            deal = {}
            continue
        s = state
        assert s is not None
        _check_turn(s, seat, event)
        if event in (E.EV_TAKE_UPCARD, E.EV_DRAW_PILE):
            assert event == E.EV_DRAW_PILE or (s.pile == [s.upcard] and a == s.upcard)
            assert s.pile and s.pile[-1] == a, "took a card that is not on top of the pile"
            assert event == E.EV_TAKE_UPCARD or s.draws < rules.max_draws
            s.pile.pop()
            s.hands[seat] |= 1 << a
            s.draws += 1
            s.taken_this_turn = a
        elif event == E.EV_DRAW_STOCK:
            assert s.stock_left > 2 and s.draws < rules.max_draws
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
            assert s.hands[seat].bit_count() == rules.hand_size
            if s.stock_left == 2:  # the wall
                s.phase = "last_chance" if rules.wall_rule == "fiftieth_card" else "wall"
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
            assert seat != s.knocker and seat not in s.layoffs
            s.layoffs[seat] = (b, a)
        elif event in (E.EV_SCORE, E.EV_VOID):
            record = hands_by_key[(game, hand)]
            seat_points = record[L.H_SEAT_POINTS : L.H_SEAT_POINTS + players]
            assert record[L.H_SEAT_POINTS + players : L.H_SEAT_POINTS + L.MAX_SEATS] == [0] * (L.MAX_SEATS - players)
            assert record[L.H_DEALER] == s.dealer and record[L.H_UPCARD] == s.upcard
            assert record[L.H_KNOCK_LIMIT] == s.limit and record[L.H_PLAYERS] == players
            assert record[L.H_MULTIPLIER] == (2 if rules.spade_double and suit_of(s.upcard) == 0 else 1)
            assert record[L.H_DRAWS] == s.draws and record[L.H_STOCK_LEFT] == s.stock_left
            assert record[L.H_FIRST_TAKER] == s.first_taker
            if event == E.EV_VOID:
                assert seat_points == [0] * players, "a void hand scored"
                assert record[L.H_OUTCOME] == a and record[L.H_WINNER] == -1 and record[L.H_KNOCKER] == -1
                if a == L.OUT_VOID:  # the wall, not the guard
                    assert s.phase in ("wall", "last_chance") and s.stock_left == 2
                else:
                    assert a == L.OUT_GUARD and s.draws >= rules.max_draws and s.phase in ("draw", "forced")
                winner = -1
            else:
                assert s.phase == "showdown"
                _check_showdown(rules, s, record, (seat, a, b))
                assert seat_points == s.points
                winner = record[L.H_WINNER]
            expected_dealer = next_dealer(rules, s.dealer, winner, seat_points)
            held = sum(h.bit_count() for h in s.hands)
            assert held + len(s.pile) + s.stock_left == 52, "cards lost or created"
            game_hands.append(record)
            if game in games and hand == games[game][L.G_HANDS] - 1:  # the game's last hand
                _check_game(rules, games[game], game_hands)
            else:
                scores = [sum(h[L.H_SEAT_POINTS + p] for h in game_hands) for p in range(players)]
                assert max(scores) < rules.target_score or rules.single_hand
            checked += 1
            state = None
    return checked
