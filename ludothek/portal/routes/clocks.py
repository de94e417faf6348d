"""Clocks and leaving: resigning, votes to abandon a game, vacations (the clocks pause while they last)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from starlette.responses import Response

from ludothek import engine as eng
from ludothek.storage import Conflict, Forbidden, StoreError, UserInfo
from ludothek.storage.timecontrol import VACATION_DAYS_PER_YEAR
from ludothek.texts import t

from .. import apimodels as m
from ..apibodies import AbandonVote, VacationIn
from ..contract import GAME_REFUSALS, refusals
from ..deps import CsrfField, GameId, User, check_csrf, need_user, portal_of
from ..gameview import game_summary
from ..jsonroute import BoundedRoute
from ..render import message_of, redirect, redirect_with_notice, render
from .accounts import account_page

pages = APIRouter(route_class=BoundedRoute, include_in_schema=False)
api = APIRouter(route_class=BoundedRoute, tags=["api"])


# ----------------------------------------------------------------------------- pages
@pages.post("/games/{game_id}/resign", name="resign")
def resign_form(request: Request, game_id: GameId, csrf: CsrfField,
                confirm: Annotated[str, Form()] = "") -> Response:
    """Resigning in two steps (issue 30): without ``confirm=yes`` the answer is the question, and nothing
    changes; the game page's script asks the same in a dialog and posts the confirmation directly."""
    check_csrf(request, csrf)
    user = need_user(request)
    site = portal_of(request).site
    if confirm != "yes":
        info = site.games.game(game_id)
        if info.status != "running":
            raise Conflict("only a running game can be resigned", code_key="not_running")
        if info.seat_of(user.id) is None:
            raise Forbidden("you do not play in this game (or a bot plays your seat already)", code_key="not_seated")
        return render(request, "resign_confirm.html", user, info=info, game=eng.load(info.game))
    site.clocks.resign(game_id, user)
    return redirect(request, f"/games/{game_id}")


@pages.post("/games/{game_id}/abandon", name="abandon")
def abandon_form(request: Request, game_id: GameId, csrf: CsrfField,
                 agree: Annotated[str, Form()] = "yes") -> Response:
    check_csrf(request, csrf)
    portal_of(request).site.clocks.vote_abandon(game_id, need_user(request), agree == "yes")
    return redirect(request, f"/games/{game_id}")


@pages.post("/account/vacation")
def declare_vacation(request: Request, csrf: CsrfField, days: Annotated[str, Form()]) -> Response:
    """An absence from now on: the user's clocks pause while it lasts."""
    check_csrf(request, csrf)
    user = need_user(request)
    try:
        amount = float(days)
        portal_of(request).site.clocks.declare_vacation(user, amount)
    except ValueError:
        return account_page(request, user, status=400, error=t("vacation_days", user.lang) + ": 1–30")
    except StoreError as exc:
        return account_page(request, user, status=exc.status, error=message_of(exc, user.lang))
    return redirect(request, "/account")


@pages.post("/account/vacation/end")
def end_vacation_form(request: Request, csrf: CsrfField) -> Response:
    """End the vacation now (or call off the coming one): the clocks run again."""
    check_csrf(request, csrf)
    user = need_user(request)
    try:
        portal_of(request).site.clocks.end_vacation(user)
    except StoreError as exc:
        return account_page(request, user, status=exc.status, error=message_of(exc, user.lang))
    return redirect_with_notice(request, "/account", "vacation_ended")


# ----------------------------------------------------------------------------- JSON API
@api.post("/games/{game_id}/resign", response_model=m.GameOut, responses=GAME_REFUSALS,
          summary="Resign: a bot plays on for my seat, and I am placed last")
def resign(game_id: GameId, request: Request, user: User) -> dict[str, Any]:
    info = portal_of(request).site.clocks.resign(game_id, user)
    return game_summary(info, user, user.lang)


@api.post("/games/{game_id}/abandon", response_model=m.GameOut, responses=GAME_REFUSALS,
          summary="Offer (creator), agree to or decline abandoning a game")
def abandon(game_id: GameId, body: AbandonVote, request: Request, user: User) -> dict[str, Any]:
    info = portal_of(request).site.clocks.vote_abandon(game_id, user, body.agree)
    return game_summary(info, user, user.lang)


def vacation_json(request: Request, user: UserInfo) -> dict[str, Any]:
    site = portal_of(request).site
    year = datetime.now(UTC).year
    used = site.clocks.vacation_days_used(user.id, year)
    return {
        "year": year, "used_days": round(used, 2), "left_days": round(max(0.0, VACATION_DAYS_PER_YEAR - used), 2),
        "absences": [{"starts": s.isoformat(), "ends": e.isoformat()} for s, e in site.clocks.vacations(user.id)],
    }


@api.get("/vacation", response_model=m.VacationOut,
         summary="My vacations this year: days used and left, current and coming absences")
def get_vacation(request: Request, user: User) -> dict[str, Any]:
    return vacation_json(request, user)


@api.post("/vacation", status_code=201, response_model=m.VacationOut, responses=refusals(409),
          summary="Declare an absence: my clocks pause while it lasts")
def post_vacation(body: VacationIn, request: Request, user: User) -> dict[str, Any]:
    portal_of(request).site.clocks.declare_vacation(user, body.days, body.starts)
    return vacation_json(request, user)


@api.post("/vacation/end", response_model=m.VacationOut, responses=refusals(409),
          summary="End my vacation now (or call off the coming one): my clocks run again, with what was not taken")
def end_vacation(request: Request, user: User) -> dict[str, Any]:
    """409 ``no_vacation`` when I am not away and have no vacation coming."""
    portal_of(request).site.clocks.end_vacation(user)
    return vacation_json(request, user)
