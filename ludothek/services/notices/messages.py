"""A notice in words (`Message`): what every channel but mail shows, and what webhooks and pushes carry.

Written when the notice is delivered, not when it was queued, in the recipient's language and time
zone, naming players by their user names.  Nothing secret goes in: no address, no link with a token,
no hidden game information; the path is site-relative and needs a login to open.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ludothek import engine as eng
from ludothek.storage import GameInfo, NotFound
from ludothek.texts import pick, t, tn
from ludothek.texts.dates import local_when

from .kinds import canonical

if TYPE_CHECKING:
    from ..site import Site


@dataclass(frozen=True)
class Message:
    """A notice in words, in the recipient's language and time zone, with nothing secret in it.

    ``path`` is site-relative (``/games/12``); a channel that needs an absolute address prefixes the
    site's public URL.  Push payloads and webhook bodies are made only of these fields, the notice's
    kind and its game id.
    """

    lang: str
    title: str
    body: str
    path: str


def players(names: list[str], lang: str) -> str:
    """``anna, bernd and carla`` in the reader's language."""
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + f" {t('and', lang)} " + names[-1]



def texts(kind: str, lang: str, params: Mapping[str, Any]) -> tuple[str, str] | None:
    """A kind's title and body (None: a kind with no words of its own).  Written out, not built from the
    kind's name, so that the text check (`ludothek.devtools.textcheck`) sees every key."""
    p = dict(params)
    pairs = {
        "turn": lambda: (t("notice_turn_title", lang, **p), t("notice_turn_body", lang, **p)),
        "reminder": lambda: (t("notice_reminder_title", lang, **p), t("notice_reminder_body", lang, **p)),
        "timed_out": lambda: (t("notice_timed_out_title", lang, **p), t("notice_timed_out_body", lang, **p)),
        "invited": lambda: (t("notice_invited_title", lang, **p), t("notice_invited_body", lang, **p)),
        "invite_declined": lambda: (t("notice_invite_declined_title", lang, **p),
                                    t("notice_invite_declined_body", lang, **p)),
        "abandon_offered": lambda: (t("notice_abandon_offered_title", lang, **p),
                                    t("notice_abandon_offered_body", lang, **p)),
        "abandon_declined": lambda: (t("notice_abandon_declined_title", lang, **p),
                                     t("notice_abandon_declined_body", lang, **p)),
        # An ``abandon_declined`` whose offerer took the offer back (payload ``withdrawn``).
        "abandon_withdrawn": lambda: (t("notice_abandon_withdrawn_title", lang, **p),
                                      t("notice_abandon_withdrawn_body", lang, **p)),
        "ended": lambda: (t("notice_ended_title", lang, **p), t("notice_ended_body", lang, **p)),
        "verify": lambda: (t("notice_verify_title", lang), t("notice_verify_body", lang)),
        "reset": lambda: (t("notice_reset_title", lang), t("notice_reset_body", lang)),
        "email_changed": lambda: (t("notice_email_changed_title", lang), t("notice_email_changed_body", lang)),
    }
    make = pairs.get(kind)
    return None if make is None else make()


class Messages:
    """Builds the `Message` of any notice for one site."""

    def __init__(self, site: Site) -> None:
        self.site = site

    def message(self, user_id: int, kind: str, game_id: int | None, seq: int | None,
                payload: Mapping[str, Any], now: datetime) -> Message | None:
        """The notice in the recipient's words, or None when there is nothing left to say (no such user or game)."""
        who = self.site.notices.recipient(user_id)
        if who is None:
            return None
        lang, tz = who.lang, who.timezone
        kind = canonical(kind)
        if kind == "friend_request":
            return Message(lang, t("notice_friend_request_title", lang, name=self._name(payload)),
                           t("notice_friend_request_body", lang, name=self._name(payload)), "/friends")
        if kind.startswith("tournament_"):
            return self._tournament(kind, lang, payload)
        if kind in ("verify", "reset", "email_changed"):
            words = texts(kind, lang, {})
            return None if words is None else Message(lang, *words, "/account")
        if kind == "digest":
            count = len(self.site.notify.waiting_games(user_id))
            return Message(lang, tn("notice_digest_title", count, lang), t("notice_digest_body", lang), "/")
        info = self._game(game_id)
        if info is None:
            return None
        title = pick(eng.load(info.game).title, lang)
        names = info.seat_names()
        common = {"game": title, "id": info.id, "players": players(names, lang), "name": self._name(payload)}
        if kind == "reminder":
            try:
                common["when"] = local_when(datetime.fromisoformat(str(payload.get("deadline"))), lang, tz)
            except ValueError:
                common["when"] = "?"
        if kind == "ended":
            common["result"] = self._result(info, names)
        if kind == "invited":
            common["name"] = next((s.name for s in info.seats if s.user_id == info.creator_id and s.name), None) \
                or common["name"]
        if kind == "abandon_declined" and payload.get("withdrawn"):
            kind = "abandon_withdrawn"
        words = texts(kind, lang, common)
        if words is not None and kind == "turn":
            # A move's turn notice says who moved: ``payload["by"]`` is the mover's seat (`Play._move_mails`),
            # not a user id; the game's first turn has none.
            by = payload.get("by")
            if isinstance(by, int) and not isinstance(by, bool) and 0 <= by < len(names) and names[by]:
                words = (words[0], t("notice_turn_moved_body", lang, **{**common, "name": names[by]}))
        return None if words is None else Message(lang, *words, f"/games/{info.id}")

    def _tournament(self, kind: str, lang: str, payload: Mapping[str, Any]) -> Message | None:
        """A tournament notice (issue 31): the payload names the tournament (and the round)."""
        tid = payload.get("tournament")
        if not isinstance(tid, int) or isinstance(tid, bool):
            return None
        try:
            info = self.site.tournaments.get(tid)
        except NotFound:
            return None
        p = {"name": info.name, "game": pick(eng.load(info.game).title, lang), "round": payload.get("round", 0),
             "rounds": info.rounds}
        path = f"/tournaments/{tid}"
        if kind == "tournament_entered":
            return Message(lang, t("notice_tournament_entered_title", lang, **p),
                           t("notice_tournament_entered_body", lang, **p), path)
        if kind == "tournament_round":
            game = payload.get("game")
            if isinstance(game, int) and not isinstance(game, bool):
                return Message(lang, t("notice_tournament_round_title", lang, **p),
                               t("notice_tournament_round_body", lang, **p), f"/games/{game}")
            return Message(lang, t("notice_tournament_round_title", lang, **p),
                           t("notice_tournament_bye_body", lang, **p), path)
        if kind == "tournament_ended":
            if payload.get("cancelled"):
                body = "notice_tournament_no_final_body" if payload.get("no_final") else "notice_tournament_cancelled_body"
                return Message(lang, t("notice_tournament_cancelled_title", lang, **p), t(body, lang, **p), path)
            return Message(lang, t("notice_tournament_ended_title", lang, **p),
                           t("notice_tournament_ended_body", lang, **p), path)
        return None

    def _game(self, game_id: int | None) -> GameInfo | None:
        if game_id is None:
            return None
        try:
            return self.site.games.game(game_id)
        except NotFound:
            return None

    def _name(self, payload: Mapping[str, Any]) -> str:
        """The other person a notice is about: ``payload["name"]``, or the user ``payload["by"]`` / ``["user_id"]``."""
        name = payload.get("name")
        if isinstance(name, str) and name:
            return name
        for key in ("by", "user_id", "from"):
            uid = payload.get(key)
            if isinstance(uid, int) and not isinstance(uid, bool):
                user = self.site.accounts.user(uid)
                if user is not None:
                    return user.name
        return "?"

    @staticmethod
    def _result(info: GameInfo, names: list[str]) -> str:
        lines = []
        for r in sorted(info.result or [], key=lambda r: r.get("rank", 0)):
            seat = r.get("seat")
            name = names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else "?"
            score = r.get("score")
            if isinstance(score, float) and score.is_integer():
                score = int(score)
            lines.append(f"{r.get('rank')}. {name} ({score})")
        return ", ".join(lines)
