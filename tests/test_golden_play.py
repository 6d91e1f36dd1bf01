"""Golden hashes of play: the engine's hand and game records and its full event trace, for several presets,
pairings and player counts, pinned like the deadwood digest. A change in how the game is played changes one of
these, so it is a decision (update the hash and say why in the commit), never an accident."""

import hashlib

import pytest

from oklasim.game.rules import Rules
from oklasim.sim.engine import kernel_rules, resolve_all, run_kernel, trace_rows

TRACED_HANDS_PER_GAME = 40  # games here run well under this; a longer one would raise, not truncate

CASES = {
    # (preset, players, seats, independent hands?, count): sha256 of records + trace
    ("seeds", 2, ("simple", "greedy"), False, 60):
        "0bc55efe49684246a0d5ab7aed44f2e5b66d43eda63f148815a3c17bfa653247",
    ("seeds", 2, ("expert", "eaai"), True, 300):
        "61460c61dc395639ba078c443519204cbf27091fff4ff9e1da110c8cbb885661",
    ("seeds", 2, ("policy", "score_aware"), True, 300):
        "7a5b1a55d9ccdfea2ada29474923448c509ec2d6913d4b354c2ab075df26dc4d",
    ("pagat", 2, ("greedy", "defensive"), False, 40):
        "f2ffbb7a113b535127f00fd4fed68e46efe175352cacf241b898f862cc484592",
    ("north_american", 2, ("threshold:gin_only", "expert"), False, 40):
        "d1c7f1600a1500671f1fa440d64c1af1a5adde0ce4f44918ab1e905576d754d2",
    ("openspiel", 2, ("simple", "random"), True, 300):
        "890413bbb192fbd682941d1f8f95b009b29fec78a0543ea8e94bf855d0f52efd",
    ("eaai", 2, ("eaai", "expert"), False, 40):
        "a7ddab7462b09aea58a879e14c2fcad58f99d5a0601c2bbaa21c8a5692f1acf5",
    ("seeds", 3, ("simple", "greedy", "expert"), False, 30):
        "a4c37b01b533c4dbd41144b2b7dce3095a49ddc3e4b445a8de56a99d6193d713",
    ("seeds", 4, ("random", "simple", "greedy", "defensive"), False, 30):
        "4c3cdc45a02bbc6d3b13dcc91861b5b66e12aa0bc776addb30433ee68b595ef3",
    ("pagat", 3, ("greedy",), False, 30):
        "52c23a181093b31b0484c36f78f24790d6e3345f1fb45a1501ff521c3a6300f4",
}


def play_digest(preset: str, players: int, seats: tuple[str, ...], hands_only: bool, count: int) -> str:
    rules = Rules.preset(preset).replace(players=players)
    traced = trace_rows(count * (1 if hands_only else TRACED_HANDS_PER_GAME))
    hands, games, trace = run_kernel(kernel_rules(rules, hands_only), resolve_all(list(seats), players), 2026, 0,
                                     count, trace_capacity=traced)
    return hashlib.sha256(hands.tobytes() + games.tobytes() + trace.tobytes()).hexdigest()


@pytest.mark.parametrize("case", list(CASES), ids=lambda c: f"{c[0]}-{c[1]}p-{'-'.join(c[2])}-{c[4]}")
def test_play_is_pinned(case):
    assert play_digest(*case) == CASES[case]
