"""Every ``oklasim ...`` line of the command blocks of the README and of the docs site runs as written, with small
sizes: a reader who copies one gets what the page says, not "no such option". The README's advice table has the
columns it explains."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
from doc_pages import PAGES, ROOT, commands, name, write_files
from processes import answers, free_port, wait_for

from oklasim.game.rules import PRESETS

README = ROOT / "README.md"
OKLASIM = [sys.executable, "-m", "oklasim.cli"]
# Lines that need what a test machine does not have, and why.
NEEDS = {
    "--scheduler tcp://HOST": "a Dask cluster at a named address",
    "openspiel": "the optional OpenSpiel peer (make peer)",
}
# Lines the pages show failing, with what they must say.
FAILS = {"oklasim policy --rules pagat": "no knock policy measured under exactly these rules"}
SMALL = [
    (r"--(games|hands) \d+", lambda m: f"--{m.group(1)} 400"),
    (r"--budget \d+", lambda m: "--budget 1"),
]
TUNE_SMALL = ["--budget", "1", "--hands-per-rung", "20", "--rungs", "1", "--held-out", "50"]
INPUT = {"agent": '{"type": "quit"}\n', "play": "p\nquit\n"}  # play: one move (saved), then quit
PAGES_WITH_COMMANDS = [page for page in PAGES if commands(page)]


def small(command: str) -> list[str]:
    """The command's words, with small sizes: a study --quick, a tune of one small candidate."""
    for pattern, replace in SMALL:
        command = re.sub(pattern, replace, command)
    words = [word.strip('"') for word in re.findall(r'"[^"]*"|\S+', command)][1:]
    if words[0] == "run" and "--quick" not in words and "--list" not in words:
        words.append("--quick")
    if words[0] == "tune":
        words = [w for w in words if w not in ("--budget", "1")] + TUNE_SMALL
    if words[0] == "advise":
        words += ["--seconds", "1"]
    return words


def test_the_commands_are_found():
    everywhere = [c for page in PAGES for c in commands(page)]
    assert len(commands(README)) >= 15 and len(everywhere) > 60 and "oklasim --help" in everywhere
    assert not [c for c in everywhere if "..." in c], "a placeholder a reader cannot run"


@pytest.mark.slow  # every page's commands, studies --quick included: a few minutes in all
@pytest.mark.parametrize("page", PAGES_WITH_COMMANDS, ids=name)
def test_every_command_runs_as_written(page, tmp_path):
    write_files(page, tmp_path)  # the files the page asks the reader to save first
    failures = []
    for command in commands(page):
        if any(need in command for need in NEEDS):
            continue
        words = small(command)
        if words[0] == "serve":  # a server runs until stopped: it must answer, then stop cleanly
            if not serves(words, tmp_path):
                failures.append(f"{command}\n  -> did not answer its first page, or did not stop cleanly")
            continue
        done = subprocess.run([*OKLASIM, *words], cwd=tmp_path, capture_output=True, text=True, timeout=900,
                              input=INPUT.get(words[0], ""))
        expected = FAILS.get(command)
        if expected is not None:
            ok = done.returncode == 1 and expected in done.stderr
        else:
            ok = done.returncode == 0
        if not ok:
            failures.append(f"{command}\n  -> exit {done.returncode}: {done.stderr.strip()[-300:]}")
    assert not failures, "\n".join(failures)


def serves(words: list[str], cwd: Path) -> bool:
    """``oklasim serve ...`` as written, on a free port: its first page answers within a minute, and SIGTERM stops it
    as it stops every command (status 130; 0 from a server that ends quietly)."""
    port = free_port()
    process = subprocess.Popen([*OKLASIM, *words, "--port", str(port)], cwd=cwd, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        up = wait_for(lambda: answers(f"http://127.0.0.1:{port}/") or process.poll() is not None, 60)
        up = up and process.poll() is None
    finally:
        process.terminate()
        status = process.wait(30)
    return up and status in (0, 130)


def test_the_openspiel_lines_run_with_the_peer(tmp_path):
    pytest.importorskip("pyspiel")
    for command in [c for page in PAGES for c in commands(page) if "openspiel" in c]:
        done = subprocess.run([*OKLASIM, *small(command), "--hands", "40"], cwd=tmp_path, capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, done.stderr


def test_the_preset_list_names_every_preset():
    page = (ROOT / "docs" / "commands.md").read_text()
    listed = re.search(r"Presets: (.*?)\s+\(`oklasim rules --list`\)", page, re.S).group(1)
    assert set(re.findall(r"`(\w+)`", listed)) == set(PRESETS)


def test_no_command_uses_an_option_that_does_not_exist():
    """Cheap and fast: every option of every command of every page is one its command knows (its --help lists it)."""
    helps: dict[str, str] = {}
    for page in PAGES:
        for command in commands(page):
            words = small(command)
            if not words or words[0].startswith("-"):
                continue
            if words[0] not in helps:
                helps[words[0]] = subprocess.run([*OKLASIM, words[0], "--help"], capture_output=True,
                                                 text=True).stdout
            for option in (w.split("=")[0] for w in words[1:] if w.startswith("--")):
                assert option in helps[words[0]], f"{name(page)}: {command}: {words[0]} has no {option}"


def test_the_readme_explains_the_columns_advise_prints(tmp_path):
    """The README shows the advisor's table and explains each column: the command prints those columns."""
    readme = README.read_text()
    command = next(c for c in commands(README) if c.startswith("oklasim advise"))
    shown = next(line for line in readme.splitlines() if line.strip().startswith("action") and "vs best" in line)
    done = subprocess.run([*OKLASIM, *small(command), "--seed", "1"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    printed = next(line for line in done.stdout.splitlines() if line.strip().startswith("action"))
    columns = re.split(r"\s{2,}", shown.strip())
    assert re.split(r"\s{2,}", printed.strip()) == columns
    for column in columns:
        assert f"**{column}**" in readme, f"the README does not explain the column {column!r}"
