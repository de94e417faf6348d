"""Live updates: the hubs that carry game events to sockets (in process or through Redis), publishing
from the event loop, the database watch for moves stored by other processes, and relaying to sockets.

Knows nothing of requests or routes: `ludothek.portal.deps` admits sockets, the routes relay to them.
"""
