"""One oklasim seat for a referee elsewhere: the view built from events (``seat``), the JSON-lines protocol (``protocol``)."""

from .protocol import PROTOCOL_VERSION, Agent, serve
from .seat import ProtocolError, SeatView, Turn

__all__ = ["PROTOCOL_VERSION", "Agent", "ProtocolError", "SeatView", "Turn", "serve"]
