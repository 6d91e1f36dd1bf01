"""rulebook: every answer of the numba player, for several sets of habits, against its rules restated in Python on
the slow reference deadwood (``oklasim.game.reference``), over whole games; and its habits change its play."""

import pytest

from oklasim._kernels import layout as L
from oklasim._kernels.kit_nb import knock_if_at_most_nb
from oklasim._kernels.opponents_nb import opponents_discards_nb, unseen_nb
from oklasim.game import reference as ref
from oklasim.game.cards import N_RANKS, card_value, cards_of
from oklasim.game.rules import Rules
from oklasim.sim.board import GameBoard
from oklasim.sim.engine import simulate
from oklasim.strategies.registry import resolve

HABITS = (
    "rulebook",
    "rulebook(take_melds=0,take_gain=1,slack=4,value_weight=0.5,safety_weight=2,early_draws=3,late_threshold=4)",
    "rulebook(take_gain=5,slack=6,value_weight=0,partner_weight=1.5,early_draws=0,gin_after_draws=0)",
    "rulebook(take_melds=0,slack=20,value_weight=2,safety_weight=1,partner_weight=1,early_draws=2,gin_after_draws=6,"
    "late_threshold=7)",
)


def rank_suit(card):
    return card % N_RANKS, card // N_RANKS


def beside(mask, card):
    """Cards of ``mask`` of ``card``'s rank, or of its suit one rank away."""
    rank, suit = rank_suit(card)
    return [c for c in cards_of(mask) if rank_suit(c)[0] == rank or
            (rank_suit(c)[1] == suit and abs(rank_suit(c)[0] - rank) == 1)]


def partners(mask, card):
    """Cards of ``mask`` of ``card``'s rank or of its suit within two ranks, ``card`` excluded."""
    rank, suit = rank_suit(card)
    return [c for c in cards_of(mask) if c != card and (rank_suit(c)[0] == rank or
                                                        (rank_suit(c)[1] == suit and abs(rank_suit(c)[0] - rank) <= 2))]


def expected_take(view, habits):
    size = view[L.V_PILE_SIZE]
    if size == 0:
        return 0
    hand, top = int(view[L.V_HAND]), int(view[L.V_PILE + size - 1])
    with_top = hand | 1 << top
    if habits["take_melds"] and any(top in cards_of(meld) for melds in ref.optimal_arrangements(with_top)
                                    for meld in melds):
        return 1
    after = min(ref.deadwood(with_top & ~(1 << c)) for c in cards_of(hand))
    return int(ref.deadwood(hand) - after >= habits["take_gain"])


def expected_discard(view, habits):
    hand, forbidden = int(view[L.V_HAND]), view[L.V_FORBIDDEN]
    allowed = [c for c in cards_of(hand) if c != forbidden]
    after = {c: ref.deadwood(hand & ~(1 << c)) for c in allowed}
    least = min(after.values())
    thrown, unseen = int(opponents_discards_nb(view)), int(unseen_nb(view))

    def score(c):
        return (habits["value_weight"] * card_value(c) + habits["safety_weight"] * len(beside(thrown, c))
                - habits["partner_weight"] * len(partners(unseen, c)) - (after[c] - least))

    eligible = [c for c in allowed if after[c] - least <= habits["slack"]]
    return max(eligible, key=lambda c: (score(c), rank_suit(c)[0] * 4 + rank_suit(c)[1]))


def expected_knock(view, habits):
    draws = view[L.V_MY_DRAWS]
    if draws <= habits["early_draws"]:
        threshold = 10.0
    else:
        threshold = 0.0 if draws > habits["gin_after_draws"] else habits["late_threshold"]
    return knock_if_at_most_nb(view, threshold)


@pytest.mark.parametrize("spec", HABITS)
def test_rulebook_answers_as_its_rules_say(spec):
    player, expert = resolve(spec), resolve("expert")
    habits = dict(player.values)
    asked = {L.D_TAKE_UPCARD: 0, L.D_DRAW: 0, L.D_DISCARD: 0, L.D_KNOCK: 0}
    for game in range(2):
        board = GameBoard(Rules.preset("eaai" if game else "seeds"), 31, game, events=False)
        while (decision := board.next_decision()) is not None:
            seat, kind = decision
            view = board.view(seat)
            if seat == game % 2:  # the rulebook's seat, each game the other one
                answer = player.decide(kind, view.copy(), player.vector())
                if kind in (L.D_TAKE_UPCARD, L.D_DRAW):
                    assert answer == expected_take(view, habits)
                elif kind == L.D_DISCARD:
                    assert answer == expected_discard(view, habits)
                elif kind == L.D_KNOCK:
                    assert answer == expected_knock(view, habits)
                asked[kind] = asked.get(kind, 0) + 1
            else:
                answer = expert.decide(kind, view, expert.vector())
            board.apply(seat, kind, answer)
    assert min(asked.values()) >= 3, asked


def test_each_habit_changes_the_play():
    """Each parameter changes some hands (none is dead): against the defaults, or where the defaults hide it (they
    knock whenever legal at every draw, and the least-deadwood discards tie on the card's value, as the ties do)."""
    def hands(spec):
        return simulate(strategies=[spec, "expert"], hands=200, seed=3).hands

    for base, change in (("", "take_melds=0"), ("", "take_gain=1"), ("", "slack=6"), ("", "safety_weight=3"),
                         ("", "partner_weight=2"), ("slack=6", "value_weight=0"), ("early_draws=0", "late_threshold=2"),
                         ("late_threshold=2", "early_draws=3"), ("early_draws=0", "gin_after_draws=4")):
        with_change = ",".join(filter(None, (base, change)))
        assert not hands(f"rulebook({base})").equals(hands(f"rulebook({with_change})")), change
