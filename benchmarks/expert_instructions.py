"""Instructions per hand of expert vs expert, counted by valgrind: a speed figure a shared machine cannot blur.

    python benchmarks/expert_instructions.py [--hands 1000] [--preset seeds] [--also FAMILY]

Plays ``--hands`` hands in one kernel call under callgrind with the
counting switched on for those hands only (``callgrind_control``), after a
warm-up that loads the kernels; the same seeds give the same hands, so two
versions compare to the instruction. Within expert's decisions the time
follows the instruction count closely (perf's samples and callgrind's
counts per region of ``decide_nb`` agree within 20%), so a change that
saves instructions saves time; it cannot see branch mispredictions or cache
misses, which the timed benchmarks (``bench_expert.py``) do. ``--also
FAMILY`` counts FAMILY vs FAMILY too (an older expert renamed, on
``OKLASIM_STRATEGY_PATH``, as in ``bench_expert.py``). Needs valgrind;
about a minute per 1,000 hands. Numba keys its cache by the CPU it sees,
and valgrind's differs: the host's name and features are pinned for both
the warm-up outside valgrind and the run inside, so the run loads the
kernels rather than compiling them under valgrind (hours).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from common import machine_load

CHILD = "--counted-child"


def pinned_cpu_environment() -> dict[str, str]:
    """The host's CPU without AVX-512, which valgrind (3.19) cannot decode: on such a host the counted run
    would otherwise stop at the first AVX-512 instruction (SIGILL)."""
    import llvmlite.binding as llvm

    features = llvm.get_host_cpu_features().flatten().split(",")
    features = ["-" + feature[1:] if feature.startswith("+avx512") else feature for feature in features]
    return {"NUMBA_CPU_NAME": llvm.get_host_cpu_name(), "NUMBA_CPU_FEATURES": ",".join(features)}


def callgrind_switch(state: str) -> None:
    """Switch callgrind's counting for this process; valgrind reads the command between our own instructions,
    so wait polling rather than blocked in a system call."""
    command = subprocess.Popen(["callgrind_control", "-i", state, str(os.getpid())], stdout=subprocess.DEVNULL)
    while command.poll() is None:
        time.sleep(0.05)


def play(pairing: str, preset: str, hands: int, counted: bool) -> None:
    from oklasim.game.rules import Rules
    from oklasim.sim.engine import kernel_rules, resolve_all, run_kernel

    rules = Rules.preset(preset)
    seats = resolve_all(pairing.split(","), rules.players)
    rules_array = kernel_rules(rules, True)
    run_kernel(rules_array, seats, 1, 0, 20)  # warm-up: every kernel loaded before counting
    if counted:
        callgrind_switch("on")
    run_kernel(rules_array, seats, 1, 1000, hands)
    if counted:
        callgrind_switch("off")


def instructions(pairing: str, preset: str, hands: int) -> int:
    """Instructions counted for ``hands`` hands of ``pairing`` (comma-separated strategies)."""
    play(pairing, preset, 1, counted=False)  # compiles, outside valgrind, what the counted run will load
    with tempfile.TemporaryDirectory() as folder:
        output = os.path.join(folder, "callgrind.out")
        command = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={output}",
                   sys.executable, __file__, CHILD, pairing, preset, str(hands)]
        run = subprocess.run(command, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"expert_instructions: valgrind failed ({run.returncode}):\n{run.stderr[-2000:]}")
        with open(output) as file:
            found = re.findall(r"^(?:summary|totals): (\d+)", file.read(), re.MULTILINE)
    if not found or int(found[-1]) == 0:
        sys.exit("expert_instructions: callgrind counted nothing (did callgrind_control reach the process?)")
    return int(found[-1])  # the file's header has a summary of 0, its end the totals


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] == CHILD:
        play(sys.argv[2], sys.argv[3], int(sys.argv[4]), counted=True)
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--preset", default="seeds")
    parser.add_argument("--also", metavar="FAMILY", help="count FAMILY vs FAMILY too and print the ratio")
    args = parser.parse_args()
    if args.hands < 1:
        parser.error("--hands must be at least 1")
    for tool in ("valgrind", "callgrind_control"):
        if shutil.which(tool) is None:
            sys.exit(f"expert_instructions: {tool} not found; install valgrind")
    # Pinned before numba is imported: the warm-up here and the run under valgrind (which inherits it) share a key.
    os.environ.update(pinned_cpu_environment())
    from oklasim.game.rules import Rules
    from oklasim.sim.engine import resolve_all

    families = ["expert"] + ([args.also] if args.also else [])
    try:
        resolve_all(families, Rules.preset(args.preset).players)
    except ValueError as error:
        parser.error(str(error))
    print(f"expert_instructions: {args.hands} hands under {args.preset}, {machine_load()}")
    counts = {}
    for family in families:
        counts[family] = instructions(f"{family},{family}", args.preset, args.hands) / args.hands
        print(f"{family} vs {family}: {counts[family]:,.0f} instructions/hand")
    if args.also:
        print(f"expert / {args.also}: {counts['expert'] / counts[args.also]:.3f}")


if __name__ == "__main__":
    main()
