"""Turning an outbox row into a mail (plain text + HTML), or deciding that nobody wants it.

Everything is looked up when the mail is sent, not when it was queued: the
recipient's verified address, language and settings, the game, its players
(by user name) and the move that made it the recipient's turn (the game's own
``describe`` sentence, as the store writes it: with the seats' names).
"""

from __future__ import annotations

import zoneinfo
from dataclasses import dataclass
from datetime import datetime
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from html import escape
from urllib.parse import quote

from ludothek import engine as eng
from ludothek.services import Site
from ludothek.services.outbox import QueuedMail
from ludothek.storage import GameInfo, NotFound
from ludothek.texts import pick, t, tn
from ludothek.texts.dates import local_when

from .mail_links import MailLinks

#: Mails about games carry List-Unsubscribe; verification and reset mails are what the user asked for.
NOTIFICATIONS = ("turn", "digest", "invite", "ended", "reminder", "timed_out", "invite_declined", "abandon_offered",
                 "abandon_declined", "friend_request")


@dataclass
class Skip:
    """Nobody wants this mail; the reason is recorded in the outbox."""

    reason: str


@dataclass
class Parts:
    subject: str
    paragraphs: list[str]
    link: tuple[str, str] | None = None  # (label, url)
    items: list[tuple[str, str]] | None = None  # (text, url) list, e.g. the digest's games


def _players(names: list[str], lang: str) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + f" {t('and', lang)} " + names[-1]


class Composer:
    """Builds the mails of one deployment."""

    def __init__(self, site: Site, links: MailLinks, sender: str = "Ludothek <noreply@localhost>") -> None:
        self.site = site
        self.links = links
        self.sender = sender

    def compose(self, mail: QueuedMail, now: datetime) -> EmailMessage | Skip:
        site = self.site
        user = site.accounts.user(mail.user_id)
        if user is None or user.is_guest:
            return Skip("no such account")
        lang = user.lang
        email = site.notify.email_of(user.id)
        if mail.kind == "verify":
            address = mail.payload.get("address")
            if not address or email.pending != address:
                return Skip("the address is no longer waiting for confirmation")
            to = str(address)
        elif mail.kind == "email_changed":
            # To the address that was replaced or removed: the one that must hear of it.
            return self._email_changed(mail, user.id, user.name, lang, now)
        else:
            if email.address is None:
                return Skip("no verified address")
            to = email.address
        prefs = site.notify.prefs(user.id)
        parts: Parts | Skip
        if mail.kind == "turn":
            parts = self._turn(mail, user.id, lang) if prefs.turns == "each" else Skip("turn mails are off")
        elif mail.kind == "digest":
            parts = self._digest(user.id, lang) if prefs.turns == "digest" else Skip("the digest is off")
        elif mail.kind == "invite":
            parts = self._invite(mail, user.id, lang) if prefs.invites else Skip("invitation mails are off")
        elif mail.kind == "ended":
            parts = self._ended(mail, lang) if prefs.ended else Skip("end-of-game mails are off")
        elif mail.kind == "reminder":
            parts = self._reminder(mail, user.id, lang) if prefs.turns != "off" else Skip("turn mails are off")
        elif mail.kind in ("timed_out", "abandon_offered", "abandon_declined"):
            # About a game of mine that runs: sent unless game mails are off altogether.
            parts = (self._game_notice(mail, user.id, lang, prefs.timezone) if prefs.turns != "off"
                     else Skip("turn mails are off"))
        elif mail.kind in ("invite_declined", "friend_request"):
            parts = (self._people_notice(mail, user.id, lang) if prefs.invites
                     else Skip("invitation mails are off"))
        elif mail.kind.startswith("tournament_"):
            # Issue 31: the notice's own words (`Messages`), sent unless game mails are off altogether.
            parts = self._tournament_notice(mail, user.id) if prefs.turns != "off" else Skip("turn mails are off")
        elif mail.kind == "verify":
            parts = Parts(t("mail_verify_subject", lang), [t("mail_verify_body", lang)],
                          (t("mail_verify_link", lang), self.links.url("verify", user.id, a=to)))
        elif mail.kind == "reset":
            parts = self._reset(mail, user.id, to, lang)
        else:
            return Skip(f"unknown kind of mail {mail.kind!r}")
        if isinstance(parts, Skip):
            return parts
        unsubscribe = self.links.url("unsubscribe", user.id) if mail.kind in NOTIFICATIONS else None
        return self._message(to, user.name, lang, parts, unsubscribe, now)

    # ------------------------------------------------------------------ the kinds
    def _reset(self, mail: QueuedMail, user_id: int, to: str, lang: str) -> Parts | Skip:
        """A reset link bound to the generation and address of the request (`Notify.reset_password`)."""
        gen = mail.payload.get("gen")
        if gen is None:  # queued before links were bound: bind it to now
            gen = self.site.accounts.generation(user_id)
        elif gen != self.site.accounts.generation(user_id) or mail.payload.get("address") != to:
            return Skip("the password or address changed since the reset was asked for")
        reset = self.site.notify.reset_generation(user_id)
        if mail.payload.get("reset", reset) != reset:  # (queued before issue 30: bound to now)
            return Skip("a newer reset link was asked for since")
        return Parts(t("mail_reset_subject", lang), [t("mail_reset_body", lang)],
                     (t("mail_reset_link", lang), self.links.url("reset", user_id, g=gen, a=to, r=reset)))

    def _email_changed(self, mail: QueuedMail, user_id: int, name: str, lang: str,
                       now: datetime) -> EmailMessage | Skip:
        change_id = mail.payload.get("change")
        change = self.site.notify.email_change(change_id) if isinstance(change_id, int) else None
        if change is None or change.user_id != user_id:
            return Skip("no such address change")
        if change.used:
            return Skip("the change was undone already")
        body = (t("mail_email_changed_body", lang, name=name, address=change.new_address)
                if change.new_address is not None else t("mail_email_removed_body", lang, name=name))
        parts = Parts(t("mail_email_changed_subject", lang),
                      [body, t("mail_email_undo_body", lang, days=self.links.undo_days)],
                      (t("mail_email_undo_link", lang), self.links.url("undo", user_id, c=change.id)))
        return self._message(change.old_address, name, lang, parts, None, now)

    def _game(self, game_id: int | None) -> GameInfo | None:
        if game_id is None:
            return None
        try:
            return self.site.games.game(game_id)
        except NotFound:
            return None

    def _turn(self, mail: QueuedMail, user_id: int, lang: str) -> Parts | Skip:
        info = self._game(mail.game_id)
        if info is None or info.status != "running":
            return Skip("the game is no longer running")
        seat = info.seat_of(user_id)
        if seat is None or info.to_move != seat:
            return Skip("it is no longer this player's turn")
        last_own = self.site.outbox.last_move_seq(info.id, seat)
        if mail.seq is not None and last_own >= mail.seq:
            return Skip("the player has moved since")
        if self.site.outbox.turn_mail_since(user_id, info.id, last_own):
            return Skip("a turn mail for this game went out already; none again until the player moves")
        names = info.seat_names()
        title = pick(eng.load(info.game).title, lang)
        paragraphs = [t("mail_turn_body", lang, game=title, id=info.id, players=_players(names, lang))]
        move = self._move_text(info, seat, mail.seq, lang, names)
        if move:
            paragraphs.append(t("mail_turn_move", lang, move=move))
        return Parts(t("mail_turn_subject", lang, game=title, id=info.id), paragraphs,
                     (t("mail_open_game", lang), self.links.game_url(info.id)))

    def _move_text(self, info: GameInfo, seat: int, seq: int | None, lang: str, names: list[str]) -> str:
        """The last move by another seat up to ``seq``, as the recipient may read it in the log."""
        with self.site.play.state(info.id) as (_, tracked):
            if tracked is None:
                return ""
            log = tracked.log_for(seat, lang)
        for entry in reversed(log[: seq if seq is not None else len(log)]):
            if entry["seat"] != "chance" and entry["seat"] != seat and not entry.get("undone"):
                text = str(entry["text"])  # the store writes the sentences with the seats' names
                mover = names[entry["seat"]] if 0 <= entry["seat"] < len(names) else ""
                return text if not mover or text.startswith(mover) else f"{mover}: {text}"
        return ""

    def _reminder(self, mail: QueuedMail, user_id: int, lang: str) -> Parts | Skip:
        """Time is running out (queued by the clocks with ``{"deadline": ISO time}``); only while still my turn."""
        info = self._game(mail.game_id)
        if info is None or info.status != "running":
            return Skip("the game is no longer running")
        seat = info.seat_of(user_id)
        if seat is None or info.to_move != seat or (mail.seq is not None and info.seq != mail.seq):
            return Skip("the player has moved since")
        prefs = self.site.notify.prefs(user_id)
        try:
            deadline = datetime.fromisoformat(str(mail.payload.get("deadline")))
            when = local_when(deadline, lang, prefs.timezone)
        except ValueError:
            when = "?"
        title = pick(eng.load(info.game).title, lang)
        return Parts(t("mail_reminder_subject", lang, game=title, id=info.id),
                     [t("mail_reminder_body", lang, game=title, id=info.id, when=when,
                        players=_players(info.seat_names(), lang))],
                     (t("mail_open_game", lang), self.links.game_url(info.id)))

    def _digest(self, user_id: int, lang: str) -> Parts | Skip:
        items = []
        for game_id, _seq in self.site.notify.waiting_games(user_id):
            info = self._game(game_id)
            if info is None:
                continue
            title = pick(eng.load(info.game).title, lang)
            items.append((f"{title} #{info.id} – {_players(info.seat_names(), lang)}", self.links.game_url(info.id)))
        if not items:
            return Skip("no game is waiting")
        subject = t("mail_digest_subject_one", lang) if len(items) == 1 else tn(
            "mail_digest_subject_many", len(items), lang)
        return Parts(subject, [tn("mail_digest_body", len(items), lang)], items=items)

    def _invite(self, mail: QueuedMail, user_id: int, lang: str) -> Parts | Skip:
        info = self._game(mail.game_id)
        if info is None or info.status != "open":
            return Skip("the game is no longer open")
        if not any(s.kind == "invited" and s.user_id == user_id for s in info.seats):
            return Skip("the invitation is no longer open")
        creator = next((s.name for s in info.seats if s.user_id == info.creator_id), None) or "?"
        title = pick(eng.load(info.game).title, lang)
        names = [s.name for s in info.seats if s.kind in ("player", "invited", "bot") and s.name]
        return Parts(t("mail_invite_subject", lang, by=creator, game=title),
                     [t("mail_invite_body", lang, by=creator, game=title, id=info.id,
                        players=_players(names, lang))],
                     (t("mail_open_game", lang), self.links.game_url(info.id)))

    def _ended(self, mail: QueuedMail, lang: str) -> Parts | Skip:
        info = self._game(mail.game_id)
        if info is None or info.status != "finished" or not info.result:
            return Skip("the game has no result")
        names = info.seat_names()
        title = pick(eng.load(info.game).title, lang)
        lines = []
        for r in sorted(info.result, key=lambda r: r.get("rank", 0)):
            seat = r.get("seat")
            name = names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else "?"
            score = r.get("score")
            if isinstance(score, float) and score.is_integer():
                score = int(score)
            left = r.get("left")
            note = f" – {t('result_left_' + left, lang)}" if left in ("timed_out", "resigned") else ""
            lines.append(f"{r.get('rank')}. {name} ({score}){note}")
        return Parts(t("mail_ended_subject", lang, game=title, id=info.id),
                     [t("mail_ended_body", lang, game=title, id=info.id), *lines],
                     (t("mail_open_game", lang), self.links.game_url(info.id)))

    def _name_of(self, user_id: object) -> str | None:
        user = self.site.accounts.user(user_id) if isinstance(user_id, int) else None
        return None if user is None else user.name

    def _game_notice(self, mail: QueuedMail, user_id: int, lang: str, timezone: str) -> Parts | Skip:
        """Timed out, abandoning offered, abandoning declined or withdrawn (issue 30): still true when sent?"""
        info = self._game(mail.game_id)
        if info is None:
            return Skip("the game is gone")
        title = pick(eng.load(info.game).title, lang)
        link = (t("mail_open_game", lang), self.links.game_url(info.id))
        if mail.kind == "timed_out":
            seat = next((s for s in info.seats if s.user_id == user_id and s.left_as == "timed_out"), None)
            if seat is None:
                return Skip("the player did not time out in this game")
            others = [s.name or "?" for s in info.seats if s.seat != seat.seat]
            try:
                when = local_when(datetime.fromisoformat(str(mail.payload.get("deadline"))), lang, timezone)
            except ValueError:
                when = "?"
            return Parts(t("mail_timed_out_subject", lang, game=title, id=info.id),
                         [t("mail_timed_out_body", lang, game=title, id=info.id, when=when,
                            players=_players(others, lang))], link)
        by = self._name_of(mail.payload.get("by"))
        if by is None:
            return Skip("the player who did it is gone")
        if info.status != "running":
            return Skip("the game is no longer running")
        if mail.kind == "abandon_offered":
            if not any(s.abandon_vote and s.user_id == info.creator_id for s in info.seats):
                return Skip("the offer to abandon is off already")
            return Parts(t("mail_abandon_offered_subject", lang, game=title, id=info.id, name=by),
                         [t("mail_abandon_offered_body", lang, game=title, id=info.id, name=by)], link)
        subject = "mail_abandon_withdrawn_subject" if mail.payload.get("withdrawn") else "mail_abandon_declined_subject"
        return Parts(t(subject, lang, game=title, id=info.id, name=by),
                     [t("mail_abandon_declined_body", lang, game=title, id=info.id)], link)

    def _tournament_notice(self, mail: QueuedMail, user_id: int) -> Parts | Skip:
        """A tournament entered, a round started, a tournament ended (issue 31), in the notice's words."""
        message = self.site.messages.message(user_id, mail.kind, mail.game_id, mail.seq, mail.payload,
                                             datetime.now(zoneinfo.ZoneInfo("UTC")))
        if message is None:
            return Skip("the tournament is gone")
        return Parts(message.title, [message.body],
                     (t("mail_open_tournament", message.lang), self.links.base_url + message.path))

    def _people_notice(self, mail: QueuedMail, user_id: int, lang: str) -> Parts | Skip:
        """An invitation declined, or someone added me as a friend (issue 30)."""
        by = self._name_of(mail.payload.get("by"))
        if by is None:
            return Skip("the player who did it is gone")
        if mail.kind == "friend_request":
            return Parts(t("mail_friend_request_subject", lang, name=by),
                         [t("mail_friend_request_body", lang, name=by)],
                         (t("mail_open_profile", lang), f"{self.links.base_url}/users/{quote(by)}"))
        info = self._game(mail.game_id)
        if info is None or info.status == "cancelled":
            return Skip("the game is gone")
        title = pick(eng.load(info.game).title, lang)
        return Parts(t("mail_invite_declined_subject", lang, game=title, id=info.id, name=by),
                     [t("mail_invite_declined_body", lang, game=title, id=info.id, name=by)],
                     (t("mail_open_game", lang), self.links.game_url(info.id)))

    # ------------------------------------------------------------------ the message
    def _message(self, to: str, name: str, lang: str, parts: Parts, unsubscribe: str | None,
                 now: datetime) -> EmailMessage:
        msg = EmailMessage()
        msg["From"] = self.sender
        msg["To"] = to
        msg["Subject"] = parts.subject
        msg["Date"] = format_datetime(now)
        msg["Message-ID"] = make_msgid(domain="ludothek")
        msg["Auto-Submitted"] = "auto-generated"
        if unsubscribe is not None:
            # RFC 8058: a mail client may unsubscribe with one POST to this address, without a login.
            msg["List-Unsubscribe"] = f"<{unsubscribe}>"
            msg["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
        settings = self.links.base_url + "/account"
        text = [t("mail_hello", lang, name=name), "", *parts.paragraphs]
        html = [f"<p>{escape(t('mail_hello', lang, name=name))}</p>"]
        html += [f"<p>{escape(p)}</p>" for p in parts.paragraphs]
        if parts.items:
            text += [""] + [f"- {label}: {url}" for label, url in parts.items]
            html.append("<ul>" + "".join(f'<li><a href="{escape(url)}">{escape(label)}</a></li>'
                                         for label, url in parts.items) + "</ul>")
        if parts.link is not None:
            label, url = parts.link
            text += ["", f"{label}: {url}"]
            html.append(f'<p><a href="{escape(url)}">{escape(label)}</a></p>')
        text += ["", "-- ", "Ludothek", t("mail_settings_footer", lang, url=settings)]
        footer = [f'<a href="{escape(settings)}">{escape(t("account", lang))}</a>']
        if unsubscribe is not None:
            text.append(t("mail_unsub_footer", lang, url=unsubscribe))
            footer.append(f'<a href="{escape(unsubscribe)}">{escape(t("unsub_title", lang))}</a>')
        html.append('<hr><p style="font-size:small;color:#666">Ludothek · ' + " · ".join(footer) + "</p>")
        msg.set_content("\n".join(text) + "\n")
        msg.add_alternative(
            f'<!doctype html><html lang="{lang}"><body>' + "\n".join(html) + "</body></html>\n", subtype="html"
        )
        msg["Content-Language"] = lang  # after the content: setting it clears Content-* headers
        return msg




def local_now(now: datetime, timezone: str) -> datetime:
    """``now`` in the user's time zone (UTC if the name is unknown)."""
    try:
        return now.astimezone(zoneinfo.ZoneInfo(timezone))
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return now.astimezone(zoneinfo.ZoneInfo("UTC"))
