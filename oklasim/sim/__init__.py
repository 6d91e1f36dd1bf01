"""One game at a time: the engine's Python face (games and hands in-process, their records as tables) and
situations set up mid-hand."""
