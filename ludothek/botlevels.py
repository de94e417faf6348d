"""The names of the bots the portal seats, as data: storage and services use them without importing
`ludothek.bots` (which thinks; that happens only in the bot workers, `ludothek.workers.bots`)."""

from __future__ import annotations

#: Every bot a seat of a portal game may have (a subset of `ludothek.bots.BOTS`, checked by its tests).
BOT_NAMES = ("random", "easy", "medium", "hard")
