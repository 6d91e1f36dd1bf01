"""``Family.confirms_discard``: a family that answers D_CONFIRM_DISCARD answers it as its D_DISCARD.

The advisor asks a confirming opponent "would you throw this card?" rather
than "which card would you throw?" to weigh its worlds; a wrong "yes" or
"no" would weigh them wrongly without a sound. So on the views its own
games show it, every card of the hand (and the card it may not throw, and
one it does not hold) is asked about, and exactly its discard is confirmed.
"""

import pytest

from oklasim._kernels import layout as L
from oklasim.agent.transcript import recorded_views
from oklasim.game.rules import Rules
from oklasim.strategies.registry import families, resolve

CONFIRMING = sorted(name for name, loaded in families(()).items() if loaded.family.confirms_discard)


def confirmed_cards(strategy, view) -> list[int]:
    """The cards ``strategy`` confirms as its discard from ``view``, of every card of the deck."""
    params = strategy.vector()
    found = []
    for card in range(52):
        asked = view.copy()
        asked[L.V_ASKED] = card
        if strategy.decide(L.D_CONFIRM_DISCARD, asked, params) == 1:
            found.append(card)
    return found


def test_expert_confirms_its_discards():
    assert "expert" in CONFIRMING


@pytest.mark.parametrize("family", CONFIRMING)
@pytest.mark.parametrize("preset", ["seeds", "eaai", "north_american"])
def test_a_confirming_family_confirms_exactly_its_discard(family, preset):
    strategy = resolve(family)
    checked = 0
    for kind, view in recorded_views(Rules.preset(preset), [family, "greedy"], 5, 6):
        if kind != L.D_DISCARD:
            continue
        discard = strategy.decide(L.D_DISCARD, view.copy(), strategy.vector())
        assert confirmed_cards(strategy, view) == [discard]
        checked += 1
    assert checked > 50


def test_a_card_asked_about_outside_the_deck_is_not_confirmed():
    strategy = resolve("expert")
    kind, view = next((k, v) for k, v in recorded_views(Rules.preset("seeds"), ["expert", "greedy"], 5, 1)
                      if k == L.D_DISCARD)
    for card in (L.NO_CARD, 52, 10**6):
        asked = view.copy()
        asked[L.V_ASKED] = card
        assert strategy.decide(L.D_CONFIRM_DISCARD, asked, strategy.vector()) == 0
