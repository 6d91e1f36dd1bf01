"""``Family.uses_drawn_card``: a family that declares its knock and discard blind to the card just drawn is.

The advisor relies on the declaration to ask those answers once per replayed
turn rather than once per card the opponent may have drawn; a wrong one
would weigh its worlds wrongly without a sound, so every shipped family's
declaration is checked on the views its own games show it.
"""

import pytest

from oklasim._kernels import layout as L
from oklasim.agent.transcript import recorded_views
from oklasim.game.rules import Rules
from oklasim.strategies.registry import families, resolve


def answers_move_with_the_drawn_card(family: str, games: int) -> int:
    """How many recorded views change their answer when V_DRAWN names another card of the hand, or none."""
    strategy = resolve(family)
    params = strategy.vector()
    moved = 0
    views = recorded_views(Rules.preset("seeds"), [family, "greedy"], 3, games)
    for kind, view in ((k, v) for k, v in views if k in (L.D_KNOCK, L.D_DISCARD)):
        answer = strategy.decide(kind, view.copy(), params)
        hand = int(view[L.V_HAND])
        for other in [L.NO_CARD] + [c for c in range(52) if hand >> c & 1 and c != view[L.V_DRAWN]][:3]:
            changed = view.copy()
            changed[L.V_DRAWN] = other
            if strategy.decide(kind, changed, params) != answer:
                moved += 1
                break
    return moved


@pytest.mark.parametrize("family", sorted(name for name, loaded in families(()).items()
                                          if not loaded.family.uses_drawn_card))
def test_families_blind_to_the_drawn_card_are(family):
    assert answers_move_with_the_drawn_card(family, 4) == 0


def test_the_check_finds_a_family_that_reads_the_drawn_card():
    """eaai never throws back the card it just drew (V_DRAWN): the check above sees it, so it can fail."""
    assert resolve("eaai").uses_drawn_card
    assert answers_move_with_the_drawn_card("eaai", 4) > 0
