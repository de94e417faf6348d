"""Tournaments, leagues and seasons (issue 31).

``pairing`` and ``standings`` are pure functions of the entrants and the games played so far: no
database, no clock, no I/O, so they are tested by hypothesis and measured by a simulator. The site's
side (storing tournaments, starting rounds, telling players) builds on them.
"""
