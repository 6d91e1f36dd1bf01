"""Imported first by multiprocessing's forkserver as it starts (``batch._pool``), never by the driver."""

from .lifetime import start_forkserver

start_forkserver()
