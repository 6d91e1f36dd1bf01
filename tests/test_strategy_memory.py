"""The memory each strategy family declares (``Family.memory``, ``game_memory``, ``delegates``): its V_MEMORY and
V_GAME_MEMORY slots come after those of the families it hands decisions to, no composition overlaps, and each
family's kernel writes its own slots only."""

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


def slots(family: Family, area: str = "memory") -> set[int]:
    return set(range(family.slots_base(area), family.slots_end(area)))


def used(family: Family, area: str = "memory") -> set[int]:
    """The slots of ``area`` of every family in its composition."""
    return set().union(*(slots(f, area) for f in family.composition()))


def test_a_family_s_slots_follow_those_it_hands_decisions_to():
    mc, expert, search = SHIPPED["mc"], SHIPPED["expert"], SHIPPED["search"]
    assert slots(expert) == set(range(6)) and slots(mc) == {6, 7} and slots(search) == {8, 9}
    assert slots(search, "game_memory") == set(range(26)) and not used(mc, "game_memory")
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
    with pytest.raises(OklasimError, match="its memory ends at slot 13, past the 12 slots of V_MEMORY"):
        Family(name="big", doc="test", memory=7, delegates=(SHIPPED["expert"],))
    with pytest.raises(OklasimError, match=r"game memory of search \(V_GAME_MEMORY slots 0\.\.25\) and of mine"):
        Family(name="both", doc="test", delegates=(SHIPPED["search"], Family(name="mine", doc="test", game_memory=1)))
    with pytest.raises(OklasimError, match="its game memory ends at slot 35, past the 32 slots of V_GAME_MEMORY"):
        Family(name="big", doc="test", game_memory=9, delegates=(SHIPPED["search"],))


@pytest.mark.parametrize("spec", ["expert", "eaai", "mc(samples=4, continuation=expert, opponent=expert)",
                                  "search(samples=64)", "search(samples=64,model=4,carry=1)", "simple", "defensive",
                                  "score_aware", "threshold"])
def test_a_family_writes_only_the_slots_it_declares(spec):
    """Every other V_MEMORY and V_GAME_MEMORY slot is set to a sentinel before each of its decisions and must come
    back unchanged."""
    strategy = resolve(spec)
    family = SHIPPED[strategy.family]
    others = [L.V_MEMORY + k for k in range(L.N_MEMORY) if k not in used(family)]
    others += [L.V_GAME_MEMORY + k for k in range(L.N_GAME_MEMORY) if k not in used(family, "game_memory")]
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
                assert (view[others] == SENTINEL).all(), (spec, kind, view[others])
                view[others] = 0  # as the engine keeps them: nothing else writes there
                decisions += 1
            else:
                answer = other.decide(kind, view, other.vector())
            game.apply(seat, kind, answer)
    assert decisions > 20
