"""The rules of one Oklahoma Gin game: every default, variant and preset of RULES.md.

``Rules()`` is the default (the ``seeds`` preset). Every field is a named
variant with a one-line reason; ``Rules.preset(name)`` gives the presets;
``to_dict``/``from_dict`` and ``to_toml``/``from_toml`` round-trip; and
``to_array`` packs the rules for the kernels (``oklasim._kernels.layout``).

>>> Rules().knock_limit("6h"), Rules().knock_limit("Kd"), Rules().knock_limit("As")
(6, 10, 0)
>>> Rules.preset("pagat").target_score
150
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from oklasim._kernels import layout as L
from oklasim.errors import OklasimError, read_text
from oklasim.game.cards import N_CARDS, SPADES, card_value, parse_card, suit_of

# Enumerated fields: accepted names -> kernel codes.
CHOICES: dict[str, dict[str, int]] = {
    "ace_upcard": {"gin_only": L.ACE_GIN_ONLY, "one": L.ACE_ONE},
    "tie_rule": {"undercut": L.TIE_UNDERCUT, "no_score": L.TIE_NO_SCORE, "knocker_zero": L.TIE_KNOCKER_ZERO},
    "wall_rule": {"void": L.WALL_VOID, "fiftieth_card": L.WALL_FIFTIETH_CARD},
    "dealer_rule": {"winner": L.DEALER_WINNER, "alternate": L.DEALER_ALTERNATE, "loser": L.DEALER_LOSER},
    "shutout_rule": {
        "none": L.SHUTOUT_NONE,
        "double_bonus": L.SHUTOUT_DOUBLE_BONUS,
        "double_total": L.SHUTOUT_DOUBLE_TOTAL,
    },
}

STANDARD_HAND_SIZE = {2: 10, 3: 7, 4: 7}


# Sane ranges of the numeric fields. They keep every score of a hand or a game far inside the int32
# columns of the records: a hand scores at most 2 x (10,000 + 3 x 98) points, a game's total at most
# 2 x (a score of about 31,000 + 1,000 hands x 10,000 box bonus + 2 x 10,000 game bonus), about 2.1e7.
MAX_BONUS = 10_000
MAX_TARGET = 10_000
MAX_DRAWS = 10_000


def _doc(text: str, low: int | None = None, high: int | None = None) -> dict:
    return {"doc": text} if low is None else {"doc": text, "range": (low, high)}


@dataclass(frozen=True)
class Rules:
    """All rule choices of a game. Defaults are the ``seeds`` preset (RULES.md §9)."""

    players: int = field(default=2, metadata=_doc("2 to 4 players (3-4: seed 000's variant, RULES.md §8)"))
    hand_size: int | None = field(
        default=None, metadata=_doc("cards dealt to each player; None = 10 for 2 players, 7 for 3-4")
    )
    oklahoma: bool = field(default=True, metadata=_doc("the first upcard sets the knock limit; False = plain gin"))
    fixed_knock_limit: int = field(default=10, metadata=_doc("knock limit of plain gin (oklahoma=False)", 0, 10))
    ace_upcard: str = field(default="gin_only", metadata=_doc("ace upcard: 'gin_only' (seed 000) or 'one'"))
    spade_double: bool = field(default=False, metadata=_doc("a spade upcard doubles the hand's score"))
    gin_bonus: int = field(default=25, metadata=_doc("bonus for going gin (both seeds: 25)", 0, MAX_BONUS))
    big_gin: bool = field(default=False, metadata=_doc("allow big gin: all 11 cards melded, no discard"))
    big_gin_bonus: int = field(default=31, metadata=_doc("bonus for big gin", 0, MAX_BONUS))
    undercut_bonus: int = field(default=10, metadata=_doc("bonus for an undercut (seed 001: 10)", 0, MAX_BONUS))
    tie_rule: str = field(
        default="undercut",
        metadata=_doc(
            "equal deadwood: 'undercut' (both seeds), 'no_score' (OpenSpiel: nobody wins) "
            "or 'knocker_zero' (knocker wins the hand with 0 points)"
        ),
    )
    discard_taken_card: bool = field(
        default=False, metadata=_doc("may the card just taken from the pile be discarded at once (OpenSpiel: yes)")
    )
    wall_rule: str = field(
        default="void", metadata=_doc("2 cards left in the stock: 'void' hand or 'fiftieth_card' rule")
    )
    dealer_rule: str = field(
        default="winner", metadata=_doc("who deals after a scored hand: 'winner' (seed 001), 'alternate', 'loser'")
    )
    target_score: int = field(default=100, metadata=_doc("cumulative score that ends the game", 1, MAX_TARGET))
    box_bonus: int = field(default=0, metadata=_doc("bonus per hand won, added at game end", 0, MAX_BONUS))
    game_bonus: int = field(default=0, metadata=_doc("bonus for winning the game", 0, MAX_BONUS))
    shutout_rule: str = field(
        default="none",
        metadata=_doc("loser scored nothing: 'none', 'double_bonus' (game bonus x2), 'double_total'"),
    )
    single_hand: bool = field(default=False, metadata=_doc("play one hand only (OpenSpiel's game)"))
    max_draws: int = field(
        default=200,
        metadata=_doc("simulation guard: a hand with more draws is void, outcome 'guard'", 4, MAX_DRAWS),
    )
    deal_knock_limit: int = field(
        default=-1,
        metadata=_doc("simulation: deal every hand's first upcard among the cards giving this knock limit, the rest "
                      "of the deal uniform (studies by knock limit); -1 = any card, as in play", -1, 10),
    )

    def __post_init__(self) -> None:
        if self.hand_size is None and self.players in STANDARD_HAND_SIZE:
            object.__setattr__(self, "hand_size", STANDARD_HAND_SIZE[self.players])
        self._validate()

    # -- validation -----------------------------------------------------------------
    def _validate(self) -> None:
        if self.players not in STANDARD_HAND_SIZE or isinstance(self.players, bool):
            raise OklasimError(f"rules: players={self.players!r}; Oklahoma Gin is played by 2, 3 or 4")
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            wanted = bool if f.type == "bool" else int
            if f.name in CHOICES:
                if value not in CHOICES[f.name]:
                    options = ", ".join(repr(o) for o in CHOICES[f.name])
                    raise OklasimError(f"rules: {f.name}={value!r} is not one of {options}")
            elif not isinstance(value, wanted) or (wanted is int and isinstance(value, bool)):
                raise OklasimError(f"rules: {f.name} must be {wanted.__name__}, got {value!r}")
        if self.hand_size != STANDARD_HAND_SIZE[self.players]:
            raise OklasimError(
                f"rules: hand_size={self.hand_size} with {self.players} players; the rules deal "
                f"{STANDARD_HAND_SIZE[self.players]} cards each (leave hand_size unset)"
            )
        for f in dataclasses.fields(self):
            if "range" in f.metadata:
                low, high = f.metadata["range"]
                if not low <= getattr(self, f.name) <= high:
                    raise OklasimError(f"rules: {f.name}={getattr(self, f.name)} is outside its range {low:,} to {high:,}")
        if self.max_draws < 2 * self.players:
            raise OklasimError(f"rules: max_draws={self.max_draws} is too small for a hand to be played")
        if self.single_hand and (self.box_bonus or self.game_bonus or self.shutout_rule != "none"):
            raise OklasimError("rules: box, game and shutout bonuses need a game; they contradict single_hand=true")
        if self.deal_knock_limit >= 0 and self.deal_knock_limit not in self.knock_limits():
            raise OklasimError(f"rules: deal_knock_limit={self.deal_knock_limit}, but no upcard gives that knock limit "
                               f"under these rules (they give {', '.join(map(str, self.knock_limits()))})")
        if self.shutout_rule == "double_bonus" and not self.game_bonus:
            raise OklasimError("rules: shutout_rule='double_bonus' doubles the game bonus, but game_bonus is 0")

    # -- presets and conversions ----------------------------------------------------------
    @classmethod
    def preset(cls, name: str) -> Rules:
        if name not in PRESETS:
            raise OklasimError(f"unknown rules preset {name!r}; choose from {', '.join(PRESETS)}")
        return cls(**PRESETS[name])

    def replace(self, **changes: Any) -> Rules:
        unknown = set(changes) - set(field_names())
        if unknown:
            raise OklasimError(f"unknown rules field(s) {', '.join(sorted(unknown))}; known: {', '.join(field_names())}")
        if "players" in changes and "hand_size" not in changes:
            changes["hand_size"] = None  # re-derive for the new player count
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        """Rules from a dict; an optional ``preset`` key names the base the other keys change."""
        data = dict(data)
        base = cls.preset(data.pop("preset")) if "preset" in data else cls()
        return base.replace(**data)

    def to_toml(self) -> str:
        lines = []
        for key, value in self.to_dict().items():
            text = "true" if value is True else "false" if value is False else repr(value).replace("'", '"')
            lines.append(f"{key} = {text}")
        return "\n".join(lines) + "\n"

    @classmethod
    def from_toml(cls, text: str) -> Rules:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise OklasimError(f"rules TOML is not valid: {exc}") from None
        return cls.from_dict(data.get("rules", data))

    @classmethod
    def load(cls, spec: str) -> Rules:
        """A preset name or the path of a TOML file (optionally with a ``[rules]`` table)."""
        if spec in PRESETS:
            return cls.preset(spec)
        path = Path(spec)
        if not path.is_file():
            raise OklasimError(f"rules {spec!r} is neither a preset ({', '.join(PRESETS)}) nor a TOML file")
        return cls.from_toml(read_text(path))

    @classmethod
    def of(cls, rules: Rules | str | os.PathLike | dict | None) -> Rules:
        """The rules the public API was given: ``Rules``, a preset name, a TOML file, a table of fields or None (the
        defaults); ``OklasimError`` for anything else."""
        if rules is None:
            return cls()
        if isinstance(rules, cls):
            return rules
        if isinstance(rules, (str, os.PathLike)):
            return cls.load(os.fspath(rules))
        if isinstance(rules, dict):
            return cls.from_dict(rules)
        raise OklasimError(f"rules: give Rules, a preset name ({', '.join(PRESETS)}), a TOML file or a dict of "
                           f"fields, not {rules!r}")

    def to_array(self) -> np.ndarray:
        packed = np.zeros(L.N_RULE_FIELDS, dtype=np.int64)
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            packed[L.RULES.fields[f.name][0]] = CHOICES[f.name][value] if f.name in CHOICES else int(value)
        return packed

    # -- derived quantities -----------------------------------------------------------------
    def knock_limit(self, upcard: int | str) -> int:
        """Highest deadwood allowed to knock in a hand with this first upcard (0 = gin only)."""
        card = parse_card(upcard) if isinstance(upcard, str) else upcard
        if not self.oklahoma:
            return self.fixed_knock_limit
        value = card_value(card)
        if value == 1 and self.ace_upcard == "gin_only":
            return 0
        return value

    def knock_limits(self) -> list[int]:
        """The knock limits the first upcard can give, lowest first."""
        return sorted({self.knock_limit(card) for card in range(52)})

    def score_multiplier(self, upcard: int | str) -> int:
        card = parse_card(upcard) if isinstance(upcard, str) else upcard
        return 2 if self.spade_double and suit_of(card) == SPADES else 1

    @property
    def first_stock(self) -> int:
        """Cards in the stock once the hands are dealt and the first upcard is turned (31 for two players)."""
        return N_CARDS - self.players * self.hand_size - 1


def field_names() -> list[str]:
    return [f.name for f in dataclasses.fields(Rules)]


def field_docs() -> dict[str, str]:
    """Each field's meaning, with its range for numbers."""
    docs = {}
    for f in dataclasses.fields(Rules):
        low_high = f.metadata.get("range")
        docs[f.name] = f.metadata["doc"] + (f" [{low_high[0]:,} to {low_high[1]:,}]" if low_high else "")
    return docs


PRESETS: dict[str, dict[str, Any]] = {
    "seeds": {},
    "north_american": {
        "undercut_bonus": 25,
        "box_bonus": 25,
        "game_bonus": 100,
        "shutout_rule": "double_bonus",
    },
    "pagat": {
        "gin_bonus": 20,
        "undercut_bonus": 10,
        "box_bonus": 20,
        "game_bonus": 100,
        "shutout_rule": "double_bonus",
        "spade_double": True,
        "target_score": 150,
    },
    "openspiel": {
        "single_hand": True,
        "undercut_bonus": 25,
        "tie_rule": "no_score",
        "wall_rule": "fiftieth_card",
        "discard_taken_card": True,
    },
    # The EAAI-21 Gin Rummy challenge's referee (shared/peers/RULES-EAAI.md; seeds/RULES.md §I lists what differs).
    "eaai": {
        "oklahoma": False,
        "fixed_knock_limit": 10,
        "undercut_bonus": 25,
        "dealer_rule": "alternate",
    },
}
