"""The strategy kit (``_kernels/kit_nb.py``, ``_kernels/opponents_nb.py``): its meld tests, knowledge and risk helpers
against brute force and examples."""

import numpy as np

from oklasim._kernels import kit_nb as K
from oklasim._kernels import layout as L
from oklasim._kernels import opponents_nb as O
from oklasim.game import melds, reference
from oklasim.game.cards import parse_card, parse_hand


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
        assert O.least_exposed_arrangement_nb(view) == sets_row


def test_knowledge_of_the_opponents_hand():
    view = blank_view(parse_hand("2h 3h 4h 7s 7d 7h Jc Qc Kc 5d"))
    view[L.V_PILE_MASK] = parse_hand("9c 8s")
    view[L.V_TAKEN + 1] = parse_hand("8s 6c 6d")  # 8s was thrown back: it is in the pile again
    assert O.opponents_known_nb(view) == parse_hand("6c 6d")
    unseen = O.unseen_nb(view)
    assert unseen & (view[L.V_HAND] | view[L.V_PILE_MASK] | parse_hand("6c 6d")) == 0
    assert bin(unseen).count("1") == 52 - 10 - 2 - 2
    # 6s / 6h complete the known pair of sixes; 5c, 7c... sit next to them
    for card, danger in (("6s", 2), ("6h", 2), ("5c", 1), ("8d", 1), ("Ks", 0)):
        assert O.discard_danger_nb(parse_card(card), O.opponents_known_nb(view), unseen) == danger, card


def test_undercut_risk_estimate():
    view = blank_view(parse_hand("2h 3h 4h 7s 7d 7h Jc Qc Kc 5d"))
    risks = []
    for opponent_draws in (0, 5, 10, 15):
        view[L.V_DRAWS] = opponent_draws
        risks.append([O.undercut_risk_nb(view, d) for d in range(11)])
    risks = np.array(risks)
    assert (risks[:, 0] == 0).all()  # gin is never undercut
    assert (np.diff(risks, axis=1) >= 0).all() and (np.diff(risks, axis=0) >= 0).all()
    assert risks[0, 10] < 0.1 and risks[3, 10] > 0.5 and (risks <= 1).all()


def test_highest_deadwood_card_against_brute_force():
    """The highest-ranked allowed card that is deadwood in some optimal arrangement (ties by suit from the top), found
    from the rules' reference: removing it lowers the deadwood by its value."""
    for hand, card in random_hands(800, 11, seed=4):
        for allowed in (hand, hand & ~(1 << card), 1 << card):
            total = reference.deadwood(hand)
            deadwood = [c for c in range(52) if (allowed & hand) >> c & 1
                        and reference.deadwood(hand & ~(1 << c)) + reference.card_value(c) == total]
            expected = max(deadwood, key=lambda c: (c % 13, c // 13), default=L.NO_CARD)
            assert K.highest_deadwood_card_nb(np.int64(hand), np.int64(allowed)) == expected


def test_loose_cards_against_brute_force():
    """The allowed cards that are deadwood in some optimal arrangement: removing one lowers the deadwood by its value."""
    for hand, card in random_hands(400, 11, seed=5):
        for allowed in (hand, hand & ~(1 << card)):
            total = reference.deadwood(hand)
            expected = sum(1 << c for c in range(52) if (allowed & hand) >> c & 1
                           and reference.deadwood(hand & ~(1 << c)) + reference.card_value(c) == total)
            assert K.loose_cards_nb(np.int64(hand), np.int64(allowed)) == expected


def test_beside_against_brute_force():
    """The cards of a mask of the card's rank, or of its suit one rank away (an ace has one such card, a king one)."""
    for hand, card in random_hands(600, 11, seed=6):
        for mask in (hand, hand & ~(1 << card), ~hand & ((1 << 52) - 1)):
            expected = sum(1 << c for c in range(52) if mask >> c & 1
                           and (c % 13 == card % 13 or (c // 13 == card // 13 and abs(c % 13 - card % 13) == 1)))
            assert K.beside_nb(np.int64(mask), card) == expected


def test_least_deadwood_discards_against_brute_force():
    """Both paths: a deadwood call per discard (a few allowed) and the one-pass kernel (many allowed)."""
    for hand, card in random_hands(600, 11, seed=3):
        for allowed in (hand, hand & ~(1 << card), 1 << card | (hand & -hand)):
            left = {c: reference.deadwood(hand & ~(1 << c)) for c in range(52) if (allowed & hand) >> c & 1}
            least = min(left.values())
            expected = sum(1 << c for c, dw in left.items() if dw == least)
            assert K.min_deadwood_discards_nb(np.int64(hand), np.int64(allowed)) == (least, expected)
