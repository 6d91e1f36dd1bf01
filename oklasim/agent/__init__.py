"""One oklasim seat for a referee elsewhere: the view built from events (``seat``), the JSON-lines protocol (``protocol``)."""

from oklasim.agent.protocol import PROTOCOL_VERSION, Agent, serve
from oklasim.agent.seat import ProtocolError, SeatView, Turn

__all__ = ["PROTOCOL_VERSION", "Agent", "ProtocolError", "SeatView", "Turn", "serve"]
