"""Operations: liveness, readiness and the Prometheus metrics (for the operator's addresses only)."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from sqlalchemy import text

from ..contract import refusals
from ..deps import client_address, portal_of
from ..jsonroute import BoundedRoute
from ..observe import address_allowed

router = APIRouter(route_class=BoundedRoute, tags=["operations"])


class Health(BaseModel):
    status: Literal["ok"] = "ok"


class Readiness(BaseModel):
    status: Literal["ready", "unready"]
    checks: dict[str, str] = Field(description="each dependency: 'ok' or what went wrong")


@router.get("/healthz", response_model=Health, summary="The process lives (nothing else is checked)")
async def healthz() -> Health:
    return Health()


@router.get("/readyz", response_model=Readiness, summary="Ready to serve: the database and Redis answer, the live hub listens",
            responses={503: {"model": Readiness, "description": "a dependency does not answer"}})
def readyz(request: Request) -> Response:
    portal = portal_of(request)
    checks: dict[str, str] = {}
    try:
        with portal.site.engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        checks["database"] = "ok"
    except Exception as exc:
        checks["database"] = f"unreachable ({type(exc).__name__})"
    if portal.settings.redis_url:
        try:
            import redis

            client = redis.Redis.from_url(portal.settings.redis_url, socket_timeout=2, socket_connect_timeout=2)
            try:
                client.ping()
            finally:
                client.close()
            checks["redis"] = "ok"
        except Exception as exc:
            checks["redis"] = f"unreachable ({type(exc).__name__})"
    trouble = portal.hub.trouble()
    if portal.settings.redis_url or trouble is not None:
        checks["live"] = trouble or "ok"
    ready = all(v == "ok" for v in checks.values())
    body = Readiness(status="ready" if ready else "unready", checks=checks)
    return JSONResponse(body.model_dump(), status_code=200 if ready else 503)


@router.get("/metrics", summary="Prometheus metrics (only from the operator's addresses)",
            response_class=Response, responses={200: {"content": {"text/plain": {}}}, **refusals(403)})
def metrics(request: Request) -> Response:
    portal = portal_of(request)
    assert portal.metrics is not None
    if not address_allowed(client_address(request), portal.metrics_allow):
        return JSONResponse({"detail": "metrics are served only to the operator's addresses "
                                       "(LUDOTHEK_METRICS_ALLOW)", "code": "forbidden"}, status_code=403)
    from prometheus_client import CONTENT_TYPE_LATEST

    return Response(portal.metrics.exposition(), media_type=CONTENT_TYPE_LATEST)
