"""expert: its card-tracking model, look-ahead and danger checked against brute force, its knock stages, its strength."""

import itertools
import math

import numpy as np
import pytest

from oklasim._kernels import layout as L
from oklasim.game import reference
from oklasim.game.cards import parse_card, parse_hand
from oklasim.game.rules import Rules
from oklasim.sim.engine import simulate
from oklasim.strategies import registry as strategy

MODULE = strategy.family_module(strategy.families()["expert"].source)
DEFAULTS = strategy.resolve("expert").vector()


def view_of(hand, pile=(), taken=0, discarded=0, draws=0, my_draws=0, knock_limit=10):
    """A two-player view for seat 0: ``pile`` bottom first, the opponent's pickups and discards as masks."""
    view = np.zeros(L.V_SIZE, dtype=np.int64)
    view[L.V_HAND] = hand
    view[L.V_PLAYERS] = 2
    view[L.V_RULES + L.R_HAND_SIZE] = 10
    view[L.V_RULES + L.R_TARGET_SCORE] = 100
    view[L.V_KNOCK_LIMIT] = knock_limit
    view[L.V_TAKEN + 1] = taken
    view[L.V_DISCARDED + 1] = discarded
    view[L.V_DRAWS] = draws
    view[L.V_MY_DRAWS] = my_draws
    view[L.V_FORBIDDEN] = L.NO_CARD
    view[L.V_DRAWN] = L.NO_CARD
    for k, card in enumerate(pile):
        view[L.V_PILE + k] = card
        view[L.V_PILE_MASK] |= 1 << card
    view[L.V_PILE_SIZE] = len(pile)
    view[L.V_STOCK_LEFT] = 52 - 20 - 1 - len(pile) - bin(taken).count("1") + 1
    return view


def random_positions(n, seed):
    """Views a few turns into a hand: 10 cards, a pile, opponent pickups (partly thrown back) and discards."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        cards = [int(c) for c in rng.permutation(52)]
        hand = sum(1 << c for c in cards[:10])
        pile = cards[10 : 10 + int(rng.integers(1, 9))]
        rest = cards[10 + len(pile) :]
        taken = sum(1 << c for c in rest[: int(rng.integers(0, 4))])
        discarded = sum(1 << c for c in pile[::2])
        yield view_of(hand, pile, taken, discarded, draws=2 * len(pile), my_draws=len(pile))


def out_table(hand, model):
    """``out_table_nb`` into fresh arrays (the strategy's own tables live on its stack)."""
    table = (np.empty(52), np.empty(MODULE.TABLE_SIZE, dtype=np.int64))
    MODULE.out_table_nb(hand, model, table)
    return table


def held_chances(model):
    return np.array([MODULE.held_chance_nb(np.int64(1) << c, model) for c in range(52)])


@pytest.mark.parametrize("hot, cold", [(1.0, 1.0), (2.0, 0.5), (4.0, 0.2)])
def test_the_model_holds_exactly_the_unknown_cards(hot, cold):
    params = DEFAULTS.copy()
    params[MODULE.HOT_FACTOR], params[MODULE.COLD_FACTOR] = hot, cold
    for view in random_positions(200, seed=1):
        model = MODULE.opponent_model_nb(view, params)
        chances = held_chances(model)
        known = model[MODULE.M_KNOWN]
        unknown_held = 10 - bin(known).count("1")
        for card in range(52):
            bit = 1 << card
            if known & bit:
                assert chances[card] == 1.0
            elif (view[L.V_HAND] | view[L.V_PILE_MASK]) & bit:
                assert chances[card] == 0.0
        unseen = [c for c in range(52) if model[MODULE.M_UNSEEN] >> c & 1]
        if chances[unseen].max() < 1.0:  # no tier capped: the expectation is exact
            assert math.isclose(chances[unseen].sum(), unknown_held, rel_tol=1e-9)
        assert math.isclose(model[MODULE.M_STOCK], len(unseen) - unknown_held)
        hot_cards = [c for c in unseen if model[MODULE.M_HOT] >> c & 1]
        cold_cards = [c for c in unseen if model[MODULE.M_COLD] >> c & 1]
        plain = [c for c in unseen if c not in hot_cards and c not in cold_cards]
        if hot_cards and plain:
            assert chances[hot_cards].min() >= chances[plain].max()
        if cold_cards and plain:
            assert chances[cold_cards].max() <= chances[plain].min()


def test_a_held_chance_is_its_tier_chance_to_the_last_bit():
    """The branch-free sum of flagged tiers gives exactly the tier's chance: 1 known, 0 seen, hot, cold or plain."""
    tiers_seen = set()
    for view in random_positions(100, seed=15):
        model = MODULE.opponent_model_nb(view, DEFAULTS)
        for card, chance in enumerate(held_chances(model)):
            bit = 1 << card
            if model[MODULE.M_KNOWN] & bit:
                tier = MODULE.M_KNOWN
                assert chance == 1.0
            elif not model[MODULE.M_UNSEEN] & bit:
                tier = MODULE.M_UNSEEN
                assert chance == 0.0
            else:
                tier = next((t for t in (MODULE.M_HOT, MODULE.M_COLD) if model[t] & bit), None)
                held = {MODULE.M_HOT: MODULE.M_HELD_HOT, MODULE.M_COLD: MODULE.M_HELD_COLD}.get(tier, MODULE.M_HELD_PLAIN)
                assert chance == model[held]
            tiers_seen.add(tier)
    assert len(tiers_seen) == 5


def test_the_lowest_floor_and_the_next_one():
    """Ties go to the lowest card; the next floor is the lowest of the others (a tie with the lowest included)."""
    rng = np.random.default_rng(16)
    for _ in range(300):
        cards = rng.choice(52, size=rng.integers(1, 12), replace=False)
        floors = np.full(52, np.nan)
        floors[cards] = rng.integers(0, 6, size=len(cards)) * 0.5  # few values: many ties
        mask = sum(1 << int(c) for c in cards)
        ordered = sorted((floors[c], c) for c in cards)
        runner_up = ordered[1][0] if len(ordered) > 1 else np.inf
        assert MODULE.lowest_floor_nb(np.int64(mask), floors) == (ordered[0][1], ordered[0][0], runner_up)


def test_the_tiers_follow_what_the_opponent_took_and_threw():
    view = view_of(parse_hand("2h 3h 4h 7s 7d 7h Jc Qc Kc 5d"), pile=[parse_card("9d")], taken=parse_hand("6c"))
    view[L.V_DISCARDED + 1] = parse_hand("9d")
    model = MODULE.opponent_model_nb(view, DEFAULTS)
    assert model[MODULE.M_KNOWN] == parse_hand("6c")
    assert model[MODULE.M_HOT] >> parse_card("6s") & 1 and model[MODULE.M_HOT] >> parse_card("8c") & 1
    assert model[MODULE.M_COLD] >> parse_card("9s") & 1 and model[MODULE.M_COLD] >> parse_card("Td") & 1
    assert not model[MODULE.M_COLD] >> parse_card("9d") & 1  # in the pile: not unseen


def test_meld_chance_is_exact_for_independent_cards():
    """Brute force over every holding of the seven cards that could meld with the discard."""
    for view in random_positions(60, seed=2):
        model = MODULE.opponent_model_nb(view, DEFAULTS)
        chances = held_chances(model)
        for card in range(0, 52, 5):
            rank, suit = card % 13, card // 13
            partners = [s * 13 + rank for s in range(4) if s != suit]
            partners += [suit * 13 + r for r in range(rank - 2, rank + 3) if r != rank and 0 <= r < 13]
            exact = 0.0
            for holding in itertools.product((0, 1), repeat=len(partners)):
                held = [c for c, h in zip(partners, holding) if h]
                weight = math.prod(chances[c] if h else 1 - chances[c] for c, h in zip(partners, holding))
                if any(reference.is_meld(1 << x | 1 << y | 1 << card) for x, y in itertools.combinations(held, 2)):
                    exact += weight
            assert math.isclose(MODULE.meld_chance_nb(card, model), exact, abs_tol=1e-12), (card, exact)


def reference_saving(hand, model):
    """(cost one stock draw saves, chance it goes gin) of a 10-card hand, by brute force on the reference kernels."""
    chances = held_chances(model)
    dw = reference.deadwood(hand)
    cost = lambda d: d + model[MODULE.M_STEEPNESS] * min(d, model[MODULE.M_STEEP_ZONE])  # noqa: E731
    saving = gin = 0.0
    for card in range(52):
        if not model[MODULE.M_UNSEEN] >> card & 1 or hand >> card & 1:
            continue
        melds_with_two = any(
            reference.is_meld(sum(1 << c for c in pair) | 1 << card)
            for pair in itertools.combinations([c for c in range(52) if hand >> c & 1], 2)
        )
        after = reference.deadwood_after_discard(hand | 1 << card)
        if melds_with_two and after < dw:
            chance = (1 - chances[card]) / model[MODULE.M_STOCK]
            saving += chance * (cost(dw) - cost(after))
            gin += chance * (after == 0)
    return saving, gin


DENSE_HANDS = ("4h 5h 6h 7h 7s 7d 9c 9d 2s 3s", "4h 5h 6h 7h 7s 7d 9c 9d 9s 2s")  # the second is one card off gin


def meld_dense_or_random_hands(n, seed):
    """(k, view, hand): every other hand of ``random_positions`` replaced by one rich in melds."""
    for k, view in enumerate(random_positions(n, seed)):
        if k % 2:
            view[L.V_HAND] = parse_hand(DENSE_HANDS[k // 2 % 2])
            view[L.V_PILE_MASK] &= ~view[L.V_HAND]
        yield k, view, int(view[L.V_HAND])


def test_draw_saving_against_the_reference():
    """Every card melding with two of the hand, tried with the best discard after it, weighted by its stock chance."""
    for k, view, hand in meld_dense_or_random_hands(80, seed=3):
        model = MODULE.opponent_model_nb(view, DEFAULTS)
        saving, gin = reference_saving(hand, model)
        # The take decision looks the outs up in the table of the hand with the pile top taken.
        taken = hand | 1 << int(view[L.V_PILE + view[L.V_PILE_SIZE] - 1]) if k % 4 == 0 else hand
        got = MODULE.draw_saving_nb(hand, reference.deadwood(hand), model, out_table(taken, model))
        assert math.isclose(got[0], saving, abs_tol=1e-9) and math.isclose(got[1], gin, abs_tol=1e-12)


@pytest.mark.parametrize("horizon", [99, 1])
def test_hand_value_against_the_reference(horizon):
    """Cost less the look-ahead's saving and the gin chance's worth; at horizon 1 the look-ahead has faded to 0
    (the value skips the outs that cannot go gin) and a gin weight of 60 makes every gin out count."""
    params = strategy.resolve("expert", {"lookahead_horizon": horizon, "gin_weight": 60}).vector()
    gin_seen = 0
    for _, view, hand in meld_dense_or_random_hands(80, seed=5):
        model = MODULE.opponent_model_nb(view, params)
        assert (model[MODULE.M_LOOKAHEAD] == 0) == (horizon == 1)
        saving, gin = reference_saving(hand, model)
        dw = reference.deadwood(hand)
        cost = dw + model[MODULE.M_STEEPNESS] * min(dw, model[MODULE.M_STEEP_ZONE])
        expected = cost - model[MODULE.M_LOOKAHEAD] * saving - params[MODULE.GIN_WEIGHT] * gin
        assert math.isclose(MODULE.hand_value_nb(hand, dw, model, out_table(hand, model)), expected, abs_tol=1e-9)
        gin_seen += gin > 0
    assert gin_seen > 10


def positions_after_a_draw(n, seed):
    """Views holding 11 cards (a stock card drawn), the meld-dense hand among them, with their models."""
    rng = np.random.default_rng(seed)
    for k, view in enumerate(random_positions(n, seed)):
        if k % 3 == 0:
            view[L.V_HAND] = parse_hand("4h 5h 6h 7h 7s 7d 9c 9d 2s 3s")
            view[L.V_PILE_MASK] &= ~view[L.V_HAND]
            view[L.V_TAKEN + 1] &= ~view[L.V_HAND]
        free = [c for c in range(52) if not (view[L.V_HAND] | view[L.V_PILE_MASK] | view[L.V_TAKEN + 1]) >> c & 1]
        view[L.V_HAND] |= 1 << int(rng.choice(free))
        yield view, MODULE.opponent_model_nb(view, DEFAULTS)


def every_discard_tried(hand, allowed, model, params):
    """(card, worth) of the search without bounds: every discard within slack valued in full."""
    dws = {c: reference.deadwood(hand & ~(1 << c)) for c in range(52) if (allowed & hand) >> c & 1}
    least = min(dws.values())
    best = None
    for card, dw in dws.items():
        if dw > least + params[MODULE.SLACK]:
            continue
        kept = hand & ~(1 << card)
        worth = MODULE.hand_value_nb(kept, dw, model, out_table(kept, model))
        if params[MODULE.DANGER_WEIGHT] != 0:
            worth += params[MODULE.DANGER_WEIGHT] * MODULE.meld_chance_nb(card, model)
        key = (worth, -((card % 13) * 4 + card // 13))
        best = min(best or key + (card,), key + (card,))
    return best[2], best[0]


@pytest.mark.parametrize(
    "changes", [{}, {"lookahead": 8, "gin_weight": 60}, {"danger_weight": 0, "slack": 20}, {"lookahead_horizon": 1}]
)
def test_the_bounded_search_finds_what_trying_every_discard_finds(changes):
    """Same card and the same worth to the last bit; with a ceiling, exact up to it and above it otherwise."""
    params = strategy.resolve("expert", changes).vector()
    for view, _ in positions_after_a_draw(150, seed=10):
        model = MODULE.opponent_model_nb(view, params)
        hand = int(view[L.V_HAND])
        for allowed in (hand, hand & ~(hand & -hand)):  # any card, or all but one (a card just taken)
            card, worth = every_discard_tried(hand, allowed, model, params)

            def search(*ceiling):
                table = out_table(hand, model)
                candidates = (np.empty(52, dtype=np.int64), np.empty(52), np.empty(52), np.empty(52))
                gains = np.empty((2, MODULE.TABLE_SIZE), dtype=np.int64)
                found = MODULE.discard_candidates_nb(hand, allowed, model, params[MODULE.SLACK], table, candidates)
                return MODULE.best_kept_hand_nb(hand, found, candidates, model, table, gains, (0, 0, 0, 0), *ceiling)

            assert search() == (card, worth)
            assert search(worth) == (card, worth)
            assert search(worth - 1.0)[1] > worth - 1.0


def test_the_bounds_hold_for_every_out():
    """What an out takes off a hand's value is at most out_bound_nb; the partners' value is the heaviest meld's.

    The bounds are those of the search: from the table of the 11-card hand the kept hand came from.
    """
    params = DEFAULTS.copy()
    params[MODULE.GIN_WEIGHT] = 60.0  # gin chances weigh in too
    outs_seen = 0
    for view, _ in positions_after_a_draw(150, seed=11):
        model = MODULE.opponent_model_nb(view, params)
        eleven = int(view[L.V_HAND])
        hand = eleven & ~(eleven & -eleven)
        table = out_table(eleven, model)
        dw = reference.deadwood(hand)
        now = MODULE.cost_nb(dw, model)
        floor = MODULE.deadwood_floor_nb(hand, dw)
        assert floor <= reference.deadwood_after_discard(hand)
        outs = int(MODULE.meld_outs_nb(hand)) & int(model[MODULE.M_UNSEEN])
        for card in (c for c in range(52) if outs >> c & 1):
            heaviest = max(
                reference.hand_value(meld & ~(1 << card))
                for meld in reference.melds_in(hand | 1 << card)
                if meld >> card & 1
            )
            assert table[1][card] >= MODULE.meld_partners_value_nb(hand, card) >= heaviest
            after = reference.deadwood_after_discard(hand | 1 << card)
            saving, gin = MODULE.saving_after_nb(after, dw, now, card, model, table)
            taken_off = model[MODULE.M_LOOKAHEAD] * saving + params[MODULE.GIN_WEIGHT] * gin
            assert MODULE.out_bound_nb(dw, floor, now, card, model, table) >= taken_off - 1e-12
            outs_seen += 1
    assert outs_seen > 500


def isolated_high_pile_tops(n, seed):
    """(view, hand, top): ``random_positions`` with, on the pile, a card of no rank of the hand and of no rank within
    two of the hand's in its suit, worth at least every card of the hand (when the deal has one)."""
    for k, view, hand in meld_dense_or_random_hands(n, seed):
        near = int(MODULE.neighbours_nb(hand)) | hand | int(view[L.V_TAKEN + 1])
        high = MODULE.highest_value_nb(hand)
        tops = [c for c in range(52) if not near >> c & 1 and min(c % 13 + 1, 10) >= high]
        if tops:
            top = tops[k % len(tops)]
            view[L.V_PILE + view[L.V_PILE_SIZE] - 1] = top
            view[L.V_PILE_MASK] |= 1 << top
            yield view, hand, top


@pytest.mark.parametrize(
    "changes, searched", [({}, False), ({"lookahead": 8, "gin_weight": 60}, True), ({"lookahead_horizon": 1}, False)]
)
def test_a_pile_card_never_taken_cannot_beat_a_stock_draw(changes, searched):
    """Where ``never_taken_nb`` skips the search, every hand kept after taking the card is worth at least the
    hand expected after a stock draw (what ``take_nb`` compares), valued by brute force. With a look-ahead of 8
    the chance of an out is too large in some positions: those are searched."""
    params = strategy.resolve("expert", changes).vector()
    fired = passed = 0
    for view, hand, top in isolated_high_pile_tops(60, seed=12):
        model = MODULE.opponent_model_nb(view, params)
        dw = reference.deadwood(hand)
        assert MODULE.deadwood_after_discard_fast_nb(hand | 1 << top) == dw
        if not MODULE.never_taken_nb(hand, top, model):
            passed += 1
            continue
        fired += 1
        saving, gin = reference_saving(hand, model)
        cost = dw + model[MODULE.M_STEEPNESS] * min(dw, model[MODULE.M_STEEP_ZONE])
        after_draw = cost - (model[MODULE.M_LOOKAHEAD] + 1) * saving - params[MODULE.GIN_WEIGHT] * gin
        for card in (c for c in range(52) if hand >> c & 1):
            kept = hand & ~(1 << card) | 1 << top
            worth = MODULE.hand_value_nb(kept, reference.deadwood(kept), model, out_table(kept, model))
            worth += params[MODULE.DANGER_WEIGHT] * MODULE.meld_chance_nb(card, model)
            assert worth >= after_draw - 1e-9, (hand, top, card)
        assert MODULE.take_nb(view, params) == 0
    assert fired > 10 and (passed > 0) == searched


def test_the_discard_remembered_after_a_take_is_the_one_a_search_finds():
    checked = 0
    for view in random_positions(300, seed=4):
        if MODULE.decide_nb(L.D_DRAW, view, DEFAULTS) != 1:
            continue
        top = int(view[L.V_PILE + view[L.V_PILE_SIZE] - 1])
        # What the engine does after a take: the card joins the hand and may not go straight back.
        view[L.V_HAND] |= 1 << top
        view[L.V_PILE_SIZE] -= 1
        view[L.V_PILE_MASK] &= ~(1 << top)
        view[L.V_FORBIDDEN] = top
        view[L.V_DRAWS] += 1
        remembered = MODULE.decide_nb(L.D_DISCARD, view, DEFAULTS)
        assert remembered == view[MODULE.MEMORY + MODULE.MEMORY_DISCARD] % MODULE.TAKE_TURN  # the memory answered
        later = view.copy()
        view[L.V_MEMORY : L.V_MEMORY + L.N_MEMORY] = 0
        view[L.V_DRAWS] -= 1  # the model as the take saw it (its look-ahead fades with the draws)
        assert MODULE.decide_nb(L.D_DISCARD, view, DEFAULTS) == remembered != top
        # The same hand at a later turn (a search declined this take, took the card back later): the card
        # remembered may be the one just taken now; the memory answers only the turn it was written for.
        later[L.V_DRAWS] += 2
        later[L.V_FORBIDDEN] = remembered
        assert MODULE.decide_nb(L.D_DISCARD, later, DEFAULTS) != remembered
        checked += 1
    assert checked > 20


def check_remembered_gains(view):
    """The gains a decision left in the view are the kept hand's exact ones, and the next take's saving uses them."""
    kept, known = int(view[MODULE.MEMORY + MODULE.MEMORY_KEPT]), int(view[MODULE.MEMORY + MODULE.MEMORY_OUTS])
    low, high = view[MODULE.MEMORY + MODULE.MEMORY_GAINS_LOW], view[MODULE.MEMORY + MODULE.MEMORY_GAINS_HIGH]
    dw = reference.deadwood(kept)
    for card in (c for c in range(52) if known >> c & 1):
        after = reference.deadwood_after_discard(kept | 1 << card)
        assert MODULE.remembered_gain_nb(known, low, high, 1 << card) == max(dw - after, 0)
    model = MODULE.opponent_model_nb(view, DEFAULTS)
    table = out_table(kept, model)
    remembered = MODULE.draw_saving_nb(kept, dw, model, table, known, low, high)
    assert remembered == MODULE.draw_saving_nb(kept, dw, model, table)
    value = MODULE.hand_value_nb(kept, dw, model, table, np.inf, 0.0, None, known, low, high)
    assert value == MODULE.hand_value_nb(kept, dw, model, table)
    return bin(known).count("1")


def test_the_gains_remembered_for_the_next_take_are_exact():
    """After a search (a discard, or a take with its discard) the view holds the kept hand's outs and their gains."""
    remembered = 0
    for view, _ in positions_after_a_draw(100, seed=12):
        card = MODULE.decide_nb(L.D_DISCARD, view, DEFAULTS)
        assert view[MODULE.MEMORY + MODULE.MEMORY_KEPT] == view[L.V_HAND] & ~(1 << card)
        remembered += check_remembered_gains(view)
    for view in random_positions(200, seed=13):
        if MODULE.decide_nb(L.D_DRAW, view, DEFAULTS) == 1:
            remembered += check_remembered_gains(view)
    assert remembered > 500


def test_a_take_that_draws_from_the_stock_remembers_every_out_of_the_hand():
    """Declined after weighing a stock draw: the view holds all the hand's outs with their exact gains, for the
    discard that follows (it may keep the same hand) and the next take."""
    declined = 0
    for view in random_positions(300, seed=14):
        hand = int(view[L.V_HAND])
        if MODULE.decide_nb(L.D_DRAW, view, DEFAULTS) != 0 or view[MODULE.MEMORY + MODULE.MEMORY_KEPT] != hand:
            continue  # taken, or declined before the stock draw was weighed
        outs = int(MODULE.meld_outs_nb(hand)) & int(MODULE.opponent_model_nb(view, DEFAULTS)[MODULE.M_UNSEEN])
        assert check_remembered_gains(view) == min(bin(outs).count("1"), MODULE.MOST_REMEMBERED)
        declined += 1
    assert declined > 50


def own_draws_at_knock(hands, seat):
    """The knocker drew last and seats alternate after the first draw: seat ``seat``'s draws when it knocked."""
    mine = hands.filter((hands["knocker"] == seat) & hands["outcome"].is_in(["knock", "undercut"]))
    return np.ceil(mine["draws"].to_numpy() / 2)


def test_knocks_only_early_then_only_gin():
    early = int(DEFAULTS[MODULE.EARLY_DRAWS])
    for seat in (0, 1):
        seats = ["expert", "greedy"] if seat == 0 else ["greedy", "expert"]
        hands = simulate(Rules(), strategies=seats, hands=3000, seed=5).hands
        draws = own_draws_at_knock(hands, seat)
        assert draws.size > 20 and draws.max() <= early + 1  # the first offer may add a draw for the non-dealer


def test_the_score_makes_it_knock():
    """finish_points: with the target in reach every legal knock is taken, so more knocks than at 0-0."""
    rules = Rules(target_score=10)
    plain = simulate(rules, strategies=["expert(finish_points=0)", "greedy"], hands=2000, seed=6).hands
    finishing = simulate(rules, strategies=["expert(finish_points=10)", "greedy"], hands=2000, seed=6).hands
    knocks = [own_draws_at_knock(h, 0).size for h in (plain, finishing)]
    assert knocks[1] > 2 * knocks[0]


def paired_gain(a, b, rules, hands, seed):
    first = simulate(rules, strategies=[a, b], hands=hands, seed=seed).hands
    second = simulate(rules, strategies=[b, a], hands=hands, seed=seed).hands
    d = 0.5 * ((first["points_0"] - first["points_1"]).to_numpy() + (second["points_1"] - second["points_0"]).to_numpy())
    return d.mean(), d.std(ddof=1) / math.sqrt(hands)


@pytest.mark.slow
@pytest.mark.parametrize(
    "opponent, preset", [("defensive", "seeds"), ("score_aware", "north_american"), ("eaai", "eaai")]
)
def test_expert_beats_the_strong_baselines(opponent, preset):
    mean, se = paired_gain("expert", opponent, Rules.preset(preset), 4000, seed=8)
    assert mean - 3 * se > 0, (mean, se)


@pytest.mark.slow
def test_each_component_adds_strength():
    """The look-ahead, danger and card-tracking parts, switched off together, cost points against eaai."""
    rules = Rules.preset("eaai")
    full, _ = paired_gain("expert", "eaai", rules, 4000, seed=9)
    plain, se = paired_gain("expert:expert_plain", "eaai", rules, 4000, seed=9)
    assert full - plain > 3 * se, (full, plain, se)


def test_the_strategies_command_explains_expert():
    from click.testing import CliRunner

    from oklasim.cli import main

    result = CliRunner().invoke(main, ["strategies", "expert"])
    assert result.exit_code == 0 and "Card tracking" in result.output and "lookahead = " in result.output
    assert "greedy:" not in result.output
    unknown = CliRunner().invoke(main, ["strategies", "experts"])
    assert unknown.exit_code != 0 and "unknown family 'experts'" in unknown.output
