"""The memory each strategy family declares (``Family.memory``, ``delegates``): its V_MEMORY slots come after those
of the families it hands decisions to, no composition overlaps, and each family's kernel writes its own slots only."""

import itertools

import numpy as np
import pytest

from oklasim._kernels import layout as L
from oklasim.errors import OklasimError
from oklasim.game.rules import Rules
from oklasim.sim.board import GameBoard
from oklasim.strategies.registry import families, resolve
from oklasim.strategy_api import Family

SHIPPED = {name: loaded.family for name, loaded in families().items()}
SENTINEL = -0x5A5A5A5A


def slots(family: Family) -> set[int]:
    return set(range(family.memory_base, family.memory_end))


def used(family: Family) -> set[int]:
    """The slots of every family in its composition."""
    return set().union(*(slots(f) for f in family.composition()))


def test_a_family_s_slots_follow_those_it_hands_decisions_to():
    mc, expert, search = SHIPPED["mc"], SHIPPED["expert"], SHIPPED["search"]
    assert slots(expert) == set(range(6)) and slots(mc) == {6, 7} and not slots(search)
    assert [f.name for f in search.composition()] == ["search", "mc", "simple", "greedy", "expert"]
    for family in SHIPPED.values():
        assert family.memory_end <= L.N_MEMORY
        members = [f for f in family.composition() if f.memory]
        for a, b in itertools.combinations(members, 2):
            assert not slots(a) & slots(b), (family.name, a.name, b.name)


@pytest.mark.parametrize("first,second", list(itertools.combinations(sorted(SHIPPED), 2)))
def test_every_pair_of_families_composes_without_overlap_or_is_refused(first, second):
    """A family handing decisions to two others: built, no two families of it share a slot; refused, two of them
    would (or its own slots would not fit)."""
    a, b = SHIPPED[first], SHIPPED[second]
    members = [f for f in {id(f): f for f in a.composition() + b.composition()}.values() if f.memory]
    clash = any(slots(x) & slots(y) for x, y in itertools.combinations(members, 2))
    try:
        both = Family(name="both", doc="test", memory=1, delegates=(a, b))
    except OklasimError as refused:
        assert clash or max(a.memory_end, b.memory_end) + 1 > L.N_MEMORY, refused
        return
    assert not clash and both.memory_end <= L.N_MEMORY
    assert all(not slots(both) & slots(f) for f in members)


def test_overlapping_or_oversized_memory_is_refused():
    with pytest.raises(OklasimError, match=r"eaai \(V_MEMORY slots 0\.\.7\) and of expert \(V_MEMORY slots 0\.\.5\)"):
        Family(name="both", doc="test", delegates=(SHIPPED["eaai"], SHIPPED["expert"]))
    with pytest.raises(OklasimError, match="past the 8 slots"):
        Family(name="big", doc="test", memory=3, delegates=(SHIPPED["expert"],))


@pytest.mark.parametrize("spec", ["expert", "eaai", "mc(samples=4, continuation=expert, opponent=expert)",
                                  "search(samples=64)", "simple", "defensive", "score_aware", "threshold"])
def test_a_family_writes_only_the_slots_it_declares(spec):
    """Every other V_MEMORY slot is set to a sentinel before each of its decisions and must come back unchanged."""
    strategy = resolve(spec)
    mine = used(SHIPPED[strategy.family])
    others = [L.V_MEMORY + k for k in range(L.N_MEMORY) if k not in mine]
    other = resolve("simple")
    decisions = 0
    for seed in range(3):
        game = GameBoard(Rules(), seed=seed)
        while (asked := game.next_decision()) is not None and len(game.records) < 3:
            seat, kind = asked
            view = game.view(seat)
            if seat == 0:
                view[others] = SENTINEL
                answer = strategy.decide(kind, view, strategy.vector())
                assert (view[others] == SENTINEL).all(), (spec, kind, view[L.V_MEMORY : L.V_MEMORY + L.N_MEMORY])
                view[others] = 0  # as the engine keeps them: nothing else writes there
                decisions += 1
            else:
                answer = other.decide(kind, view, other.vector())
            game.apply(seat, kind, answer)
    assert decisions > 20
