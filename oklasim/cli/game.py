"""`oklasim deadwood`, `layoff` and `rules`: what a hand is worth and what the rules say."""

from __future__ import annotations

import click

from oklasim.cli.options import rules_option
from oklasim.errors import OklasimError
from oklasim.game.cards import format_hand, parse_card, parse_hand
from oklasim.game.rules import PRESETS, STANDARD_HAND_SIZE, Rules, field_docs


@click.command()
@click.argument("hand")
@click.option("--upcard", help="The first upcard, to tell whether the hand may knock.")
@rules_option()
def deadwood(hand: str, upcard: str | None, rules_spec: str) -> None:
    """Deadwood and melds of a 10-card HAND, or best discards of an 11-card one.

    Example: oklasim deadwood "2h 3h 4h 7s 7d 7h Jc Qc Kc 5d 9s" --upcard 6c
    """
    from oklasim.game import melds

    rules = Rules.load(rules_spec)
    limit = rules.knock_limit(parse_card(upcard)) if upcard else None  # checked before anything is printed
    mask = parse_hand(hand, count=(rules.hand_size, rules.hand_size + 1))
    size = mask.bit_count()
    drawn = size > rules.hand_size  # 11 cards: a discard is due
    click.echo(f"hand      {format_hand(mask, by_rank=True)}  ({size} cards)")
    click.echo(f"deadwood  {melds.deadwood([mask])[0]}" + (" with no discard" if drawn else ""))
    for arrangement in melds.optimal_arrangements(mask):
        click.echo("melds     " + (" | ".join(format_hand(m) for m in arrangement) or "none"))
    if drawn:
        after = int(melds.deadwood_after_discard([mask])[0])
        click.echo(f"discard   {format_hand(int(melds.best_discards([mask])[0]))} -> deadwood {after}")
    if upcard:
        verdict = melds.knock_verdict(mask, rules.hand_size, limit)
        click.echo(f"limit     {limit} ({'gin only' if limit == 0 else 'knock limit'}) -> {verdict}")


def _whole_hand(cards: str, option: str) -> int:
    try:
        return parse_hand(cards, count=set(STANDARD_HAND_SIZE.values()))
    except OklasimError as exc:
        raise OklasimError(f"{option}: {exc}") from None


@click.command()
@click.option("--knocker", required=True, help="The knocker's cards after its discard (10, or 7 with 3-4 players).")
@click.option("--defender", required=True, help="The defender's cards (as many as the knocker's).")
def layoff(knocker: str, defender: str) -> None:
    """The defender's deadwood after layoffs, for each optimal arrangement of the knocker."""
    from oklasim.game import melds

    k, d = _whole_hand(knocker, "--knocker"), _whole_hand(defender, "--defender")
    if k.bit_count() != d.bit_count():
        raise OklasimError(f"the knocker holds {k.bit_count()} cards and the defender {d.bit_count()}; both hold a "
                           "whole hand (10 cards, or 7 with 3-4 players)")
    if k & d:
        raise OklasimError(f"cards in both hands: {format_hand(k & d)}")
    click.echo(f"knocker deadwood {melds.deadwood([k])[0]}")
    for arrangement in melds.optimal_arrangements(k):
        dw, laid = melds.layoff_deadwood(arrangement, d)
        shown = " | ".join(format_hand(m) for m in arrangement) or "no melds"
        click.echo(f"{shown:<40} defender lays off {format_hand(laid) or 'nothing':<20} deadwood {dw}")


@click.command("rules")
@click.argument("spec", default="seeds")
@click.option("--list", "list_presets", is_flag=True, help="List the presets and exit.")
def rules_command(spec: str, list_presets: bool) -> None:
    """Print the rules of preset or TOML file SPEC as TOML, each field with its meaning."""
    if list_presets:
        for name, changes in PRESETS.items():
            differs = ", ".join(f"{k}={v}" for k, v in changes.items()) or "the defaults"
            click.echo(f"{name:<15} {differs}")
        return
    docs = field_docs()
    for line in Rules.load(spec).to_toml().splitlines():
        key = line.split(" = ")[0]
        click.echo(f"{line:<32} # {docs[key]}")
