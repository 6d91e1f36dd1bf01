import numpy as np
import pytest
from hand_strategies import hands
from hypothesis import given, settings

from oklasim._kernels import cards_nb as K
from oklasim.game.cards import (
    FULL_DECK,
    RANKS,
    SUITS,
    card_value,
    cards_of,
    format_card,
    format_hand,
    mask_of,
    parse_card,
    parse_cards,
    parse_hand,
)


def test_indexing_matches_openspiel():
    assert parse_card("As") == 0 and parse_card("Ks") == 12
    assert parse_card("Ac") == 13 and parse_card("Ad") == 26 and parse_card("Kh") == 51
    assert [format_card(i) for i in (0, 9, 22, 51)] == ["As", "Ts", "Tc", "Kh"]


@pytest.mark.parametrize("text", ["Th", "10h", "th", "10H", "TH", " Th "])
def test_common_spellings_of_a_ten(text):
    assert parse_card(text) == parse_card("Th")


def test_separators_and_case():
    assert parse_hand("as,2S 10h ,  kd") == parse_hand("As 2s Th Kd")


@pytest.mark.parametrize("token", ["Xs", "1h", "hT", "A", "", "11s", "As2", "Tx"])
def test_unknown_card_names_the_token(token):
    with pytest.raises(ValueError, match="unknown card"):
        parse_card(token)


def test_duplicate_card_is_named():
    with pytest.raises(ValueError, match="duplicate card '10h'"):
        parse_cards("Th 2s 10h")


def test_wrong_count():
    with pytest.raises(ValueError, match="expected 10 cards, got 3"):
        parse_hand("As 2s 3s", count=10)
    with pytest.raises(ValueError, match="expected 10 or 11 cards"):
        parse_hand("As", count=(10, 11))
    assert parse_hand("As 2s 3s", count=range(1, 12)) == 0b111


def test_values():
    assert [card_value(parse_card(c)) for c in "As 2c 9d Th Js Qc Kd".split()] == [1, 2, 9, 10, 10, 10, 10]


@given(hands(0, 52))
def test_round_trip(mask):
    assert parse_hand(format_hand(mask)) == mask
    assert mask_of(cards_of(mask)) == mask


def test_format_by_rank_and_bad_masks():
    assert format_hand(parse_hand("Kh As 2s Ad"), by_rank=True) == "As Ad 2s Kh"
    with pytest.raises(ValueError, match="outside the 52 cards"):
        format_hand(FULL_DECK + 1)
    with pytest.raises(ValueError, match="outside 0..51"):
        format_card(52)


def test_kernel_card_helpers_agree_with_the_text():
    """The kernels' deck (cards_nb) is the one the text spells: ranks, suits, spades, values."""
    assert K.N_RANKS == len(RANKS) and K.N_SUITS == len(SUITS) and K.N_CARDS == K.N_RANKS * K.N_SUITS
    for card in range(K.N_CARDS):
        text = format_card(card)
        assert RANKS[K.rank_of_nb(card)] == text[0] and SUITS[K.suit_of_nb(card)] == text[1]
        assert K.card_index_nb(K.rank_of_nb(card), K.suit_of_nb(card)) == card
        assert K.is_spade_nb(card) == (text[1] == "s")
    assert K.MEAN_CARD_VALUE == sum(card_value(c) for c in range(K.N_CARDS)) / K.N_CARDS
    assert K.FULL_DECK == FULL_DECK == mask_of(range(K.N_CARDS))


def test_ties_go_to_the_highest_card():
    """high_card_key_nb orders by rank, then suit index: every card once, kings of hearts last."""
    by_key = sorted(range(K.N_CARDS), key=K.high_card_key_nb)
    assert format_hand(mask_of(by_key[:5]), by_rank=True) == "As Ac Ad Ah 2s"
    assert [format_card(c) for c in by_key[-2:]] == ["Kd", "Kh"]
    assert sorted(K.high_card_key_nb(c) for c in range(K.N_CARDS)) == list(range(K.N_CARDS))


@settings(deadline=None)  # the first example compiles the kernels
@given(hands(0, 52))
def test_card_counts_and_suit_patterns(mask):
    assert K.count_cards_nb(np.int64(mask)) == mask.bit_count()
    for suit in range(K.N_SUITS):
        pattern = K.suit_pattern_nb(np.int64(mask), suit)
        assert pattern == sum(1 << K.rank_of_nb(c) for c in cards_of(mask) if K.suit_of_nb(c) == suit)
