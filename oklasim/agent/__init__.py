"""One oklasim seat for a referee elsewhere: the view built from events (``seat``), the JSON-lines protocol (``protocol``)."""

from oklasim import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "PROTOCOL_VERSION": "protocol", "Agent": "protocol", "serve": "protocol",
    "ProtocolError": "seat", "SeatView": "seat", "Turn": "seat",
})

__all__ = ["PROTOCOL_VERSION", "Agent", "ProtocolError", "SeatView", "Turn", "serve"]
