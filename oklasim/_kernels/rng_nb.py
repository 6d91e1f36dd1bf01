"""A small counter-based random generator for the kernels.

SplitMix64: a 64-bit state advanced by a constant and mixed by a bijection.
Every game (or sampled hand) gets its own state derived from
``(run seed, index)``, so any single one can be regenerated without the
others, whatever the batch size or the number of workers.
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

from .cards_nb import N_CARDS

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
MIX_2 = np.uint64(0x94D049BB133111EB)

# -- Stream salts: XORed into a key so that two uses of one key draw independent streams ----------
# The values are part of every recorded result (same seed, same games): never change them.
SEAT_STREAMS = 0x5EA7  # run seed -> the seats' private streams (V_RNG), apart from the deck's
ROLLOUT_SEAT_STREAMS = 0x2545F4914F6CDD1D  # advise world key -> the seats' streams in a rollout
ROLLOUT_DECKS = 0x1B873593  # advise world key -> the decks of the hands after the rollout's (game mode)
REPEAT_STOCKS = 0x3C6EF372FE94F82B  # advise world key -> the stock orders of a world's repeats after its first
HISTORY_REPLAYS = 0x68E31DA4  # advise world key -> the opponent's random draws replayed to weigh the history
HISTORY_VIEWS = 0x5EED  # the seats' streams on the board a typed history is replayed on (advise --history)
MC_WORLDS = 7  # an index, not a salt: stream 7 of the mc seat's own state keys its sampled worlds


@njit(cache=True, inline="always")
def mix64_nb(z):
    z = (z ^ (z >> uint64(30))) * MIX_1
    z = (z ^ (z >> uint64(27))) * MIX_2
    return z ^ (z >> uint64(31))


@njit(cache=True, inline="always")
def stream_state_nb(seed, index):
    """Starting state of stream ``index`` of ``seed`` (both non-negative ints)."""
    return mix64_nb(uint64(seed) ^ mix64_nb(uint64(index) * GOLDEN + GOLDEN))


@njit(cache=True, inline="always")
def next_state_nb(state):
    return state + GOLDEN


@njit(cache=True, inline="always")
def below_nb(state, n):
    """A draw in ``0..n-1`` from ``state`` (n < 2**32; bias below n / 2**32)."""
    return np.int64(((mix64_nb(state) >> uint64(32)) * uint64(n)) >> uint64(32))


@njit(cache=True)
def shuffle_deck_nb(state, deck):
    """Fisher-Yates shuffle of ``deck`` in place; returns the advanced state."""
    for i in range(deck.shape[0] - 1, 0, -1):
        state = next_state_nb(state)
        j = below_nb(state, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return state


@njit(cache=True, inline="always")
def partial_shuffle_nb(state, items, count):
    """Make ``items[:count]`` a uniform draw of ``count`` of ``items`` without replacement, in order, in place (a
    partial Fisher-Yates: the rest are left as they fall); returns the advanced state."""
    for k in range(count):
        state = next_state_nb(state)
        j = k + below_nb(state, items.shape[0] - k)
        items[k], items[j] = items[j], items[k]
    return state


@njit(cache=True)
def random_hands_nb(seed, hand_size, out):
    """Fill ``out`` with uniform random hands of ``hand_size`` cards; hand i from stream i."""
    deck = np.empty(N_CARDS, dtype=np.int64)
    for i in range(out.shape[0]):
        for c in range(N_CARDS):
            deck[c] = c
        partial_shuffle_nb(stream_state_nb(seed, i), deck, hand_size)  # only the cards dealt
        mask = np.int64(0)
        for k in range(hand_size):
            mask |= np.int64(1) << deck[k]
        out[i] = mask
