"""Cards and hands: text <-> card index <-> 52-bit mask.

A card index is ``suit * 13 + rank`` with suits ``s c d h`` (0..3) and ranks
``A 2 … 9 T J Q K`` (0..12); a hand is an ``int`` whose bit ``i`` says that
card ``i`` is held. This is also OpenSpiel's indexing.

Accepted spellings, case-insensitive: ``Th`` or ``10h`` for a ten, ranks and
suits in either order is *not* accepted (``hT`` is an error), cards separated
by spaces and/or commas.

>>> format_hand(parse_hand("as 2S, 10h"))
'As 2s Th'
>>> parse_card("Kh")
51
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from oklasim._kernels import cards_nb
from oklasim._kernels.cards_nb import FULL_DECK, N_CARDS, N_RANKS, N_SUITS, SPADES, rank_value  # noqa: F401
from oklasim.errors import OklasimError


def _plain(kernel):
    """A card kernel's own Python function: the same formula, with nothing to compile for plain Python callers."""
    return getattr(kernel, "py_func", kernel)


card_index = _plain(cards_nb.card_index_nb)  # (rank, suit) -> card index
rank_of = _plain(cards_nb.rank_of_nb)
suit_of = _plain(cards_nb.suit_of_nb)


def card_value(card: int) -> int:
    """Deadwood value: ace 1, two to nine face value, ten and faces 10."""
    return rank_value(rank_of(card))


RANKS = "A23456789TJQK"
SUITS = "scdh"

_TOKEN_SPLIT = re.compile(r"[\s,]+")


def parse_card(token: str) -> int:
    """Parse one card such as ``"Th"``, ``"10h"`` or ``"as"``; raise ``ValueError`` naming it."""
    text = token.strip()
    rank_text, suit_text = text[:-1].upper(), text[-1:].lower()
    if rank_text == "10":
        rank_text = "T"
    if len(rank_text) != 1 or rank_text not in RANKS or suit_text not in SUITS or not suit_text:
        raise OklasimError(
            f"unknown card {token!r}: write a rank from {RANKS} (or 10) followed by a suit "
            f"from {SUITS}, e.g. 'Th' or '10h'"
        )
    return card_index(RANKS.index(rank_text), SUITS.index(suit_text))


def format_card(card: int) -> str:
    if not 0 <= card < N_CARDS:
        raise OklasimError(f"card index {card} is outside 0..{N_CARDS - 1}")
    return RANKS[rank_of(card)] + SUITS[suit_of(card)]


def parse_cards(text: str) -> list[int]:
    """Parse a list of cards in the order given; duplicates raise ``ValueError``."""
    tokens = [t for t in _TOKEN_SPLIT.split(text.strip()) if t]
    cards: list[int] = []
    for token in tokens:
        card = parse_card(token)
        if card in cards:
            raise OklasimError(f"duplicate card {token!r} in {text!r}")
        cards.append(card)
    return cards


def parse_hand(text: str, count: int | Iterable[int] | None = None) -> int:
    """Parse a hand into a 52-bit mask.

    ``count`` (an int or a collection of allowed ints) is the number of cards
    the hand must have; a wrong count raises ``ValueError``.
    """
    cards = parse_cards(text)
    if count is not None:
        allowed = {count} if isinstance(count, int) else set(count)
        if len(cards) not in allowed:
            wanted = " or ".join(str(n) for n in sorted(allowed))
            raise OklasimError(f"expected {wanted} cards, got {len(cards)} in {text!r}")
    return mask_of(cards)


def mask_of(cards: Iterable[int]) -> int:
    mask = 0
    for card in cards:
        if not 0 <= card < N_CARDS:
            raise OklasimError(f"card index {card} is outside 0..{N_CARDS - 1}")
        mask |= 1 << card
    return mask


def cards_of(mask: int) -> Iterator[int]:
    """Card indices held in ``mask``, ascending."""
    check_mask(mask)
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def check_mask(mask: int) -> None:
    if mask < 0 or mask > FULL_DECK:
        raise OklasimError(f"hand mask {mask:#x} has bits outside the 52 cards")


def format_hand(mask: int, by_rank: bool = False) -> str:
    """Cards of ``mask`` as text, in index order (by suit) or, with ``by_rank``, by rank."""
    cards = list(cards_of(int(mask)))
    if by_rank:
        cards.sort(key=lambda c: (rank_of(c), suit_of(c)))
    return " ".join(format_card(c) for c in cards)


def hand_size(mask: int) -> int:
    return int(mask).bit_count()
