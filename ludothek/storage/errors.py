"""Refusals of the store, each with the HTTP status the portal answers with.

Every refusal is raised before anything is written, so a refused request
leaves the database as it was.
"""

from __future__ import annotations


class StoreError(Exception):
    """A request the store refuses; ``message`` is meant for the player."""

    status = 400
    code = "bad_request"

    def __init__(self, message: str, **params: object) -> None:
        super().__init__(message)
        self.message = message
        #: Values for translating the message (see ``ludothek.texts``).
        self.params = params


class NotFound(StoreError):
    status = 404
    code = "not_found"


class Forbidden(StoreError):
    status = 403
    code = "forbidden"


class Conflict(StoreError):
    """The game is not in a state that allows the request (started, full, not your turn ...)."""

    status = 409
    code = "conflict"


class StaleMove(Conflict):
    """The move was made against a sequence number that is no longer current."""

    code = "stale"


class SeatTakenOver(Conflict):
    """The mover's seat changed hands (a timeout, a resignation) while the move was being stored."""


class NotYourTurn(Conflict):
    code = "not_your_turn"


class BadRequest(StoreError):
    status = 400
    code = "bad_request"


class IllegalMove(Conflict):
    """The game's rules do not allow this action now: a refusal by the game, like `NotYourTurn` (409)."""

    code = "illegal"


class Unauthorized(StoreError):
    status = 401
    code = "unauthorized"


class TooManyAttempts(StoreError):
    status = 429
    code = "too_many_attempts"

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message, seconds=retry_after)
        self.retry_after = retry_after
