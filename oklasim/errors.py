"""The errors oklasim means to report: a problem with what was asked (cards, rules, options, files, strategies,
events from another referee), each explained in one line by its message.

The command line prints such an error as its one line and exits 1. Any other exception that escapes a command is
a bug in oklasim: the command says so in one line and ``oklasim --debug ...`` shows its traceback. Every class
here is a ``ValueError``, so code that caught the API's ``ValueError`` before keeps working.
"""


class OklasimError(ValueError):
    """Bad input or a request oklasim refuses; the message says what was wrong and how to fix it."""
