"""``python -m oklasim.cli``: the ``oklasim`` command."""

from oklasim.cli import run

if __name__ == "__main__":
    run()
