"""Every ``oklasim ...`` line of the README's command blocks runs as written, with small sizes: a reader who copies
one gets what the README says, not "no such option". The preset list names every preset."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
from processes import answers, free_port, wait_for

from oklasim.game.rules import PRESETS

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()
OKLASIM = [sys.executable, "-m", "oklasim.cli"]
# Lines that need what a test machine does not have, and why.
NEEDS = {
    "--scheduler tcp://HOST": "a Dask cluster at a named address",
    "openspiel": "the optional OpenSpiel peer (make peer)",
}
# Lines the README shows failing, with what they must say.
FAILS = {"oklasim policy --rules pagat": "no knock policy measured under exactly these rules"}
SMALL = [
    (r"--(games|hands) \d+", lambda m: f"--{m.group(1)} 400"),
    (r"--budget \d+", lambda m: "--budget 1"),
]
TUNE_SMALL = ["--budget", "1", "--hands-per-rung", "20", "--rungs", "1", "--held-out", "50"]
INPUT = {"agent": '{"type": "quit"}\n', "play": "p\nquit\n"}  # play: one move (saved), then quit


def readme_commands() -> list[str]:
    """The oklasim commands of every ```sh block, continuation lines joined, comments dropped, ``&&`` split."""
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", README, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip()
            commands += [part.strip() for part in line.split("&&") if part.strip().startswith("oklasim ")]
    return commands


def small(command: str) -> list[str]:
    """The command's words, with small sizes: a study --quick, a tune of one small candidate."""
    for pattern, replace in SMALL:
        command = re.sub(pattern, replace, command)
    words = [word.strip('"') for word in re.findall(r'"[^"]*"|\S+', command)][1:]
    if words[0] == "run" and "--quick" not in words:
        words.append("--quick")
    if words[0] == "tune":
        words = [w for w in words if w not in ("--budget", "1")] + TUNE_SMALL
    if words[0] == "advise":
        words += ["--seconds", "1"]
    return words


def test_the_readme_commands_are_found():
    commands = readme_commands()
    assert len(commands) > 25 and "oklasim --help" in commands
    assert not [c for c in commands if "..." in c], "a placeholder a reader cannot run"


@pytest.mark.slow  # the whole README, studies --quick included: a few minutes
def test_every_readme_command_runs_as_written(tmp_path):
    failures = []
    for command in readme_commands():
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
    with status 0."""
    port = free_port()
    process = subprocess.Popen([*OKLASIM, *words, "--port", str(port)], cwd=cwd, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        up = wait_for(lambda: answers(f"http://127.0.0.1:{port}/") or process.poll() is not None, 60)
        up = up and process.poll() is None
    finally:
        process.terminate()
        status = process.wait(30)
    return up and status == 0


def test_the_openspiel_lines_run_with_the_peer(tmp_path):
    pytest.importorskip("pyspiel")
    for command in [c for c in readme_commands() if "openspiel" in c]:
        done = subprocess.run([*OKLASIM, *small(command), "--hands", "40"], cwd=tmp_path, capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, done.stderr


def test_the_preset_list_names_every_preset():
    listed = re.search(r"Presets: (.*?) \(`oklasim rules --list`\)", README, re.S).group(1)
    assert set(re.findall(r"`(\w+)`", listed)) == set(PRESETS)


def test_no_readme_command_uses_an_option_that_does_not_exist():
    """Cheap and fast: every option of every README command is one its command knows (its --help lists it)."""
    helps: dict[str, str] = {}
    for command in readme_commands():
        words = small(command)
        if not words or words[0].startswith("-"):
            continue
        if words[0] not in helps:
            helps[words[0]] = subprocess.run([*OKLASIM, words[0], "--help"], capture_output=True, text=True).stdout
        for option in (w.split("=")[0] for w in words[1:] if w.startswith("--")):
            assert option in helps[words[0]], f"{command}: {words[0]} has no {option}"
