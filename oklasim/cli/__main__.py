"""``python -m oklasim.cli``: the ``oklasim`` command."""

from oklasim.cli import main

if __name__ == "__main__":
    main()
