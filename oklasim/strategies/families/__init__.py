"""The shipped strategy families, one file each: a ``FAMILY`` declaration and its ``decide_nb`` kernel
(``oklasim.strategy_api``). The registry finds every file here by itself; a family of your own is a file
anywhere else, named with ``--strategy-path`` or ``OKLASIM_STRATEGY_PATH``."""
