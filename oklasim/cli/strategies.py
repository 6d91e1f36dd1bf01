"""`oklasim strategies`: the strategy families, their parameters and presets."""

from __future__ import annotations

import click

from oklasim.cli.options import strategy_path_option


@click.command("strategies")
@click.argument("family_name", required=False, metavar="[FAMILY]")
@strategy_path_option()
def strategies_command(family_name, strategy_paths) -> None:
    """List the strategy families, their parameters (default and range) and presets.

    With FAMILY, explain that family in full: how it plays, where the idea
    comes from, then its parameters (measured strength: the docs' results page).
    """
    import ast

    from oklasim.strategies.registry import families

    known = families(tuple(strategy_paths))
    if family_name is not None and family_name not in known:
        raise click.BadParameter(f"unknown family {family_name!r}; known: {', '.join(sorted(known))}")
    for name, loaded in sorted(known.items()):
        if family_name not in (None, name):
            continue
        family = loaded.family
        click.echo(f"{name}: {family.doc}")
        click.echo(f"    from {loaded.source}")
        if family_name is not None:
            explained = ast.get_docstring(ast.parse(loaded.source.read_bytes()))
            click.echo("\n" + (explained or "(no module docstring)") + "\n")
        for p in family.params:
            click.echo(f"    {p.name} = {p.spelled(p.default)}  ({p.range_text()})  {p.help}")
        for preset, values in family.presets.items():
            shown = ", ".join(f"{k}={v if isinstance(v, str) else f'{v:g}'}" for k, v in values.items()) or "defaults"
            click.echo(f"    preset {preset}: {shown}")
        if family_name is not None and family.memory:
            click.echo(f"    memory: {family.memory} {family.slots_text()}")
        if family_name is not None and family.game_memory:
            click.echo(f"    game memory: {family.game_memory} {family.slots_text('game_memory')}")
