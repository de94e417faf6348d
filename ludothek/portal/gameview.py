"""What one viewer may see of a game, for pages and the API alike.

Everything here is built from the viewer's seat: ``state.view(seat)``, the
seat's legal actions (only on its turn) and the log as that seat may read it.
Nothing else of the state leaves this module, which is what keeps secrets
secret in pages, API answers and live updates.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from ludothek import engine as eng
from ludothek.services.handover import undo_refusal
from ludothek.services.tracked import Tracked
from ludothek.storage import GameInfo, UserInfo
from ludothek.storage.models import utcnow
from ludothek.texts import pick, t


def game_summary(info: GameInfo, user: UserInfo | None, lang: str) -> dict[str, Any]:
    """Public facts of a game (lobby lists, API lists)."""
    game = eng.load(info.game)
    my_seat = info.seat_of(user.id) if user else None
    return {
        "id": info.id,
        "game": info.game,
        "title": pick(game.title, lang),
        "num_players": info.num_players,
        "options": dict(info.options),
        "status": info.status,
        "creator_id": info.creator_id,
        "seq": info.seq,
        "to_move": info.to_move if info.to_move >= 0 else None,
        "my_seat": my_seat,
        "my_turn": my_seat is not None and info.status == "running" and info.to_move == my_seat,
        "seats": [
            {"seat": s.seat, "kind": s.kind, "name": s.name, "bot": s.bot, "bot_account": s.bot_account}
            for s in info.seats
        ],
        "result": info.result,
        "created_at": info.created_at.isoformat(),
        "turn_since": info.turn_since.isoformat() if info.turn_since else None,
        "handover": handover_of(info),
        # A bot worker holds this bot seat's turn and is thinking (its panel says so).
        "thinking": info.thinking_seat(utcnow()),
    }


def handover_of(info: GameInfo) -> dict[str, Any] | None:
    """The pending hand-over (`ludothek.services.handover`): whose turn waits for confirmation, until when."""
    if info.handover_seat is None or info.status != "running":
        return None
    due = info.handover_due
    left = max(0.0, (due - datetime.now(UTC)).total_seconds()) if due is not None else None
    return {"seat": info.handover_seat, "name": info.seat_names()[info.handover_seat] if info.handover_seat
            < len(info.seats) else None, "due": due.isoformat() if due else None, "seconds_left": left}


def seat_context(
    info: GameInfo, tracked: Tracked, seat: int | None, lang: str, with_log: bool = True
) -> dict[str, Any]:
    """The viewer's view, legal actions with their sentences, log and result."""
    state = tracked.state
    view = state.view(seat)
    to_move = state.current_player()
    # Nothing can be played in a game that has ended (an abandoned game stops at a seat's turn), nor
    # while a turn waits for its player's confirmation (`ludothek.services.handover`).
    running = info.status == "running"
    pending = info.handover_seat is not None
    legal = state.legal_actions() if seat is not None and to_move == seat and running and not pending else []
    # One naming block for all the sentences, and the game's batch hook (State.describe_all): the
    # same texts as describing each action alone, several times cheaper for the mover (issue 14).
    texts = state.describe_all(legal, lang, info.seat_names()) if legal else []
    return {
        "seat": seat,
        "view": view,
        "legal": legal,
        "legal_described": [{"action": a, "text": text} for a, text in zip(legal, texts, strict=True)],
        "can_undo": seat is not None and running and undo_refusal(info, state, seat) is None,
        "can_confirm": seat is not None and running and pending and info.handover_seat == seat,
        "log": tracked.log_for(seat, lang) if with_log else None,
        "to_move": to_move if to_move >= 0 else None,
        "finished": state.is_terminal(),
        # The stored result: it places players who timed out or resigned last.
        "result": (info.result or state.result_json()) if state.is_terminal() else None,
        "seq": state.move_number(),
    }


def engine_log_equivalent(tracked: Tracked, seat: int | None, lang: str) -> list[dict[str, Any]]:
    """`ludothek.engine.log` for the same viewer (used by tests to prove the cached log is identical)."""
    return eng.log(tracked.state, viewer=seat, lang=lang, names=tracked.names)


def log_lines(log: list[dict[str, Any]], names: list[str], lang: str) -> list[dict[str, Any]]:
    """The log for the page: each line with a label (the seat's name, or Chance/Zufall) and its sentence.

    The sentences already name the seats (the store makes them with the seat
    names).  When one begins with the mover's name ("anna builds ..."), the
    label is not repeated in front of it.
    """
    lines = []
    for entry in log:
        text = str(entry["text"])
        seat = entry["seat"]
        if seat == "chance" or not isinstance(seat, int) or not 0 <= seat < len(names):
            label: str | None = t("chance", lang)
        else:
            label = names[seat]
            if text.startswith(label + " ") or text.startswith(label + ":"):
                label = None
        lines.append({"n": entry["n"], "seat": seat, "label": label, "text": text,
                      "undone": bool(entry.get("undone"))})
    return lines


def deciding_part(breakdown: list[dict[str, Any]] | None, lang: str) -> dict[str, Any] | None:
    """The breakdown line that decided the order (``score_part(..., decides=True)``), for the result
    table: its label and each seat's text, or ``None`` when the score itself decided (most games)."""
    if not breakdown:
        return None
    label: str | None = None
    cells: dict[int, str] = {}
    for entry in breakdown:
        for part in entry["parts"]:
            if part.get("decides"):
                label = label or pick(part["label"], lang)
                points = part.get("points")
                cells[entry["seat"]] = (pick(part["detail"], lang) if part.get("detail")
                                        else "" if points is None else f"{points:g}")
    return None if label is None else {"label": label[:1].upper() + label[1:], "cells": cells}


def breakdown_table(breakdown: list[dict[str, Any]] | None, lang: str) -> dict[str, Any] | None:
    """The end view's score breakdown as a table: one column per seat (best first), one row per part.

    A part some seats lack (a Snowdonia contract only one fulfilled) is an
    empty cell for the others; a part without points shows its detail text.
    """
    if not breakdown:
        return None
    seats = sorted(breakdown, key=lambda b: (b.get("rank", 0), b["seat"]))
    order: list[str] = []
    labels: dict[str, str] = {}
    for entry in seats:
        for part in entry["parts"]:
            if part["part"] not in labels:
                order.append(part["part"])
                labels[part["part"]] = pick(part["label"], lang)
    rows = []
    for key in order:
        cells = []
        for entry in seats:
            part = next((p for p in entry["parts"] if p["part"] == key), None)
            if part is None:
                cells.append("")
            elif part["points"] is None:
                cells.append(pick(part["detail"], lang) if part.get("detail") else "")
            else:
                cells.append(part["points"])
        rows.append({"part": key, "label": labels[key], "cells": cells})
    return {"seats": [e["seat"] for e in seats], "rows": rows, "totals": [e["total"] for e in seats]}
