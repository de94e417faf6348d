"""The community's services: history and replays, ratings, profiles, chat, friends and blocks.

Each module holds one small service object (`History`, `Ratings`, `Profiles`, `Chat`, `Social`) that
`ludothek.services.Site` builds and holds as ``site.history``, ``site.ratings`` and so on.
"""
