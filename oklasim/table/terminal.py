"""``oklasim play``: a person plays whole games against a bot in the terminal.

The person's seat (``PersonSeat``) shows what the person may see (their
hand sorted into melds with its deadwood, the pile, the knock limit, the
score), reads typed moves and refuses illegal ones with the reason. The
game is a ``Table`` (``oklasim.table.referee``) between that seat and an agent.
A game is fixed by its seed, the rules, the bot and the person's moves, so
saving it is writing those down (after every move, atomically) and resuming
is replaying them.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Callable
from pathlib import Path

from oklasim.agent import Agent
from oklasim.agent.seat import Turn
from oklasim.errors import OklasimError
from oklasim.game import melds
from oklasim.game.cards import card_value, cards_of, format_card, format_hand, mask_of, parse_card
from oklasim.game.rules import Rules
from oklasim.strategies.registry import resolve
from oklasim.table.referee import AgentSeat, Table, knock_legal

SAVE_FORMAT = 1
HELP = """moves: at the upcard offer 't' (take) or 'p' (pass); at a draw 'p' (pile) or 's' (stock);
after the draw a card to discard ('Kd'), 'knock Kd' to knock (or go gin) discarding it, 'big gin' when offered.
any time: 'hand' shows the table again, 'help' this text, 'quit' stops (the game is saved with --save)."""


class Quit(Exception):
    """The person stopped the game."""


def arranged(hand: int) -> str:
    """The hand sorted into melds (best arrangement) then its deadwood cards: '[2h 3h 4h] [7s 7d 7h] Jc 5d  deadwood 15'."""
    best = melds.optimal_arrangements(hand)[0]
    loose = hand
    for meld in best:
        loose &= ~meld
    groups = [f"[{format_hand(m)}]" for m in best]
    rest = sorted(cards_of(loose), key=lambda c: (-card_value(c), c))
    return " ".join(groups + [format_card(c) for c in rest]) + f"   deadwood {sum(map(card_value, rest))}"


class PersonSeat:
    """The person's seat: protocol events shown as text, decisions read from typed moves."""

    def __init__(self, rules: Rules, bot_name: str, ask: Callable[[str], str], say: Callable[[str], None],
                 saved: list[str] = (), coach: Callable[["PersonSeat"], list[str]] | None = None,
                 on_move: Callable[[list[str]], None] | None = None):
        self.rules = rules
        self.bot = bot_name
        self.ask_raw, self.say_raw = ask, say
        self.saved = list(saved)  # the moves of a saved game, replayed before asking
        self.position = 0
        self.moves: list[str] = []  # every accepted move of the game so far
        self.coach = coach
        self.on_move = on_move
        self.seat = 0
        self.hand = 0
        self.pile: list[int] = []
        self.upcard = 0
        self.limit = 0
        self.scores = [0, 0]
        self.stock = 0
        self.dealer = 0
        self.taken = None  # the card just taken from the pile
        self.opponent_took = 0  # cards the bot took from the pile and still holds
        self.hand_number = 0
        self.must_knock = False  # took the last discard at the wall (fiftieth-card rule)

    # -- output ---------------------------------------------------------------------------

    def say(self, text: str) -> None:
        if not self.replaying:
            self.say_raw(text)

    def show(self) -> None:
        limit = "gin only" if self.limit == 0 else f"knock limit {self.limit}"
        self.say(f"\n-- hand {self.hand_number + 1} · you {self.scores[self.seat]}, {self.bot} {self.scores[1 - self.seat]}"
                 f" (game to {self.rules.target_score}) · {limit} (upcard {format_card(self.upcard)}) · stock {self.stock} --")
        pile = " ".join(format_card(c) for c in self.pile[-8:])
        self.say(f"pile      {'... ' if len(self.pile) > 8 else ''}{pile}   (top {format_card(self.pile[-1])})" if self.pile
                 else "pile      empty")
        if self.opponent_took:
            self.say(f"{self.bot} holds {format_hand(self.opponent_took)} (taken from the pile)")
        self.say(f"your hand {arranged(self.hand)}")

    # -- events ---------------------------------------------------------------------------

    def tell(self, m: dict) -> None:
        kind = m["type"]
        me = m.get("seat") == self.seat
        who = "you" if me else self.bot
        if kind == "new_hand":
            self.seat, self.dealer, self.hand_number = m["seat"], m["dealer"], m["hand_number"]
            self.hand = mask_of(parse_card(c) for c in m["hand"])
            self.upcard = parse_card(m["upcard"])
            self.pile, self.scores = [self.upcard], m["scores"]
            self.limit = self.rules.knock_limit(self.upcard)
            self.stock = 52 - 2 * self.rules.hand_size - 1
            self.opponent_took = 0
            dealer = "you deal" if self.dealer == self.seat else f"{self.bot} deals"
            self.say(f"\n=== hand {self.hand_number + 1}: {dealer}; the upcard is {format_card(self.upcard)} ===")
        elif kind == "pass":
            self.say(f"{who} {'pass' if me else 'passes'} the upcard")
        elif kind == "draw":
            card = parse_card(m["card"]) if m["card"] else None
            if m["from"] == "pile":
                self.pile.pop()
                if not me:
                    self.opponent_took |= 1 << card
            else:
                self.stock -= 1
            if me:
                self.hand |= 1 << card
                self.taken = card if m["from"] == "pile" else None
                self.say(f"you {'take' if m['from'] == 'pile' else 'draw'} {format_card(card)}")
            else:
                self.say(f"{self.bot} takes {format_card(card)} from the pile" if card is not None
                         else f"{self.bot} draws from the stock")
        elif kind == "discard":
            card = parse_card(m["card"])
            self.pile.append(card)
            if me:
                self.hand &= ~(1 << card)
            else:
                self.opponent_took &= ~(1 << card)
            self.say(f"{who} {'discard' if me else 'discards'} {format_card(card)}")
        elif kind == "knock":
            what = "gin" if m["deadwood"] == 0 else f"a knock with {m['deadwood']} deadwood"
            self.say(f"{who} {'go' if me else 'goes'} down: {what}, laying {' '.join('[' + ' '.join(x) + ']' for x in m['melds'])}")
        elif kind == "layoff":
            laid = " ".join(m["cards"]) or "nothing"
            self.say(f"{who} {'lay' if me else 'lays'} off {laid}; deadwood {m['deadwood']}")
        elif kind == "final_hand" and not me:
            self.say(f"{self.bot}'s hand: {arranged(mask_of(parse_card(c) for c in m['hand']))}")
        elif kind == "hand_over":
            self.say(self.hand_summary(m))
        elif kind == "game_over":
            won = "nobody wins" if m["winner"] is None else "you win" if m["winner"] == self.seat else self.bot + " wins"
            self.say(f"\n*** game over: {won}; totals you {m['totals'][self.seat]}, {self.bot} {m['totals'][1 - self.seat]} ***")

    def hand_summary(self, m: dict) -> str:
        if m["winner"] is None:
            return f"the hand is {'void' if m['outcome'] != 'tie' else 'a tie'}: nobody scores"
        who = "you" if m["winner"] == self.seat else self.bot
        return (f"{m['outcome']}: {who} {'score' if who == 'you' else 'scores'} {m['points'][m['winner']]}; "
                f"score you {m['scores'][self.seat]}, {self.bot} {m['scores'][1 - self.seat]}")

    # -- decisions ------------------------------------------------------------------------

    def take_upcard(self) -> bool:
        self.show()
        answer = self.choose(f"take the upcard {format_card(self.upcard)}? [t]ake / [p]ass > ",
                             {"t": "take", "take": "take", "p": "pass", "pass": "pass"})
        return answer == "take"

    def draw(self) -> str:
        self.show()
        top = format_card(self.pile[-1])
        if self.stock <= 2:
            answer = self.choose(f"the wall: take {top} only to knock [p], or let the hand be void [n] > ",
                                 {"p": "pile", "pile": "pile", "n": "none", "none": "none"})
            self.must_knock = answer == "pile"
            return answer
        return self.choose(f"draw: [p]ile ({top}) / [s]tock > ", {"p": "pile", "pile": "pile", "s": "stock", "stock": "stock"})

    def play_turn(self) -> Turn:
        self.show()
        forbidden = self.taken if self.taken is not None and not self.rules.discard_taken_card else None
        knocks = [c for c in cards_of(self.hand) if c != forbidden and knock_legal(self.hand, c, self.limit)[0]]
        big_gin = self.rules.big_gin and melds.deadwood([self.hand])[0] == 0
        if knocks or big_gin:
            options = ", ".join(f"{format_card(c)} (deadwood {knock_legal(self.hand, c, self.limit)[1]})" for c in knocks)
            self.say(f"you may knock: discarding {options}" + ("; or big gin" if big_gin else ""))
            if self.coach is not None and not self.replaying:
                for line in self.coach(self):
                    self.say("  coach | " + line)
        while True:
            text = self.read("discard a card, or 'knock CARD' > ")
            try:
                turn = self.parse_turn(text, forbidden, big_gin)
            except ValueError as exc:
                self.refuse(str(exc))
                continue
            self.accept(text)
            self.must_knock = False
            return turn

    def parse_turn(self, text: str, forbidden: int | None, big_gin: bool) -> Turn:
        words = text.split()
        lowered = [w.lower() for w in words]
        if lowered in (["big", "gin"], ["biggin"]):
            if not big_gin:
                raise OklasimError("big gin needs all 11 cards melded" + ("" if self.rules.big_gin else ", and these rules do not play it"))
            return Turn(None, True, self.choose_melds(self.hand), 0)
        knock = bool(words) and lowered[0] in ("knock", "gin", "k")
        if knock:
            words = words[1:]
        if len(words) != 1:
            raise OklasimError("name one card, e.g. 'Kd' or 'knock Kd'")
        card = parse_card(words[0])
        if not self.hand >> card & 1:
            raise OklasimError(f"you do not hold {format_card(card)}")
        if card == forbidden:
            raise OklasimError(f"you may not discard {format_card(card)}: you just took it from the pile")
        if not knock:
            if self.must_knock:
                raise OklasimError("you took the last discard to knock: knock now")
            return Turn(card, False)
        legal, dw = knock_legal(self.hand, card, self.limit)
        if not legal:
            limit = "this hand is gin only" if self.limit == 0 else f"the knock limit is {self.limit}"
            raise OklasimError(f"you cannot knock discarding {format_card(card)}: {dw} deadwood left, {limit}")
        return Turn(card, True, self.choose_melds(self.hand & ~(1 << card)), dw)

    def choose_melds(self, hand: int) -> tuple[int, ...]:
        options = melds.optimal_arrangements(hand)
        if len(options) == 1 or melds.deadwood([hand])[0] == 0:
            return options[0]
        self.say("lay which melds? (the same deadwood; your opponent lays off against them)")
        for k, option in enumerate(options, 1):
            self.say(f"  {k}: {' '.join('[' + format_hand(m) + ']' for m in option)}")
        picked = self.choose(f"1-{len(options)} > ", {str(k): k - 1 for k in range(1, len(options) + 1)})
        return options[picked]

    # -- reading moves --------------------------------------------------------------------

    @property
    def replaying(self) -> bool:
        return self.position < len(self.saved)

    def choose(self, prompt: str, answers: dict):
        while True:
            text = self.read(prompt)
            key = text.strip().lower()
            if key in answers:
                self.accept(key)
                return answers[key]
            self.refuse(f"{text.strip()!r} is not one of: {', '.join(k for k in answers if len(k) <= 2)}")

    def read(self, prompt: str) -> str:
        """The next move: from the saved game while replaying, else typed (commands handled here)."""
        if self.replaying:
            self.position += 1
            return self.saved[self.position - 1]
        while True:
            text = self.ask_raw(prompt).strip()
            command = text.lower()
            if command == "help":
                self.say(HELP)
            elif command == "hand":
                self.show()
            elif command == "quit":
                raise Quit
            elif text:
                return text

    def accept(self, move: str) -> None:
        self.moves.append(move)
        if self.on_move is not None and not self.replaying:
            self.on_move(self.moves)

    def refuse(self, reason: str) -> None:
        if self.replaying:
            raise OklasimError(f"the saved game does not replay: {reason}")
        self.say(f"  no: {reason}")


# -- a whole game ---------------------------------------------------------------------------


def coach_lines(person: PersonSeat, opponent: str) -> list[str]:
    """The ``oklasim advise`` table for the person's knock decision (a short time budget)."""
    from oklasim.advise import advise

    pile = list(person.pile)
    try:
        advice = advise(
            format_hand(person.hand), upcard=format_card(person.upcard), pile=[format_card(c) for c in pile],
            opponent_took=format_hand(person.opponent_took) or (), took=format_card(person.taken) if person.taken is not None else None,
            stock=person.stock, scores=(person.scores[person.seat], person.scores[1 - person.seat]), rules=person.rules,
            dealer="me" if person.dealer == person.seat else "opponent", opponent=opponent, max_seconds=3.0, seed=1,
        )
    except ValueError as exc:
        return [f"(no advice here: {exc})"]
    return advice.lines()


def write_save(path: Path, record: dict) -> None:
    """The saved game, written whole to a temporary name and renamed: an interruption never leaves half a file."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(record, indent=1) + "\n")
    os.replace(temporary, path)


def load_save(path: Path) -> dict:
    try:
        record = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise OklasimError(f"cannot read the saved game {path}: {exc}") from None
    fields = {"format", "against", "rules", "seed", "moves"}
    if not isinstance(record, dict) or not fields <= record.keys() or record["format"] != SAVE_FORMAT:
        raise OklasimError(f"{path} is not a game saved by oklasim play (format {SAVE_FORMAT})")
    return record


def play(rules: Rules | None = None, against: str = "simple", seed: int | None = None, save: str | None = None,
         resume: str | None = None, coach: bool = False, ask: Callable[[str], str] = input,
         say: Callable[[str], None] = print) -> dict | None:
    """Play one game in the terminal; returns the result, or None if the person quit."""
    saved: list[str] = []
    if resume:
        record = load_save(Path(resume))
        if record.get("finished"):
            raise OklasimError(f"the game saved in {resume} is over; start a new one")
        rules, against, seed, saved = Rules.from_dict(record["rules"]), record["against"], record["seed"], record["moves"]
        save = save or resume
    rules = rules or Rules()
    seed = secrets.randbelow(2**31) if seed is None else seed
    strategy = resolve(against)
    save_path = Path(save) if save else None
    if save_path is not None and not save_path.parent.is_dir():
        raise OklasimError(f"cannot save to {save_path}: no folder {save_path.parent}")

    def on_move(moves: list[str], finished: bool = False) -> None:
        if save_path is not None:
            write_save(save_path, {"format": SAVE_FORMAT, "against": against, "rules": rules.to_dict(), "seed": seed,
                                   "moves": moves, "finished": finished})

    person = PersonSeat(rules, strategy.name, ask, say, saved, coach=(lambda p: coach_lines(p, against)) if coach else None,
                        on_move=on_move)
    table = Table(rules, [person, AgentSeat(Agent(rules, strategy, seed))], seed)
    if saved:
        say(f"resuming the game from {resume}: {len(saved)} moves replayed")
    say(f"you play {strategy.name} under the {rules_label(rules)} rules; type 'help' for the moves")
    try:
        result = table.play_game()
    except Quit:
        say(f"stopped; the game is saved in {save_path} (oklasim play --resume {save_path})" if save_path
            else "stopped (use --save FILE to keep a game)")
        return None
    on_move(person.moves, finished=True)
    return result


def rules_label(rules: Rules) -> str:
    from oklasim.game.rules import PRESETS

    for name in PRESETS:
        if Rules.preset(name) == rules:
            return name
    return "custom"
