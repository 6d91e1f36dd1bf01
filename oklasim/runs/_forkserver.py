"""Imported first by multiprocessing's forkserver as it starts (``backends.process_pool``), never by the driver."""

from oklasim.runs.lifetime import start_forkserver

start_forkserver()
