"""`oklasim policy`: the measured answer to "when should I knock?" for exactly the rules asked, with its basis.

A policy table is the ``policy.csv`` of a knock_thresholds study (one row per
undercut bonus, knock limit and answer: the best rule against one opponent,
against the panel's mix, the max-min rule, the equilibrium of the rule game),
or the table shipped in ``oklasim/data``. Rows carry the full rules they were
measured under; a table answers only for identical rules. A ``--quick`` run is
never used unless asked for, and then says so.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from oklasim.errors import OklasimError
from oklasim.game.rules import Rules
from oklasim.runs.storage import read_json, read_table
from oklasim.studies.knock_answers import rule_words

SHIPPED = Path(__file__).resolve().parent / "data" / "knock_policy.csv"
STUDY_KIND = "knock_thresholds"
LIMIT_NAMES = {0: "A (gin only)"}  # knock limits shown by name (an ace upcard: gin only)
ANSWERS = ("mix", "max-min", "equilibrium")
# The columns of a policy table that its readers use, with their types.
COLUMNS = {"undercut_bonus": pl.Int64, "knock_limit": pl.Int64, "answer": pl.String, "against": pl.String,
           "advice": pl.String, "rules": pl.String, "command": pl.String, "quick": pl.Boolean}


@dataclass(frozen=True)
class Source:
    table: pl.DataFrame
    where: str  # a run folder or the shipped file
    command: str  # what measured it
    quick: bool


# Rules fields that act only between the hands of a game or at its end. A policy table is measured on single hands
# dealt at score 0, so it answers for rules that differ from its own in these alone.
GAME_ONLY = ("dealer_rule", "box_bonus", "game_bonus", "shutout_rule")


def rules_key(rules: Rules) -> str:
    return json.dumps(rules.to_dict(), sort_keys=True)


def hand_key(rules: Rules) -> str:
    """What a policy table's figures depend on: the rules but their game-only fields."""
    return json.dumps({k: v for k, v in rules.to_dict().items() if k not in GAME_ONLY}, sort_keys=True)


def _same_key(stored: str) -> str:
    """A table's rules as ``hand_key`` spells them now (a field added since takes its default)."""
    return hand_key(Rules.from_dict(json.loads(stored)))


def _study_runs(runs_root: Path) -> list[tuple[Path, dict]]:
    """knock_thresholds run folders holding a policy table, newest first."""
    found = []
    for study in Path(runs_root).glob("*/study.json"):
        data = read_json(study, f"delete {study.parent}, or run its study again with --overwrite")
        if isinstance(data, dict) and data.get("kind") == STUDY_KIND and (study.parent / "policy.csv").is_file():
            found.append((study.parent, data))
    return sorted(found, key=lambda item: (item[0] / "policy.csv").stat().st_mtime, reverse=True)


def _runs(runs_root: Path):
    """The policy tables of runs, newest first."""
    for folder, study in _study_runs(runs_root):
        command = f"oklasim run {study.get('source', '?')}" + (" --quick" if study.get("quick") else "")
        table = read_table(folder / "policy.csv", f"{command} writes it again (or delete {folder})", COLUMNS)
        yield Source(table, str(folder), command, bool(study.get("quick")))


def _shipped():
    if SHIPPED.is_file():
        table = read_table(SHIPPED, "reinstall oklasim", COLUMNS)
        yield Source(table, f"the shipped table ({SHIPPED.name})", table["command"][0], bool(table["quick"].any()))


def study_file(rules: Rules) -> str:
    """A knock_thresholds study file that measures the policy under ``rules`` (written by --write-study)."""
    fields = "\n".join(line for line in rules.to_toml().splitlines() if not line.startswith("undercut_bonus"))
    return (
        "# Written by `oklasim policy --write-study`: the knock study under one set of rules.\n"
        "[study]\nkind = \"knock_thresholds\"\ntitle = \"When to knock\"\nseed = 2026\nhands = 2500\n"
        "quick_hands = 60\n\n[rules]\n" + fields + "\n\n[options]\n"
        f"undercut_bonuses = [{rules.undercut_bonus}]\nconfirm_seed = 2027\n"
    )


def lookup(rules: Rules, rules_spec: str, runs_root: Path, quick: bool) -> tuple[Source, pl.DataFrame]:
    """The first table measured under ``rules`` (but for their ``GAME_ONLY`` fields) and its rows; a ValueError saying
    what to run if none is."""
    skipped: list[str] = []  # quick runs under these rules, used only when asked for
    key = hand_key(rules)
    for source in itertools.chain(_runs(runs_root), _shipped()):
        rows = source.table.filter(pl.col("rules").map_elements(_same_key, return_dtype=pl.String) == key)
        if rows.height and source.quick and not quick:
            skipped.append(source.where)
        elif rows.height:
            return source, rows
    hint = ""
    if skipped:
        hint = f" ({', '.join(skipped)}: a --quick run, not used; add --quick to see it anyway)"
    raise OklasimError(
        f"no knock policy measured under exactly these rules{hint}; measure it with: "
        f"oklasim policy --rules {rules_spec} --write-study knock.toml && oklasim run knock.toml")


def _exploitability(row: dict) -> str:
    """What the best deviation from the equilibrium, picked on one sample and measured on another, means."""
    interval = f"{row['confirmed_gain']:+.2f} [{row['confirmed_lo']:+.2f}, {row['confirmed_hi']:+.2f}] points/hand"
    n = f"n={row['confirm_deals'] or row['deals']:,}"
    if row["confirmed_lo"] > 0:
        return (f"exploitability: NOT AN EQUILIBRIUM HERE, a rule of the family beats it by {interval} on fresh deals ({n}); "
                "play the mix or max-min answer at this limit")
    if row["confirmed_hi"] < 0:
        return (f"exploitability: none measured; the rule that looked best against it on one sample loses {interval} on fresh deals "
                f"({n}), so it was picked by noise and no rule of the family is measured to beat it")
    return (f"exploitability: within noise of none; the rule that looked best against it gains {interval} on fresh deals "
            f"({n})")


def _figure(row: dict) -> str:
    if row["answer"] == "equilibrium":
        return _exploitability(row)
    return (f"gain over knocking at once {row['confirmed_gain']:+.2f} [{row['confirmed_lo']:+.2f}, "
            f"{row['confirmed_hi']:+.2f}] points/hand on fresh deals, {row['gain']:+.2f} where chosen, n={row['deals']:,}")


def heading(answer: str, rows: pl.DataFrame) -> str:
    """Whom one answer is against, in a line."""
    if answer == "mix":
        return f"against the {rows['against'][0]}, each of them equally likely"
    if answer == "max-min":
        return "the best worst case over the panel (each limit names its worst opponent)"
    if answer == "equilibrium":
        return "the equilibrium of the knock-rule game (both players choose from the same family of rules)"
    return f"against {answer} only"


def policy_text(rules: Rules, rules_spec: str, runs_root: Path, answers: list[str], quick: bool = False) -> str:
    """The answers asked for ("mix", "max-min", "equilibrium", an opponent's name, or "all"), limit by limit."""
    source, rows, wanted = checked_lookup(rules, rules_spec, runs_root, answers, quick)
    lines = basis_lines(rules, source, rows) + ["n = deals at that knock limit; 95% intervals"]
    for answer in wanted:
        mine = rows.filter(pl.col("answer") == answer).sort("knock_limit")
        lines.append(f"{answer}: {heading(answer, mine)}")
        for row in mine.iter_rows(named=True):
            limit = LIMIT_NAMES.get(row["knock_limit"], str(row["knock_limit"]))
            worst = f" [worst: {row['against']}]" if answer == "max-min" and row["knock_limit"] > 0 else ""
            figure = "" if row["knock_limit"] == 0 else f"  ({_figure(row)})"
            lines.append(f"  limit {limit:<13} {row['advice']}{worst}{figure}")
    return "\n".join(lines)


# Said beside an equilibrium that a rule of the family beats on fresh deals (its figure is that rule's gain).
NOT_AN_EQUILIBRIUM = "NOT AN EQUILIBRIUM HERE: a rule beats it; play the mix or max-min answer"


def compact_rows(mine: pl.DataFrame) -> list[dict]:
    """One answer's rows at a glance, limit by limit: what to do (the best measured rule in words, and how many more
    are within noise of it), whom (max-min: the worst opponent), the gain on fresh deals and its 95% interval (over
    knocking at once; for the equilibrium, of the best deviation from it, and a warning where it is beaten); no gain
    where only gin counts."""
    out = []
    for row in mine.sort("knock_limit").iter_rows(named=True):
        limit = row["knock_limit"]
        measured = limit > 0
        out.append({
            "limit": LIMIT_NAMES.get(limit, str(limit)),
            # An equilibrium's advice is its own (it may mix rules); an answer's is its best rule, with the tied count.
            "do": (row["advice"] if row["tied"] is None
                   else rule_words((row["threshold"], row["gin_after_draws"]), limit)),
            "also": 0 if row["tied"] is None else row["tied"] - 1,
            "worst": row["against"] if row["answer"] == "max-min" and measured else None,
            "warning": (NOT_AN_EQUILIBRIUM if row["answer"] == "equilibrium" and measured and row["confirmed_lo"] > 0
                        else None),
            "gain": row["confirmed_gain"] if measured else None,
            "low": row["confirmed_lo"] if measured else None,
            "high": row["confirmed_hi"] if measured else None,
        })
    return out


def gain_label(answer: str) -> str:
    gain = "best deviation's gain over it" if answer == "equilibrium" else "gain over knocking at once"
    return f"{gain} (points/hand, fresh deals, 95% interval)"


def compact_text(rules: Rules, rules_spec: str, runs_root: Path, answers: list[str], quick: bool = False) -> str:
    """Each answer asked for as one short table: knock limit, what to do, the gain and its interval."""
    source, rows, answers = checked_lookup(rules, rules_spec, runs_root, answers, quick)
    lines = basis_lines(rules, source, rows)
    for answer in answers:
        mine = rows.filter(pl.col("answer") == answer)
        table = compact_rows(mine)
        dos = [r["do"] + (f" (+{r['also']} within noise)" if r["also"] else "") for r in table]
        width = max(map(len, dos))
        lines += ["", f"{answer}: {heading(answer, mine)}; gain: {gain_label(answer)}",
                  f"  {'limit':<13} {'what to do':<{width}}  gain [95%]"]
        for r, do in zip(table, dos):
            gain = "" if r["gain"] is None else f"{r['gain']:+.2f} [{r['low']:+.2f}, {r['high']:+.2f}]"
            worst = f"  worst: {r['worst']}" if r["worst"] else ""
            warning = f"  {r['warning']}" if r["warning"] else ""
            lines.append(f"  {r['limit']:<13} {do:<{width}}  {gain}{worst}{warning}".rstrip())
    lines += ["", "every rule within noise of the best, and the equilibrium's exploitability, in: "
              "oklasim policy --details"]
    return "\n".join(lines)


def basis_lines(rules: Rules, source: Source, rows: pl.DataFrame) -> list[str]:
    """Where the table comes from and how it was measured: the first lines of either form."""
    first = rows.row(0, named=True)
    measured = Rules.from_dict(json.loads(first["rules"])).to_dict()
    differ = [name for name in GAME_ONLY if measured[name] != getattr(rules, name)]
    return [f"knock policy (undercut bonus {rules.undercut_bonus}), from {source.where}"
            + (" -- a QUICK run: few deals, not advice" if source.quick else ""),
            f"measured by: {source.command}; rules chosen on the deals of seed {first['seed']}, figures from fresh "
            f"deals (seed {first['confirm_seed']})"] + (
            [f"measured under other {', '.join(differ)} ({', '.join(f'{n}={measured[n]}' for n in differ)}): they act "
             "between hands and at the game's end, not on the single hands the table is measured on"] if differ else [])


def checked_lookup(rules: Rules, rules_spec: str, runs_root: Path, answers: list[str], quick: bool):
    """``lookup`` and the answers asked for ("all": every one), refusing more than two players and answers the table
    does not hold."""
    if rules.players != 2:
        raise OklasimError("the knock policy tables are measured for two players")
    source, rows = lookup(rules, rules_spec, runs_root, quick)
    known = list(dict.fromkeys(rows["answer"].to_list()))
    unknown = [a for a in answers if a != "all" and a not in known]
    if unknown:
        raise OklasimError(f"no answer {', '.join(unknown)} in {source.where}; choose from {', '.join(known)} or all")
    return source, rows, known if answers == ["all"] else answers


def policy_answer(rules: Rules, rules_spec: str, runs_root: Path | None, answers: list[str], quick: bool,
                  write_study: Path | None = None, details: bool = False, undercut_bonus: int | None = None) -> str:
    """What ``oklasim policy`` prints: the answers asked for, or (``write_study``) a study file written for these
    rules (with ``undercut_bonus``, when given). ``runs_root`` None: the default ``runs`` folder, used if it
    exists."""
    if runs_root is not None and not runs_root.is_dir():
        raise OklasimError(f"--runs {runs_root} is not a folder")
    if undercut_bonus is not None:
        rules = rules.replace(undercut_bonus=undercut_bonus)
        rules_spec = f"{rules_spec} --undercut-bonus {undercut_bonus}"  # as the hint's command spells it
    if write_study:
        write_study.write_text(study_file(rules))
        return f"wrote {write_study}; measure with: oklasim run {write_study}"
    text = policy_text if details else compact_text
    return text(rules, rules_spec, runs_root or Path("runs"), answers, quick)
