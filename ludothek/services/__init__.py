"""``ludothek.services``: what the portal, the workers and the command line do with the database, by concern.

`storage` keeps the tables, queries and transactions; each concern here is a small service object with
an explicit constructor, and `Site` builds them all and holds them as attributes (``site.play``,
``site.lobby`` ...).  See `ludothek.services.site` for the list.
"""

from .site import Site

__all__ = ["Site"]
