"""The installable package: build the wheel and the sdist, install the wheel into a fresh environment in a folder
outside the checkout, and play from there. The installed copy must find its strategies, its studies and its
knock table inside itself, play the same games as the checkout, and read the kernels the checkout compiled (the
cache is filed by module, not by install folder)."""

import json
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from oklasim.analysis.match import match
from oklasim.strategies.registry import families

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
COMPILING = "compiling the game kernels"


def run(*args, cwd: Path, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=900, **kwargs)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path]:
    """(the oklasim command of a fresh environment holding only the wheel and its dependencies, a folder to
    run it in, outside the checkout)."""
    base = tmp_path_factory.mktemp("wheel")
    built = run(sys.executable, "-m", "build", "--outdir", base / "dist", ROOT, cwd=base)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    wheel = next((base / "dist").glob("oklasim-*.whl"))
    done = run(venv / "bin" / "python", "-m", "pip", "install", "--quiet", wheel, cwd=base)
    assert done.returncode == 0, done.stderr[-2000:]
    # Every kernel compiled (or found) by the checkout first: the installed copy must then compile none.
    assert run(sys.executable, "-m", "oklasim.cli", "compile", cwd=base).returncode == 0
    work = base / "work"
    work.mkdir()
    return venv / "bin" / "oklasim", work


def test_the_wheel_and_the_sdist_carry_the_package_data(installed):
    dist = next(installed[1].parent.glob("dist"))
    names = zipfile.ZipFile(next(dist.glob("*.whl"))).namelist()
    for needed in ("oklasim/strategies/families/expert.py", "oklasim/studies/experiments/knock_thresholds.toml",
                   "oklasim/studies/data/knock_policy.csv", "oklasim/cli/__main__.py"):
        assert needed in names, needed
    assert any(name.endswith("licenses/LICENSE") for name in names)
    sdist = tarfile.open(next(dist.glob("*.tar.gz"))).getnames()
    assert any(name.endswith("/tests/conftest.py") for name in sdist)
    assert any(name.endswith("/seeds/RULES.md") for name in sdist)


def test_the_installed_copy_lists_every_shipped_family(installed):
    oklasim, work = installed
    done = run(oklasim, "strategies", cwd=work)
    assert done.returncode == 0, done.stderr
    listed = {line.split(":")[0] for line in done.stdout.splitlines() if line and not line.startswith(" ")}
    assert listed == set(families()), listed
    assert str(ROOT) not in done.stdout  # every family from the installed copy, none from the checkout


def test_the_installed_copy_plays_the_checkouts_games_without_compiling(installed):
    oklasim, work = installed
    done = run(oklasim, "match", "expert", "simple", "--hands", 2000, "--seed", 5, "--json", cwd=work)
    assert done.returncode == 0, done.stderr
    assert COMPILING not in done.stderr
    here = match("expert", "simple", hands=2000, seed=5, progress=False).as_dict()
    assert json.loads(done.stdout) == json.loads(json.dumps(here))


def test_the_installed_copy_advises_answers_the_policy_and_runs_a_shipped_study(installed):
    oklasim, work = installed
    advice = run(oklasim, "advise", "2h 3h 4h 7s 7d 7h Jc Qc Kc 5d 3s", "--upcard", "9c", "--pile", "9c 8d 4s",
                 "--stock", 28, "--seconds", 2, "--json", cwd=work)
    assert advice.returncode == 0, advice.stderr
    assert COMPILING not in advice.stderr
    assert json.loads(advice.stdout)["candidates"]
    policy = run(oklasim, "policy", cwd=work)
    assert policy.returncode == 0 and "shipped table" in policy.stdout, policy.stderr
    study = run(oklasim, "run", "knock_thresholds", "--quick", cwd=work)
    assert study.returncode == 0, study.stderr[-2000:]
    assert (work / "reports" / "knock_thresholds-quick" / "index.html").is_file()


def test_the_installed_copy_plays_a_seat_for_another_referee(installed):
    oklasim, work = installed
    lines = [{"type": "new_hand", "seat": 0, "dealer": 1, "upcard": "9c",
              "hand": ["2h", "3h", "4h", "7s", "7d", "7h", "Jc", "Qc", "Kc", "5d"]},
             {"type": "decide", "decision": "take_upcard", "id": 7}, {"type": "quit"}]
    done = run(oklasim, "agent", "--strategy", "expert", cwd=work, input="".join(json.dumps(m) + "\n" for m in lines))
    assert done.returncode == 0, done.stderr
    hello, answer = (json.loads(line) for line in done.stdout.splitlines())
    assert hello["type"] == "hello" and answer == {"type": "answer", "v": 1, "decision": "take_upcard", "id": 7,
                                                   "take": False}
