"""Where a hand of expert vs expert spends its time, per compiled function, with Linux ``perf``.

    perf record -F 2000 -D -1 --control fifo:/tmp/ctl,/tmp/ack -o perf.data \\
        python benchmarks/expert_profile.py --hands 30000 --control /tmp/ctl,/tmp/ack
    perf report -i perf.data --no-children --sort sym

(``mkfifo /tmp/ctl /tmp/ack`` first.) Plays the hands in one kernel call
and, at the end, writes ``/tmp/perf-PID.map``, the symbol map ``perf
report`` reads to name JIT code: numba's compiled objects are kept as they
load and their symbols (``nm``) placed at the addresses the JIT gave them.
With ``--control`` the sampling covers the hands only, not the start-up.
Inlined functions count in their callers; LLVM may inline small kernels.
"""

from __future__ import annotations

import argparse
import gc
import os
import subprocess
import tempfile
import time

from numba.core import codegen
from numba.core.registry import CPUDispatcher

_loaded = codegen.CPUCodeLibrary._set_compiled_object


def _keep_object(library, value):
    """Numba drops a loaded library's object code; keep it for its symbol table."""
    library.kept_object = value
    return _loaded(library, value)


codegen.CPUCodeLibrary._set_compiled_object = _keep_object

from oklasim.game.rules import Rules  # noqa: E402
from oklasim.sim.engine import kernel_rules, resolve_all, run_kernel  # noqa: E402 - after the hook above


def function_symbols(object_code: bytes) -> list[tuple[str, int, int]]:
    """(name, offset, size) of each function in an object file."""
    with tempfile.NamedTemporaryFile(suffix=".o") as file:
        file.write(object_code)
        file.flush()
        listing = subprocess.run(["nm", "-S", "--defined-only", file.name], capture_output=True, text=True).stdout
    symbols = []
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[2] in "tTW":
            symbols.append((fields[3], int(fields[0], 16), int(fields[1], 16)))
    return symbols


def write_perf_map() -> int:
    """Write /tmp/perf-PID.map for every loaded numba function; returns the number of symbols."""
    rows, seen = {}, set()
    for dispatcher in (obj for obj in gc.get_objects() if isinstance(obj, CPUDispatcher)):
        for result in dispatcher.overloads.values():
            library = result.library
            if id(library) in seen or getattr(library, "kept_object", None) is None:
                continue
            seen.add(id(library))
            symbols = function_symbols(library.kept_object)
            offsets = {name: offset for name, offset, _ in symbols}
            entry = result.fndesc.llvm_func_name
            if entry not in offsets:
                continue
            base = library.get_pointer_to_function(entry) - offsets[entry]  # the object's place in memory
            rows.update({base + offset: (size, name) for name, offset, size in symbols if size})
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as file:
        file.writelines(f"{address:x} {size:x} {name}\n" for address, (size, name) in sorted(rows.items()))
    return len(rows)


def perf_control(fifos: str | None, command: str) -> None:
    """Tell ``perf record --control fifo:CTL,ACK`` to enable or disable sampling."""
    if fifos:
        control, ack = fifos.split(",")
        with open(control, "w") as file:
            file.write(command + "\n")
        with open(ack) as file:
            file.read(5)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=30_000)
    parser.add_argument("--preset", default="eaai")
    parser.add_argument("--seats", default="expert,expert", help="comma-separated strategies")
    parser.add_argument("--control", help="CTL,ACK: the fifos given to perf record --control")
    args = parser.parse_args()
    if args.hands < 1:
        parser.error("--hands must be at least 1")
    try:
        rules = Rules.preset(args.preset)
        seats = resolve_all(args.seats.split(","), rules.players)
    except ValueError as error:
        parser.error(str(error))
    rules_array = kernel_rules(rules, True)
    run_kernel(rules_array, seats, 1, 0, 100)  # warm-up: kernels loaded before sampling starts
    perf_control(args.control, "enable")
    started = time.perf_counter()
    run_kernel(rules_array, seats, 1, 0, args.hands)
    seconds = time.perf_counter() - started
    perf_control(args.control, "disable")
    print(f"expert_profile: {args.hands / seconds:,.0f} hands/s; {write_perf_map()} symbols in /tmp/perf-{os.getpid()}.map")


if __name__ == "__main__":
    main()
