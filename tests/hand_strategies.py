"""Hypothesis strategies for hands: uniform ones and meld-dense ones."""

from hypothesis import strategies as st

from oklasim.game.cards import N_CARDS, N_RANKS, N_SUITS


def mask_of(cards) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def hands(min_size: int = 0, max_size: int = 11, pool=range(N_CARDS)):
    """Hands (masks) of ``min_size``..``max_size`` distinct cards from ``pool``."""
    return st.lists(st.sampled_from(list(pool)), min_size=min_size, max_size=max_size, unique=True).map(mask_of)


@st.composite
def dense_hands(draw, min_size: int = 10, max_size: int = 11):
    """Hands drawn from 5 to 7 adjacent ranks: many overlapping sets and runs."""
    width = draw(st.integers(5, 7))
    low = draw(st.integers(0, N_RANKS - width))
    pool = [suit * N_RANKS + rank for suit in range(N_SUITS) for rank in range(low, low + width)]
    return draw(hands(min_size, max_size, pool))


def any_hands(min_size: int = 0, max_size: int = 11):
    return st.one_of(hands(min_size, max_size), dense_hands(max(min_size, 3), max_size))


@st.composite
def knocker_and_defender(draw):
    """A 10-card knocker hand and a disjoint 10-card defender hand, often meld-dense together."""
    if draw(st.booleans()):
        width = draw(st.integers(6, 8))
        low = draw(st.integers(0, 13 - width))
        pool = [suit * 13 + rank for suit in range(4) for rank in range(low, low + width)]
    else:
        pool = list(range(N_CARDS))
    cards = draw(st.lists(st.sampled_from(pool), min_size=20, max_size=20, unique=True))
    return mask_of(cards[:10]), mask_of(cards[10:])
