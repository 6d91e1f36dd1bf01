import pytest

from oklasim._kernels import layout as L
from oklasim.game.rules import PRESETS, Rules, field_names


def test_defaults_are_the_seeds_preset():
    rules = Rules()
    assert rules == Rules.preset("seeds")
    assert (rules.gin_bonus, rules.undercut_bonus, rules.tie_rule, rules.ace_upcard) == (25, 10, "undercut", "gin_only")
    assert (rules.spade_double, rules.big_gin, rules.wall_rule, rules.dealer_rule) == (False, False, "void", "winner")
    assert (rules.target_score, rules.box_bonus, rules.game_bonus, rules.shutout_rule) == (100, 0, 0, "none")
    assert (rules.players, rules.hand_size, rules.discard_taken_card) == (2, 10, False)


def test_presets_differ_as_rules_md_says():
    na = Rules.preset("north_american")
    assert (na.undercut_bonus, na.box_bonus, na.game_bonus, na.shutout_rule) == (25, 25, 100, "double_bonus")
    pagat = Rules.preset("pagat")
    assert (pagat.gin_bonus, pagat.undercut_bonus, pagat.box_bonus, pagat.game_bonus) == (20, 10, 20, 100)
    assert (pagat.spade_double, pagat.target_score, pagat.shutout_rule) == (True, 150, "double_bonus")
    os_ = Rules.preset("openspiel")
    assert (os_.single_hand, os_.undercut_bonus, os_.tie_rule) == (True, 25, "no_score")
    assert (os_.wall_rule, os_.discard_taken_card) == ("fiftieth_card", True)
    eaai = Rules.preset("eaai")  # shared/peers/RULES-EAAI.md
    assert (eaai.oklahoma, eaai.knock_limit("As"), eaai.knock_limit("3d"), eaai.big_gin) == (False, 10, 10, False)
    assert (eaai.gin_bonus, eaai.undercut_bonus, eaai.tie_rule, eaai.discard_taken_card) == (25, 25, "undercut", False)
    assert (eaai.wall_rule, eaai.dealer_rule, eaai.target_score) == ("void", "alternate", 100)
    assert (eaai.box_bonus, eaai.game_bonus, eaai.shutout_rule, eaai.single_hand) == (0, 0, "none", False)


@pytest.mark.parametrize("upcard, limit", [("As", 0), ("2h", 2), ("6c", 6), ("9d", 9), ("Th", 10), ("Kc", 10)])
def test_knock_limit_from_upcard(upcard, limit):
    assert Rules().knock_limit(upcard) == limit


def test_knock_limit_variants():
    assert Rules(ace_upcard="one").knock_limit("Ad") == 1
    assert Rules(oklahoma=False).knock_limit("3d") == 10
    assert Rules(spade_double=True).score_multiplier("8s") == 2
    assert Rules(spade_double=True).score_multiplier("8h") == 1
    assert Rules().score_multiplier("8s") == 1


@pytest.mark.parametrize("name", list(PRESETS))
def test_round_trips(name):
    rules = Rules.preset(name)
    assert Rules.from_dict(rules.to_dict()) == rules
    assert Rules.from_toml(rules.to_toml()) == rules
    assert Rules.from_toml("[rules]\n" + rules.to_toml()) == rules


def test_toml_with_preset_base(tmp_path):
    path = tmp_path / "house.toml"
    path.write_text('[rules]\npreset = "pagat"\nundercut_bonus = 25\n')
    rules = Rules.load(str(path))
    assert rules == Rules.preset("pagat").replace(undercut_bonus=25)


def test_players_derive_hand_size():
    assert Rules(players=3).hand_size == 7
    assert Rules().replace(players=4).hand_size == 7


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"players": 5}, "played by 2, 3 or 4"),
        ({"tie_rule": "coin"}, "tie_rule='coin' is not one of"),
        ({"gin_bonus": -1}, "gin_bonus=-1 is outside its range 0 to 10,000"),
        ({"gin_bonus": 10**12}, "gin_bonus=1000000000000 is outside its range"),
        ({"box_bonus": 10_001}, "box_bonus=10001 is outside"),
        ({"max_draws": 10**20}, "max_draws=100000000000000000000 is outside"),
        ({"hand_size": 9}, "hand_size=9 with 2 players"),
        ({"fixed_knock_limit": 11}, "fixed_knock_limit=11"),
        ({"single_hand": True, "box_bonus": 20}, "contradict single_hand"),
        ({"shutout_rule": "double_bonus"}, "game_bonus is 0"),
        ({"target_score": 0}, "target_score=0"),
        ({"max_draws": 1}, "max_draws=1"),
        ({"spade_double": "yes"}, "spade_double must be bool"),
        ({"gin_bonus": True}, "gin_bonus must be int"),
        ({"colour": "red"}, "unknown rules field"),
    ],
)
def test_rejects_impossible_rules(changes, message):
    with pytest.raises(ValueError, match=message):
        Rules().replace(**changes)


def test_bad_sources():
    with pytest.raises(ValueError, match="neither a preset"):
        Rules.load("no_such_preset")
    with pytest.raises(ValueError, match="not valid"):
        Rules.from_toml("gin_bonus = = 3")


def test_packed_array_uses_named_slots():
    packed = Rules.preset("openspiel").to_array()
    assert len(packed) == L.N_RULE_FIELDS == len(field_names())
    assert packed[L.R_UNDERCUT_BONUS] == 25
    assert packed[L.R_TIE_RULE] == L.TIE_NO_SCORE
    assert packed[L.R_WALL_RULE] == L.WALL_FIFTIETH_CARD
    assert packed[L.R_SINGLE_HAND] == 1 and packed[L.R_DISCARD_TAKEN_CARD] == 1
