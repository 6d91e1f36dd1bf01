"""The game for people: a referee that seats a person beside the bots, and the terminal table of
`oklasim play`."""
