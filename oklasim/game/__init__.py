"""What the game is: cards and hands, the rules and their presets, melds and deadwood, the slow reference
that every kernel is checked against, and the exact counts of dealt hands. No game is played here."""
