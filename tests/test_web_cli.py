"""``oklasim serve`` on the command line: an instant --help that loads no web code, one-line refusals, the warning."""

import signal
import socket
import subprocess
import sys

from click.testing import CliRunner
from processes import answers, free_port, signal_and_collect, start, wait_for

from oklasim.cli import main

HELP_LOADS = """
import sys
from oklasim.cli import main
try:
    main(["serve", "--help"])
except SystemExit:
    pass
print("loaded:" + ",".join(m for m in ("starlette", "uvicorn", "jinja2", "oklasim.web") if m in sys.modules))
"""


def test_help_lists_every_option_and_loads_no_web_code():
    done = subprocess.run([sys.executable, "-c", HELP_LOADS], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    for option in ("--host", "--port", "--runs", "--reports", "--games", "127.0.0.1", "8765"):
        assert option in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "loaded:"  # none of them imported


def test_a_taken_port_is_one_line():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(main, ["serve", "--port", str(port)])
    assert result.exit_code == 1 and result.output.strip().splitlines() == [
        f"Error: cannot listen on 127.0.0.1:{port}: Address already in use; choose another --port or --host"]


def test_serving_beyond_this_machine_warns_first(tmp_path):
    with socket.socket() as probe:
        probe.bind(("0.0.0.0", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "oklasim.cli", "serve", "--host", "0.0.0.0", "--port", str(port),
                               "--runs", str(tmp_path)], stderr=subprocess.PIPE, text=True)
    try:
        first, second = server.stderr.readline(), server.stderr.readline()
        assert wait_for(lambda: answers(f"http://127.0.0.1:{port}/"), 30)
    finally:
        server.send_signal(signal.SIGTERM)
        server.communicate(timeout=20)
    assert first.startswith("warning: serving on 0.0.0.0: anyone who can reach this machine")
    assert second.strip() == f"oklasim serve: http://0.0.0.0:{port}/  (Ctrl-C stops it)"
    assert server.returncode == 130  # stopped by SIGTERM as every command is (README: exit 130, one line)


def test_ctrl_c_stops_the_server_as_every_command(tmp_path):
    """Ctrl-C (SIGINT to the terminal's process group): the server closes, then says so in one line and exits 130,
    as the README says of every command; no traceback."""
    port = free_port()
    server = start("serve", "--port", str(port), "--runs", str(tmp_path))
    assert wait_for(lambda: answers(f"http://127.0.0.1:{port}/"), 30)
    code, err, left = signal_and_collect(server, signal.SIGINT, group=True)
    assert code == 130 and not left
    assert err.strip().splitlines() == [f"oklasim serve: http://127.0.0.1:{port}/  (Ctrl-C stops it)",
                                        "Error: the server stopped"], err


def test_a_bad_port_is_refused_by_the_option():
    result = CliRunner().invoke(main, ["serve", "--port", "70000"])
    assert result.exit_code == 2 and "70000" in result.output
