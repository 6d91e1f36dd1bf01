"""When to knock: the measured policy for a rules preset and undercut bonus as one short table, with its basis.

The figures are ``oklasim policy``'s (``oklasim.studies.knock_policy``: the newest knock_thresholds run under the
configured runs folder measured under exactly these rules, else the shipped table); the details are its text.
"""

from __future__ import annotations

from pathlib import Path

from oklasim.game.rules import PRESETS, Rules
from oklasim.web.safety import Refused, bounded_int

MAX_BONUS = 10_000  # the rules' own bound on a bonus


def knock_table(preset: str, bonus, answer: str, runs_root: Path) -> dict:
    """Per knock limit: what to do, the gain over knocking at once on fresh deals and its 95% interval."""
    from oklasim.studies import knock_policy as K

    if preset not in PRESETS:
        raise Refused(400, f"unknown rules preset {preset!r}; choose from {', '.join(PRESETS)}")
    rules = Rules.preset(preset)
    if bonus not in (None, ""):
        rules = rules.replace(undercut_bonus=bounded_int(bonus, "undercut bonus", 0, MAX_BONUS))
    if rules.players != 2:
        raise Refused(400, "the knock policy tables are measured for two players")
    source, rows = K.lookup(rules, preset, runs_root, quick=False)
    answers = list(dict.fromkeys(rows["answer"].to_list()))
    answer = answer or "mix"
    if answer not in answers:
        raise Refused(400, f"no answer {answer!r} in {source.where}; choose from {', '.join(answers)}")
    mine = rows.filter(rows["answer"] == answer)
    return {"rules": preset, "undercut_bonus": rules.undercut_bonus, "answer": answer, "answers": answers,
            "heading": K.heading(answer, mine), "source": source.where, "command": source.command,
            "gain_label": K.gain_label(answer), "rows": K.compact_rows(mine),
            "details": K.policy_text(rules, preset, runs_root, ["all"])}
