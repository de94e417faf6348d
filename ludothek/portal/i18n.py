"""The portal's own interface texts in German and English.

Game and card names never live here: they come from each game's data
(``game.title``, option labels, ``describe``).  A missing key falls back to
English and then to the key itself, so a gap is visible but never fatal.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import catalogs

LANGS = ("de", "en")

TEXTS: dict[str, dict[str, str]] = {
    "site": {"de": "Ludothek", "en": "Ludothek"},
    "tagline": {
        "de": "Brettspiele rundenweise im Browser – gegen Freunde oder Bots.",
        "en": "Turn-based board games in the browser – with friends or bots.",
    },
    "login": {"de": "Anmelden", "en": "Log in"},
    "logout": {"de": "Abmelden", "en": "Log out"},
    "register": {"de": "Registrieren", "en": "Register"},
    "guest": {"de": "Als Gast spielen (24 Stunden)", "en": "Play as a guest (24 hours)"},
    "guest_note": {
        "de": "Gastkonto: läuft am {when} ab, außer du machst es zu einem richtigen Konto.",
        "en": "Guest account: expires on {when} unless you turn it into a real account.",
    },
    "convert": {"de": "Zu einem richtigen Konto machen", "en": "Turn into a real account"},
    "name": {"de": "Benutzername", "en": "User name"},
    "password": {"de": "Passwort", "en": "Password"},
    "account": {"de": "Konto", "en": "Account"},
    "lobby": {"de": "Spielesaal", "en": "Lobby"},
    "my_games": {"de": "Meine Spiele", "en": "My games"},
    "new_game": {"de": "Neues Spiel", "en": "New game"},
    "next_game": {"de": "Nächstes wartendes Spiel", "en": "Next game waiting for me"},
    "no_waiting": {"de": "Kein Spiel wartet auf dich.", "en": "No game is waiting for you."},
    "open_games": {"de": "Offene Einladungen", "en": "Open invitations"},
    "no_open_games": {"de": "Gerade keine offenen Einladungen.", "en": "No open invitations right now."},
    "running": {"de": "Laufende Spiele", "en": "Running games"},
    "waiting_players": {"de": "Warten auf Mitspieler", "en": "Waiting for players"},
    "finished": {"de": "Beendete Spiele", "en": "Finished games"},
    "your_turn": {"de": "Du bist am Zug", "en": "Your turn"},
    "their_turn": {"de": "{name} ist am Zug", "en": "{name} to move"},
    "game_over": {"de": "Spiel beendet", "en": "Game over"},
    "join": {"de": "Beitreten", "en": "Join"},
    "accept": {"de": "Einladung annehmen", "en": "Accept invitation"},
    "leave": {"de": "Verlassen", "en": "Leave"},
    "cancel": {"de": "Spiel absagen", "en": "Cancel game"},
    "open": {"de": "Öffnen", "en": "Open"},
    "game": {"de": "Spiel", "en": "Game"},
    "players": {"de": "Spieler", "en": "Players"},
    "num_players": {"de": "Anzahl Spieler", "en": "Number of players"},
    "options": {"de": "Optionen", "en": "Options"},
    "seats": {"de": "Plätze", "en": "Seats"},
    "seat": {"de": "Platz {n}", "en": "Seat {n}"},
    "seat_me": {"de": "Ich", "en": "Me"},
    "seat_open": {"de": "Offene Einladung", "en": "Open invitation"},
    "seat_invite": {"de": "Einladung an …", "en": "Invite …"},
    "seat_bot": {"de": "Bot", "en": "Bot"},
    "bot_strength": {"de": "Stärke des Bots", "en": "Bot strength"},
    "bot_level_random": {"de": "zufällig", "en": "random"},
    "bot_level_easy": {"de": "leicht", "en": "easy"},
    "bot_level_medium": {"de": "mittel", "en": "medium"},
    "bot_level_hard": {"de": "schwer", "en": "hard"},
    "seat_waiting": {"de": "frei", "en": "open"},
    "seat_invited": {"de": "eingeladen: {name}", "en": "invited: {name}"},
    "invite_name": {"de": "Name (bei Einladung)", "en": "Name (for an invitation)"},
    "create": {"de": "Spiel anlegen", "en": "Create game"},
    "legal_actions": {"de": "Deine möglichen Züge", "en": "Your legal actions"},
    "all_actions": {"de": "alle Züge", "en": "all actions"},
    "picker_ok": {"de": "Bestätigen", "en": "Confirm"},
    "picker_reset": {"de": "Zurücksetzen", "en": "Reset"},
    "picker_more": {"de": "einen mehr", "en": "one more"},
    "picker_less": {"de": "einen weniger", "en": "one less"},
    "picker_none": {"de": "Wähle eine erlaubte Kombination.", "en": "Pick an allowed combination."},
    "no_actions": {"de": "Du bist gerade nicht am Zug.", "en": "It is not your turn."},
    "log": {"de": "Spielverlauf", "en": "Game log"},
    "result": {"de": "Ergebnis", "en": "Result"},
    "rank": {"de": "Platz", "en": "Rank"},
    "score": {"de": "Punkte", "en": "Score"},
    "winner": {"de": "Sieger: {names}", "en": "Winner: {names}"},
    "spectator": {"de": "Du schaust zu.", "en": "You are watching."},
    "move": {"de": "Zug {n}", "en": "Move {n}"},
    "chance": {"de": "Zufall", "en": "Chance"},
    "live_on": {"de": "live", "en": "live"},
    "live_off": {"de": "Verbindung getrennt – neu laden", "en": "Disconnected – reload"},
    "language": {"de": "Sprache", "en": "Language"},
    "api_tokens": {"de": "API-Tokens", "en": "API tokens"},
    "api_token_new": {"de": "Neues Token", "en": "New token"},
    "api_token_shown": {
        "de": "Dein neues Token (wird nur einmal gezeigt):",
        "en": "Your new token (shown only once):",
    },
    "api_docs": {"de": "JSON-API-Dokumentation", "en": "JSON API documentation"},
    "label": {"de": "Bezeichnung", "en": "Label"},
    "created": {"de": "angelegt", "en": "created"},
    "record": {"de": "Spielaufzeichnung (JSON)", "en": "Game record (JSON)"},
    "generic_board": {"de": "Spielstand", "en": "Game state"},
    "welcome": {"de": "Willkommen, {name}!", "en": "Welcome, {name}!"},
    "not_found": {"de": "Nicht gefunden.", "en": "Not found."},
    "error": {"de": "Fehler", "en": "Error"},
    "back": {"de": "Zurück", "en": "Back"},
    "cancelled": {"de": "Abgesagt", "en": "Cancelled"},
    "creator": {"de": "hat das Spiel angelegt", "en": "created the game"},
    "you": {"de": "du", "en": "you"},
    "decline": {"de": "Ablehnen", "en": "Decline"},
    "login_to_join": {"de": "Zum Mitspielen anmelden", "en": "Log in to join"},
    "starts_when_full": {
        "de": "Das Spiel beginnt, sobald alle Plätze besetzt sind; wer anfängt, wird ausgelost.",
        "en": "The game starts as soon as every seat is taken; the first player is drawn at random.",
    },
    "seat_from": {"de": "(ab {n} Spielern)", "en": "(with {n} or more players)"},
    "sending": {"de": "Wird gesendet …", "en": "Sending …"},
    "err_players_range": {
        "de": "{game} spielt man zu {low} bis {high}.",
        "en": "{game} is played by {low} to {high} players.",
    },
    "err_invite_name": {
        "de": "Platz {n}: gib den Namen an, wen du einladen willst.",
        "en": "Seat {n}: enter the name of the user you want to invite.",
    },
    "err_no_user_named": {
        "de": "Platz {n}: einen Benutzer „{name}“ gibt es nicht.",
        "en": "Seat {n}: there is no user called “{name}”.",
    },
    "name_hint": {
        "de": "3 bis 20 Buchstaben, Ziffern, '.', '_' oder '-'.",
        "en": "3 to 20 letters, digits, '.', '_' or '-'.",
    },
    "password_hint": {"de": "Mindestens 8 Zeichen.", "en": "At least 8 characters."},
    "api_tokens_note": {
        "de": "Mit einem Token kann ein Programm über die JSON-API für dich spielen "
              "(Kopfzeile „Authorization: Bearer …“).",
        "en": "With a token a program can play for you through the JSON API "
              "(header “Authorization: Bearer …”).",
    },
    "err_network": {
        "de": "Keine Verbindung zum Server: dein Zug wurde nicht gesendet. Bitte versuche es noch einmal.",
        "en": "No connection to the server: your move was not sent. Please try again.",
    },
    "err_server": {
        "de": "Der Server hat einen Fehler gemeldet; die Ansicht wird neu geladen.",
        "en": "The server reported an error; the view is being reloaded.",
    },
    "guest_tag": {"de": "Gast", "en": "guest"},
    "waiting_since": {"de": "wartet seit {when}", "en": "waiting since {when}"},
    # refusals of the store, by code_key
    "err_bad_name": {
        "de": "Ein Benutzername hat 3 bis 20 Buchstaben, Ziffern, '.', '_' oder '-'.",
        "en": "A user name has 3 to 20 letters, digits, '.', '_' or '-'.",
    },
    "err_bad_password": {
        "de": "Ein Passwort hat mindestens 8 Zeichen.",
        "en": "A password has at least 8 characters.",
    },
    "err_name_taken": {"de": "Dieser Name ist schon vergeben.", "en": "That name is taken."},
    "err_bad_login": {"de": "Falscher Benutzername oder falsches Passwort.", "en": "Wrong user name or password."},
    "err_too_many_attempts": {
        "de": "Zu viele fehlgeschlagene Anmeldungen. Bitte warte {seconds} Sekunden.",
        "en": "Too many failed logins. Please wait {seconds} seconds.",
    },
    "err_stale": {
        "de": "Dieser Zug kommt zu spät: das Spiel ist inzwischen bei Zug {current}. Die Ansicht ist jetzt aktuell.",
        "en": "This move came too late: the game has moved on to move {current}. The view is up to date now.",
    },
    "err_stale_seats": {
        "de": "Während dein Zug gespeichert wurde, haben sich die Plätze oder Uhren des Spiels geändert; "
              "er wurde nicht gespeichert. Bitte schicke ihn noch einmal.",
        "en": "The game's seats or clocks changed while your move was being stored; it was not stored. "
              "Please send it again.",
    },
    "err_seat_taken_over": {
        "de": "Auf deinem Platz spielt jetzt ein Bot (Zeit abgelaufen oder aufgegeben); dein Zug wurde nicht "
              "gespeichert.",
        "en": "A bot plays your seat now (timed out or resigned); your move was not stored.",
    },
    "err_not_your_turn": {"de": "Du bist nicht am Zug.", "en": "It is not your turn."},
    "err_illegal": {"de": "Dieser Zug ist jetzt nicht erlaubt: {action}", "en": "That move is not legal now: {action}"},
    "err_game_over": {"de": "Das Spiel ist beendet.", "en": "The game is over."},
    "err_undo_refused": {
        "de": "Das lässt sich nicht mehr zurücknehmen: seit deiner letzten Aktion hat jemand anders gespielt "
        "oder der Zufall entschieden.",
        "en": "That can no longer be taken back: someone else has played or a chance outcome was drawn since "
        "your last action.",
    },
    "undo": {"de": "Rückgängig", "en": "Undo"},
    "score_breakdown": {"de": "Wie die Punkte zustande kamen", "en": "How the scores came about"},
    "undo_hint": {
        "de": "Deine letzte Aktion zurücknehmen (solange niemand sonst gespielt hat und nichts ausgewürfelt wurde)",
        "en": "Take back your last action (while nobody else has played and nothing was drawn)",
    },
    "err_not_started": {"de": "Das Spiel hat noch nicht begonnen.", "en": "The game has not started yet."},
    "err_not_open": {
        "de": "Das Spiel hat schon begonnen oder ist vorbei.",
        "en": "The game has already started or is over.",
    },
    "err_full": {"de": "Für dich ist kein Platz frei.", "en": "No seat is free for you."},
    "err_already_seated": {"de": "Du sitzt schon in diesem Spiel.", "en": "You already have a seat in this game."},
    "err_not_seated": {"de": "Du hast keinen Platz in diesem Spiel.", "en": "You have no seat in this game."},
    "err_not_creator": {"de": "Nur wer das Spiel angelegt hat, kann es absagen.", "en": "Only the creator can cancel."},
    "err_creator_leaves": {"de": "Du hast das Spiel angelegt: sag es stattdessen ab.", "en": "You created this game: cancel it instead."},
    "err_no_game": {"de": "Dieses Spiel gibt es nicht.", "en": "There is no such game."},
    "err_no_user": {"de": "Diesen Benutzer gibt es nicht.", "en": "There is no such user."},
    "err_login_needed": {"de": "Bitte melde dich zuerst an.", "en": "Please log in first."},
    "err_csrf": {
        "de": "Das Formular ist abgelaufen (CSRF-Schutz). Bitte lade die Seite neu.",
        "en": "The form has expired (CSRF protection). Please reload the page.",
    },
}


def t(key: str, lang: str, **params: Any) -> str:
    """The text for ``key`` in ``lang`` with ``{params}`` filled in.

    The gettext catalogue (`catalogs`) comes first; `TEXTS` is the fallback for keys added since the
    last ``python -m ludothek.devtools.po_import``, then English, then the key itself.
    """
    text = catalogs.lookup(key, lang)
    if text is None:
        entry = TEXTS.get(key)
        text = key if entry is None else entry.get(lang) or entry.get("en") or catalogs.lookup(key, "en") or key
    return _fill(text, params)


def tn(key: str, n: int, lang: str, **params: Any) -> str:
    """The plural form of ``key`` for the count ``n`` in ``lang``; ``{n}`` and ``{params}`` filled in.

    Catalogue first (``msgstr[i]`` by the language's plural rule); the fallback is
    ``TEXTS["key#one"]`` / ``TEXTS["key#other"]`` (CLDR categories through Babel), then `t`.
    """
    params = {"n": n, **params}
    text = catalogs.lookup_plural(key, n, lang)
    if text is None:
        category = _plural_category(n, lang)
        for candidate in (f"{key}#{category}", f"{key}#other"):
            entry = TEXTS.get(candidate)
            if entry is not None:
                text = entry.get(lang) or entry.get("en")
                break
    return _fill(text, params) if text is not None else t(key, lang, **params)


def _plural_category(n: int, lang: str) -> str:
    from babel import Locale

    return str(Locale.parse(lang).plural_form(abs(n)))


def _fill(text: str, params: Mapping[str, Any]) -> str:
    if params:
        try:
            return text.format(**params)
        except (KeyError, IndexError, ValueError):
            return text
    return text


def pick(texts: Mapping[str, str] | None, lang: str) -> str:
    """The text of a ``{"de": ..., "en": ...}`` mapping from game data, falling back to English."""
    if not texts:
        return ""
    return texts.get(lang) or texts.get("en") or next(iter(texts.values()))


def choose_lang(accept_language: str | None) -> str:
    """German or English from an Accept-Language header (English unless German comes first)."""
    for part in (accept_language or "").split(","):
        code = part.split(";")[0].strip().lower()[:2]
        if code in LANGS:
            return code
    return "en"


#: Sessions, tokens and passwords on the account page (issue 15).
TEXTS.update({
    "token_expires": {"de": "Läuft ab", "en": "Expires"},
    "token_expires_on": {"de": "läuft ab am {when}", "en": "expires {when}"},
    "token_no_expiry": {"de": "läuft nie ab", "en": "never expires"},
    "token_never": {"de": "nie", "en": "never"},
    "token_days": {"de": "nach {n} Tagen", "en": "after {n} days"},
    "token_last_used": {"de": "zuletzt benutzt", "en": "last used"},
    "token_unused": {"de": "noch nie benutzt", "en": "never used"},
    "token_revoke": {"de": "Widerrufen", "en": "Revoke"},
    "tokens_none": {"de": "Du hast keine API-Tokens.", "en": "You have no API tokens."},
    "password_change": {"de": "Passwort ändern", "en": "Change password"},
    "password_current": {"de": "Jetziges Passwort", "en": "Current password"},
    "password_new": {"de": "Neues Passwort", "en": "New password"},
    "password_change_note": {
        "de": "Danach sind alle anderen Anmeldungen beendet und alle API-Tokens widerrufen.",
        "en": "Afterwards every other login is ended and every API token revoked.",
    },
    "password_changed": {
        "de": "Passwort geändert. Alle anderen Anmeldungen und alle API-Tokens sind beendet.",
        "en": "Password changed. Every other login and every API token has ended.",
    },
    "sessions_title": {"de": "Anmeldungen", "en": "Logins"},
    "sessions_count#one": {"de": "Du bist in einem Browser angemeldet.", "en": "You are logged in in one browser."},
    "sessions_count#other": {"de": "Du bist in {n} Browsern angemeldet.", "en": "You are logged in in {n} browsers."},
    "logout_everywhere": {"de": "Überall abmelden", "en": "Log out everywhere"},
    "logout_everywhere_note": {
        "de": "Beendet jede Anmeldung in jedem Browser, auch diese, und widerruft alle API-Tokens.",
        "en": "Ends every login in every browser, this one too, and revokes every API token.",
    },
    "err_bad_current_password": {"de": "Das jetzige Passwort stimmt nicht.", "en": "The current password is wrong."},
    "err_guest_password": {
        "de": "Ein Gastkonto hat kein Passwort; mach es zuerst zu einem richtigen Konto.",
        "en": "A guest account has no password; turn it into a real account first.",
    },
    "err_guest_name": {
        "de": "Namen, die mit „guest-“ beginnen, sind Gastkonten vorbehalten.",
        "en": "Names beginning with “guest-” are kept for guest accounts.",
    },
    "err_no_token": {"de": "Dieses Token gibt es nicht.", "en": "There is no such token."},
    "err_bad_expiry": {
        "de": "Ein Token läuft nach 1 bis 3650 Tagen ab.",
        "en": "A token expires after 1 to 3650 days.",
    },
    "err_bad_text": {
        "de": "Die Eingabe enthält Zeichen, die nicht gespeichert werden können.",
        "en": "The input contains characters that cannot be stored.",
    },
    # correspondence clocks, leaving, vacations (issue 9)
    "time_control": {"de": "Bedenkzeit", "en": "Time control"},
    "err_bad_time_control": {
        "de": "Unbekannte Bedenkzeit „{spec}“: keine, 1, 2, 3, 5, 7 oder 14 Tage pro Zug, oder ein Zeitkonto.",
        "en": "Unknown time control “{spec}”: none, 1, 2, 3, 5, 7 or 14 days per move, or a time bank.",
    },
    "err_bad_vacation": {
        "de": "Ein Urlaub dauert mehr als 0 und höchstens 30 Tage und beginnt jetzt oder innerhalb eines Jahres.",
        "en": "A vacation lasts more than 0 and at most 30 days, and starts now or within a year.",
    },
    "tc_none": {"de": "Keine (wie auf Yucata)", "en": "None (as on Yucata)"},
    "tc_move#one": {"de": "{n} Tag pro Zug", "en": "{n} day per move"},
    "tc_move#other": {"de": "{n} Tage pro Zug", "en": "{n} days per move"},
    "tc_bank": {
        "de": "Zeitkonto: {start} Tage, +{add} pro Zug, höchstens {most}",
        "en": "Time bank: {start} days, +{add} per move, at most {most}",
    },
    "clock_left": {"de": "noch {time}", "en": "{time} left"},
    "clock_days": {"de": "{d} T. {h} Std.", "en": "{d} d {h} h"},
    "clock_hours": {"de": "{h} Std. {m} Min.", "en": "{h} h {m} min"},
    "left_timed_out": {"de": "Zeit abgelaufen – ein Bot spielt weiter", "en": "timed out – a bot plays on"},
    "left_resigned": {"de": "aufgegeben – ein Bot spielt weiter", "en": "resigned – a bot plays on"},
    "away_until": {"de": "im Urlaub bis {when}; die Uhr steht", "en": "on vacation until {when}; the clock is paused"},
    "resign": {"de": "Aufgeben", "en": "Resign"},
    "resign_note": {
        "de": "Ein Bot übernimmt deinen Platz, und du wirst Letzter.",
        "en": "A bot takes over your seat, and you are placed last.",
    },
    "abandon_offer": {"de": "Abbruch vorschlagen", "en": "Offer to abandon"},
    "abandon_agree": {"de": "Abbruch zustimmen", "en": "Agree to abandon"},
    "abandon_decline": {"de": "Abbruch ablehnen", "en": "Decline abandoning"},
    "abandon_pending": {
        "de": "Abbruch vorgeschlagen: Das Spiel endet ohne Ergebnis, wenn alle zustimmen.",
        "en": "Abandoning offered: the game ends without a result if everyone agrees.",
    },
    "abandoned": {"de": "Abgebrochen (ohne Ergebnis)", "en": "Abandoned (no result)"},
    "vacation_title": {"de": "Urlaub", "en": "Vacation"},
    "vacation_note": {
        "de": "Während eines Urlaubs stehen deine Uhren. Bis zu 30 Tage im Kalenderjahr; dieses Jahr noch {left} Tage.",
        "en": "While you are away your clocks are paused. Up to 30 days per calendar year; {left} days left this year.",
    },
    "vacation_days": {"de": "Tage ab jetzt", "en": "Days from now"},
    "vacation_declare": {"de": "Urlaub eintragen", "en": "Declare vacation"},
    "vacation_current": {"de": "Urlaub vom {starts} bis {ends}", "en": "Vacation from {starts} to {ends}"},
})

# Help at hand: game pages and rules pages (ludothek/portal/helppages.py).
TEXTS.update({
    "err_unknown_game": {"de": "Ein Spiel „{game}“ gibt es hier nicht.", "en": "There is no game “{game}” here."},
    "games_all": {"de": "Alle Spiele", "en": "All games"},
    "rules": {"de": "Spielregeln", "en": "Rules"},
    "rules_of": {"de": "Spielregeln: {title}", "en": "Rules: {title}"},
    "rules_help": {"de": "Spielregeln (öffnet in neuem Tab)", "en": "Rules (opens in a new tab)"},
    "rules_show": {"de": "Zeige", "en": "Show"},
    "rules_short": {"de": "nur Kurzfassung", "en": "short version only"},
    "rules_long": {"de": "nur ausführliche Fassung", "en": "long version only"},
    "rules_both": {"de": "ausführliche und Kurzfassung", "en": "long and short version"},
    "rules_summary": {"de": "Kurzfassung", "en": "In short"},
    "rules_contents": {"de": "Inhalt", "en": "Contents"},
    "game_page": {"de": "Über das Spiel", "en": "About the game"},
    "about_players": {"de": "Spieler", "en": "Players"},
    "about_duration": {"de": "Dauer", "en": "Playing time"},
    "about_minutes": {"de": "{minutes} Minuten", "en": "{minutes} minutes"},
    "about_age": {"de": "Alter", "en": "Age"},
    "about_age_from": {"de": "ab {age} Jahren", "en": "{age} and up"},
    "about_designer": {"de": "Autor", "en": "Designer"},
    "about_illustrator": {"de": "Illustration", "en": "Illustrator"},
    "about_publisher": {"de": "Verlag", "en": "Publisher"},
    "about_bgg": {"de": "BoardGameGeek", "en": "BoardGameGeek"},
    "recent_games": {"de": "Letzte Partien", "en": "Recent games"},
    "no_recent_games": {"de": "Noch keine Partien.", "en": "No games yet."},
})

#: E-mail, notification settings, mail links, password reset and the mails themselves (issue 9).
TEXTS.update({
    "mail_title": {"de": "Benachrichtigungen per E-Mail", "en": "E-mail notifications"},
    "mail_address": {"de": "E-Mail-Adresse", "en": "E-mail address"},
    "mail_address_note": {
        "de": "Nur du siehst sie. Sie zählt erst, wenn du den Link in der Bestätigungsmail öffnest (48 Stunden gültig).",
        "en": "Only you see it. It counts only once you open the link in the confirmation mail (valid for 48 hours).",
    },
    "mail_verified": {"de": "bestätigt", "en": "confirmed"},
    "mail_pending": {"de": "wartet auf Bestätigung: {address}", "en": "waiting for confirmation: {address}"},
    "mail_none": {"de": "Noch keine Adresse.", "en": "No address yet."},
    "mail_save_address": {"de": "Bestätigungsmail senden", "en": "Send confirmation mail"},
    "mail_remove": {"de": "Adresse entfernen", "en": "Remove address"},
    "mail_verify_sent": {
        "de": "Wir haben eine Bestätigungsmail an {address} geschickt.",
        "en": "We have sent a confirmation mail to {address}.",
    },
    "mail_turns": {"de": "Wenn ich am Zug bin", "en": "When it is my turn"},
    "mail_turns_each": {"de": "eine Mail pro Spiel, sobald ich dran bin", "en": "one mail per game as soon as it is my turn"},
    "mail_turns_digest": {"de": "eine Zusammenfassung am Tag", "en": "one summary a day"},
    "mail_turns_off": {"de": "keine Mail", "en": "no mail"},
    "mail_digest_hour": {"de": "Uhrzeit der Zusammenfassung", "en": "Hour of the summary"},
    "mail_timezone": {"de": "Zeitzone", "en": "Time zone"},
    "mail_invites": {"de": "Einladungen zu Spielen", "en": "Invitations to games"},
    "mail_ended": {"de": "Ende meiner Spiele, mit Ergebnis", "en": "The end of my games, with the result"},
    "mail_save_prefs": {"de": "Einstellungen speichern", "en": "Save settings"},
    "mail_prefs_saved": {"de": "Einstellungen gespeichert.", "en": "Settings saved."},
    "browser_notify": {"de": "Browser-Benachrichtigungen einschalten", "en": "Turn on browser notifications"},
    "browser_notify_note": {
        "de": "Solange ein Ludothek-Tab offen ist, meldet sich der Browser, wenn du am Zug bist.",
        "en": "While a Ludothek tab is open, the browser tells you when it is your turn.",
    },
    "browser_notify_title": {"de": "Du bist am Zug", "en": "It is your turn"},
    "forgot_password": {"de": "Passwort vergessen?", "en": "Forgot your password?"},
    "reset_title": {"de": "Passwort zurücksetzen", "en": "Reset your password"},
    "reset_who": {"de": "Benutzername oder E-Mail-Adresse", "en": "User name or e-mail address"},
    "reset_ask": {"de": "Link schicken", "en": "Send a link"},
    "reset_asked": {
        "de": "Wenn es dazu ein Konto mit bestätigter Adresse gibt, ist ein Link unterwegs. Er gilt eine Stunde.",
        "en": "If there is an account with a confirmed address for this, a link is on its way. It is valid for one hour.",
    },
    "reset_set": {"de": "Neues Passwort setzen", "en": "Set the new password"},
    "reset_done": {
        "de": "Passwort geändert. Alle Anmeldungen und API-Tokens sind beendet; melde dich neu an.",
        "en": "Password changed. Every login and API token has ended; log in again.",
    },
    "verify_done": {"de": "Deine Adresse {address} ist bestätigt.", "en": "Your address {address} is confirmed."},
    "unsub_title": {"de": "Keine Mails mehr", "en": "No more mails"},
    "unsub_confirm": {"de": "Alle Benachrichtigungen abbestellen", "en": "Unsubscribe from every notification"},
    "unsub_question": {
        "de": "Keine Benachrichtigungen mehr an {name} schicken?", "en": "Stop sending notifications to {name}?",
    },
    "unsub_done": {
        "de": "Erledigt: {name} bekommt keine Benachrichtigungen mehr. Im Konto kannst du sie wieder einschalten.",
        "en": "Done: {name} gets no more notifications. You can turn them on again on the account page.",
    },
    "link_title": {"de": "Dieser Link geht nicht", "en": "This link does not work"},
    "err_bad_email": {"de": "Das ist keine gültige E-Mail-Adresse: {reason}", "en": "This is not a valid e-mail address: {reason}"},
    "err_guest_email": {
        "de": "Ein Gastkonto kann keine E-Mail-Adresse haben; mach es zuerst zu einem richtigen Konto.",
        "en": "A guest account cannot have an e-mail address; turn it into a real account first.",
    },
    "err_bad_timezone": {"de": "Unbekannte Zeitzone (z. B. Europe/Berlin).", "en": "Unknown time zone (e.g. Europe/Berlin)."},
    "err_bad_hour": {"de": "Die Stunde ist eine Zahl von 0 bis 23.", "en": "The hour is a number from 0 to 23."},
    "err_bad_turns": {"de": "Unbekannte Einstellung.", "en": "Unknown setting."},
    "err_too_many_attempts": {
        "de": "Zu viele Versuche; bitte später noch einmal.", "en": "Too many attempts; please try again later.",
    },
    "err_link_bad": {
        "de": "Dieser Link ist ungültig (vielleicht abgeschnitten oder verändert). Es wurde nichts geändert.",
        "en": "This link is not valid (it may have been cut off or changed). Nothing was changed.",
    },
    "err_link_expired": {
        "de": "Dieser Link ist abgelaufen. Es wurde nichts geändert; fordere einen neuen an.",
        "en": "This link has expired. Nothing was changed; ask for a new one.",
    },
    "err_link_used": {
        "de": "Dieser Link wurde schon benutzt. Es wurde nichts geändert.",
        "en": "This link was used already. Nothing was changed.",
    },
    "err_link_stale": {
        "de": "Dieser Link passt nicht mehr (die Adresse oder das Konto hat sich geändert). Es wurde nichts geändert.",
        "en": "This link no longer fits (the address or the account has changed). Nothing was changed.",
    },
    # The mails
    "mail_hello": {"de": "Hallo {name},", "en": "Hello {name},"},
    "mail_turn_subject": {"de": "{game} #{id}: Du bist am Zug", "en": "{game} #{id}: it is your turn"},
    "mail_turn_body": {
        "de": "in {game} #{id} mit {players} bist du am Zug.", "en": "it is your turn in {game} #{id} with {players}.",
    },
    "mail_turn_move": {"de": "Zuletzt: {move}", "en": "The last move: {move}"},
    "mail_open_game": {"de": "Zum Spiel", "en": "Open the game"},
    "mail_digest_subject_one": {"de": "1 Spiel wartet auf dich", "en": "1 game is waiting for you"},
    "mail_digest_subject_many": {"de": "{n} Spiele warten auf dich", "en": "{n} games are waiting for you"},
    "mail_digest_body": {"de": "in diesen Spielen bist du am Zug:", "en": "it is your turn in these games:"},
    "mail_invite_subject": {"de": "{by} lädt dich zu {game} ein", "en": "{by} invites you to {game}"},
    "mail_invite_body": {
        "de": "{by} lädt dich zu {game} #{id} ein, mit {players}.", "en": "{by} invites you to {game} #{id} with {players}.",
    },
    "mail_ended_subject": {"de": "{game} #{id} ist zu Ende", "en": "{game} #{id} has ended"},
    "mail_ended_body": {"de": "{game} #{id} ist zu Ende. Das Ergebnis:", "en": "{game} #{id} has ended. The result:"},
    "mail_reminder_subject": {"de": "{game} #{id}: Deine Zeit läuft bald ab", "en": "{game} #{id}: your time runs out soon"},
    "mail_reminder_body": {
        "de": "in {game} #{id} mit {players} bist du am Zug, und deine Zeit läuft am {when} ab.",
        "en": "it is your turn in {game} #{id} with {players}, and your time runs out on {when}.",
    },
    "mail_verify_subject": {"de": "Bestätige deine E-Mail-Adresse", "en": "Confirm your e-mail address"},
    "mail_verify_body": {
        "de": "bitte bestätige, dass Ludothek an diese Adresse schreiben darf. Der Link gilt 48 Stunden.",
        "en": "please confirm that Ludothek may write to this address. The link is valid for 48 hours.",
    },
    "mail_verify_link": {"de": "Adresse bestätigen", "en": "Confirm the address"},
    "mail_reset_subject": {"de": "Dein Passwort zurücksetzen", "en": "Reset your password"},
    "mail_reset_body": {
        "de": "jemand möchte das Passwort deines Kontos zurücksetzen. Der Link gilt eine Stunde und nur einmal. "
              "Warst du es nicht, ignoriere diese Mail.",
        "en": "someone asked to reset the password of your account. The link is valid for one hour and only once. "
              "If it was not you, ignore this mail.",
    },
    "mail_reset_link": {"de": "Neues Passwort setzen", "en": "Set a new password"},
    "mail_unsub_footer": {
        "de": "Keine solchen Mails mehr: {url}", "en": "No more such mails: {url}",
    },
    "mail_settings_footer": {"de": "Einstellungen: {url}", "en": "Settings: {url}"},
    "and": {"de": "und", "en": "and"},
})

# Friends, blocks and the game chat (issue 12, part 4).
TEXTS.update({
    "friends": {"de": "Freunde", "en": "Friends"},
    "friends_note": {
        "de": "Deine Freundesliste gehört dir allein: Wer darauf steht, erfährt es nicht. Du siehst, wann deine "
              "Freunde zuletzt hier waren, und lädst sie mit einem Klick zu einem neuen Spiel ein.",
        "en": "Your friend list is yours alone: nobody is told they are on it. You see when your friends were last "
              "here, and invite them to a new game with one click.",
    },
    "friend_add_name": {"de": "Name des Freundes", "en": "Your friend's user name"},
    "friend_add": {"de": "Als Freund hinzufügen", "en": "Add as a friend"},
    "friends_count#one": {"de": "Ein Freund auf deiner Liste.", "en": "One friend on your list."},
    "friends_count#other": {"de": "{n} Freunde auf deiner Liste.", "en": "{n} friends on your list."},
    "friend_invite": {"de": "Zu einem Spiel einladen", "en": "Invite to a game"},
    "friend_remove": {"de": "Entfernen", "en": "Remove"},
    "friend_remove_from_list": {"de": "Von der Freundesliste nehmen", "en": "Take off my friend list"},
    "profile_blocked": {"de": "Du hast diese Person blockiert.", "en": "You have blocked this user."},
    "friends_none": {"de": "Noch niemand auf deiner Liste.", "en": "Nobody on your list yet."},
    "blocks": {"de": "Blockiert", "en": "Blocked"},
    "blocks_note": {
        "de": "Wen du blockierst, der kann dich nicht mehr einladen, nicht mehr an deinen wartenden Spielen "
              "teilnehmen und dich nicht zum Freund machen; seine Chat-Nachrichten siehst du nicht mehr. "
              "Laufende Spiele gehen weiter.",
        "en": "Whom you block can no longer invite you, join your waiting games or put you on their friend list, "
              "and you no longer see their chat messages. Running games go on.",
    },
    "block_name": {"de": "Name der Person, die du blockieren willst", "en": "User name to block"},
    "block": {"de": "Blockieren", "en": "Block"},
    "unblock": {"de": "Nicht mehr blockieren", "en": "Unblock"},
    "blocked_since": {"de": "seit {when}", "en": "since {when}"},
    "active_never": {"de": "noch nicht gesehen", "en": "not seen yet"},
    "active_now": {"de": "gerade aktiv", "en": "active now"},
    "active_minutes#one": {"de": "vor {n} Minute aktiv", "en": "active {n} minute ago"},
    "active_minutes#other": {"de": "vor {n} Minuten aktiv", "en": "active {n} minutes ago"},
    "active_hours#one": {"de": "vor einer Stunde aktiv", "en": "active an hour ago"},
    "active_hours#other": {"de": "vor {n} Stunden aktiv", "en": "active {n} hours ago"},
    "active_days#one": {"de": "vor einem Tag aktiv", "en": "active a day ago"},
    "active_days#other": {"de": "vor {n} Tagen aktiv", "en": "active {n} days ago"},
    "friend_invite_one_click": {"de": "Freunde einladen:", "en": "Invite friends:"},
    "friend_invite_full": {
        "de": "Kein Platz ist mehr frei; wähle mehr Spieler oder mach einen Platz frei.",
        "en": "No seat is free; choose more players or free a seat.",
    },
    "friends_add_hint": {
        "de": "Freunde auf deine Liste setzen, um sie mit einem Klick einzuladen",
        "en": "Put friends on your list to invite them with one click",
    },
    "chat": {"de": "Chat am Tisch", "en": "Table chat"},
    "chat_players_only": {
        "de": "Den Chat der Spieler kann man hier lesen, sobald das Spiel zu Ende ist.",
        "en": "The players' chat can be read here once the game has ended.",
    },
    "chat_empty": {"de": "Noch keine Nachrichten.", "en": "No messages yet."},
    "chat_placeholder": {"de": "Nachricht an den Tisch", "en": "Message to the table"},
    "chat_send": {"de": "Senden", "en": "Send"},
    "chat_note": {
        "de": "Nur Text, höchstens {n} Zeichen, höchstens 10 Nachrichten pro Minute.",
        "en": "Plain text, at most {n} characters, at most 10 messages a minute.",
    },
    "chat_at_move": {"de": "Zug {n}", "en": "move {n}"},
    "chat_report": {"de": "Melden", "en": "Report"},
    "chat_report_reason": {"de": "Grund der Meldung", "en": "Why you report it"},
    "chat_reported": {"de": "Gemeldet. Danke!", "en": "Reported. Thank you!"},
    "report_abuse": {"de": "Beleidigung", "en": "Abuse"},
    "report_spam": {"de": "Spam", "en": "Spam"},
    "report_cheating": {"de": "Schummeln", "en": "Cheating"},
    "report_other": {"de": "Anderes", "en": "Other"},
    "chat_earlier#one": {"de": "Eine frühere Nachricht – den ganzen Chat zeigen", "en": "One earlier message – show the whole chat"},
    "chat_earlier#other": {"de": "{n} frühere Nachrichten – den ganzen Chat zeigen", "en": "{n} earlier messages – show the whole chat"},
    "chat_hidden#one": {
        "de": "Eine Nachricht von jemandem, den du blockiert hast, wird nicht gezeigt.",
        "en": "One message by someone you blocked is not shown.",
    },
    "chat_hidden#other": {
        "de": "{n} Nachrichten von Leuten, die du blockiert hast, werden nicht gezeigt.",
        "en": "{n} messages by people you blocked are not shown.",
    },
    "err_no_user_named_plain": {"de": "Einen Benutzer „{name}“ gibt es nicht.", "en": "There is no user called “{name}”."},
    "err_befriend_self": {"de": "Dich selbst kannst du nicht als Freund hinzufügen.", "en": "You cannot put yourself on your friend list."},
    "err_block_self": {"de": "Dich selbst kannst du nicht blockieren.", "en": "You cannot block yourself."},
    "err_you_blocked": {
        "de": "Du hast {name} blockiert; hebe die Blockierung zuerst auf.", "en": "You have blocked {name}; unblock them first.",
    },
    "err_blocked_invite": {"de": "{name} nimmt keine Einladungen von dir an.", "en": "{name} does not accept invitations from you."},
    "err_you_blocked_player": {
        "de": "Du hast {name} blockiert, der in diesem Spiel mitspielt; hebe die Blockierung auf, um mitzuspielen.",
        "en": "You have blocked {name}, who plays in this game; unblock them to join.",
    },
    "err_blocked_join": {"de": "Jemand in diesem Spiel hat dich blockiert.", "en": "A player of this game has blocked you."},
    "err_blocked_friend": {"de": "{name} hat dich blockiert.", "en": "{name} has blocked you."},
    "err_too_many_friends": {"de": "Deine Freundesliste ist voll ({n} Personen).", "en": "Your friend list is full ({n} people)."},
    "err_too_many_blocks": {"de": "Deine Liste der Blockierten ist voll ({n} Personen).", "en": "Your block list is full ({n} people)."},
    "err_not_friend": {"de": "„{name}“ steht nicht auf deiner Freundesliste.", "en": "“{name}” is not on your friend list."},
    "err_not_blocked": {"de": "Du hast „{name}“ nicht blockiert.", "en": "You have not blocked “{name}”."},
    "err_chat_not_seated": {
        "de": "Nur wer in diesem Spiel mitspielt, kann in seinem Chat schreiben.",
        "en": "Only the players of this game can write in its chat.",
    },
    "err_chat_players": {
        "de": "Den Chat eines laufenden Spiels lesen nur seine Spieler.",
        "en": "The chat of a game that has not ended is for its players only.",
    },
    "err_chat_empty": {"de": "Die Nachricht ist leer.", "en": "The message is empty."},
    "err_chat_too_long": {
        "de": "Eine Nachricht hat höchstens {n} Zeichen, diese hat {length}.",
        "en": "A message has at most {n} characters; this one has {length}.",
    },
    "err_chat_cancelled": {"de": "Dieses Spiel wurde abgesagt.", "en": "This game was cancelled."},
    "err_chat_full": {
        "de": "Der Chat dieses Spiels ist voll ({n} Nachrichten).", "en": "This game's chat is full ({n} messages).",
    },
    "err_chat_rate": {
        "de": "Höchstens 10 Nachrichten pro Minute; warte {seconds} Sekunden.",
        "en": "At most 10 messages a minute; wait {seconds} seconds.",
    },
    "err_chat_rate_addr": {
        "de": "Von deiner Adresse kommen sehr viele Nachrichten; warte {seconds} Sekunden.",
        "en": "Very many messages come from your address; wait {seconds} seconds.",
    },
    "err_no_message": {
        "de": "Eine Nachricht, die du melden könntest, gibt es unter dieser Nummer nicht.",
        "en": "There is no message you could report with this id.",
    },
    "err_report_own": {"de": "Deine eigene Nachricht kannst du nicht melden.", "en": "You cannot report your own message."},
    "err_already_reported": {"de": "Du hast diese Nachricht schon gemeldet.", "en": "You have reported this message already."},
    "err_report_reason": {"de": "Unbekannter Grund der Meldung.", "en": "Unknown reason for a report."},
    "err_no_report": {"de": "Diese Meldung gibt es nicht (oder sie ist erledigt).", "en": "There is no such open report."},
})

#: History, replays, ratings and profiles (issue 12).
TEXTS.update({
    "replay": {"de": "Wiederholung", "en": "Replay"},
    "replay_mine": {"de": "Meine bisherigen Ansichten", "en": "Replay my views so far"},
    "replay_imported": {"de": "hochgeladene Aufzeichnung, nicht gespeichert", "en": "uploaded record, not stored"},
    "replay_step": {"de": "Zug {n} von {last}", "en": "Move {n} of {last}"},
    "replay_first": {"de": "Zum Anfang", "en": "To the start"},
    "replay_prev": {"de": "Einen Zug zurück", "en": "One move back"},
    "replay_next": {"de": "Einen Zug vor", "en": "One move on"},
    "replay_last": {"de": "Zum Ende", "en": "To the end"},
    "replay_play": {"de": "Abspielen", "en": "Play"},
    "replay_pause": {"de": "Anhalten", "en": "Pause"},
    "replay_speed": {"de": "Tempo", "en": "Speed"},
    "speed_fast": {"de": "schnell (2 Züge pro Sekunde)", "en": "fast (2 moves a second)"},
    "speed_normal": {"de": "normal (1 Zug pro Sekunde)", "en": "normal (1 move a second)"},
    "speed_slow": {"de": "langsam (1 Zug in 2 Sekunden)", "en": "slow (1 move every 2 seconds)"},
    "replay_jump": {"de": "Springen zu Zug", "en": "Jump to move"},
    "replay_view": {"de": "Ansicht von", "en": "View of"},
    "replay_spectator": {"de": "Zuschauer", "en": "Spectator"},
    "replay_show": {"de": "Zeigen", "en": "Show"},
    "replay_extras": {"de": "Nachrichten bis hier", "en": "Messages so far"},
    "record_download": {"de": "Aufzeichnung herunterladen (JSON)", "en": "Download the record (JSON)"},
    "replay_import": {"de": "Aufzeichnung ansehen", "en": "View a record"},
    "replay_import_note": {
        "de": "Lade eine Spielaufzeichnung (JSON) hoch: Sie wird geprüft und als Wiederholung gezeigt, "
              "aber nicht als Spiel dieser Seite gespeichert.",
        "en": "Upload a game record (JSON): it is checked and shown as a replay, "
              "but not stored as a game of this site.",
    },
    "replay_import_file": {"de": "Datei", "en": "File"},
    "replay_import_text": {"de": "… oder die Aufzeichnung hier einfügen", "en": "… or paste the record here"},
    "replay_import_show": {"de": "Prüfen und zeigen", "en": "Check and show"},
    "whole_log": {"de": "Ganzer Spielverlauf", "en": "Whole log"},
    "log_earlier": {"de": "Frühere Züge", "en": "Earlier moves"},
    "member_since": {"de": "Dabei seit", "en": "Member since"},
    "languages": {"de": "Sprachen", "en": "Languages"},
    "languages_pick#one": {"de": "Sprachen, die ich spreche (höchstens {n})", "en": "Languages I speak (at most {n})"},
    "languages_pick#other": {"de": "Sprachen, die ich spreche (höchstens {n})", "en": "Languages I speak (at most {n})"},
    "profile_edit": {"de": "Profil bearbeiten", "en": "Edit my profile"},
    "profile_link": {"de": "Mein Profil", "en": "My profile"},
    "about_me": {"de": "Über mich", "en": "About me"},
    "about_hint#one": {"de": "Nur Text, höchstens {n} Zeichen.", "en": "Plain text, at most {n} character."},
    "about_hint#other": {"de": "Nur Text, höchstens {n} Zeichen.", "en": "Plain text, at most {n} characters."},
    "save": {"de": "Speichern", "en": "Save"},
    "profile_games": {"de": "Spiele und Wertungen", "en": "Games and ratings"},
    "played": {"de": "Gespielt", "en": "Played"},
    "won": {"de": "Gewonnen", "en": "Won"},
    "rating": {"de": "Wertung", "en": "Rating"},
    "rated_games#one": {"de": "{n} gewertete Partie", "en": "{n} rated game"},
    "rated_games#other": {"de": "{n} gewertete Partien", "en": "{n} rated games"},
    "leaderboard_place": {"de": "Platz {n} der Bestenliste", "en": "number {n} on the leaderboard"},
    "rating_chart_caption": {"de": "Verlauf der Wertung in {game}", "en": "How the {game} rating went"},
    "rating_chart_label#one": {
        "de": "Wertung nach {n} Partie: {last}", "en": "Rating after {n} game: {last}",
    },
    "rating_chart_label#other": {
        "de": "Wertung über {n} Partien: von {first} auf {last} (zwischen {low} und {high})",
        "en": "Rating over {n} games: from {first} to {last} (between {low} and {high})",
    },
    "rating_note#one": {
        "de": "Die Wertung ist μ − 3σ (openskill); gewertet werden Partien mit mindestens zwei Menschen. "
              "In die Bestenliste kommt man ab {n} gewerteten Partie.",
        "en": "The rating is μ − 3σ (openskill); games with at least two people count. "
              "The leaderboard lists players from {n} rated game on.",
    },
    "rating_note#other": {
        "de": "Die Wertung ist μ − 3σ (openskill); gewertet werden Partien mit mindestens zwei Menschen. "
              "In die Bestenliste kommt man ab {n} gewerteten Partien.",
        "en": "The rating is μ − 3σ (openskill); games with at least two people count. "
              "The leaderboard lists players from {n} rated games on.",
    },
    "no_finished_games": {"de": "Noch keine beendete Partie.", "en": "No finished game yet."},
    "running_watch": {"de": "Laufende Spiele (zum Zuschauen)", "en": "Running games (to watch)"},
    "leaderboard": {"de": "Bestenliste", "en": "Leaderboard"},
    "leaderboard_note#one": {
        "de": "Sortiert nach der vorsichtigen Wertung μ − 3σ; dabei ist, wer mindestens {n} gewertete Partie hat.",
        "en": "Sorted by the conservative rating μ − 3σ; it lists players with at least {n} rated game.",
    },
    "leaderboard_note#other": {
        "de": "Sortiert nach der vorsichtigen Wertung μ − 3σ; dabei ist, wer mindestens {n} gewertete Partien hat.",
        "en": "Sorted by the conservative rating μ − 3σ; it lists players with at least {n} rated games.",
    },
    "leaderboard_empty#one": {
        "de": "Noch niemand hat {n} gewertete Partie.", "en": "Nobody has {n} rated game yet.",
    },
    "leaderboard_empty#other": {
        "de": "Noch niemand hat {n} gewertete Partien.", "en": "Nobody has {n} rated games yet.",
    },
    "page_prev": {"de": "vorige Seite", "en": "previous page"},
    "page_next": {"de": "nächste Seite", "en": "next page"},
    "page_of": {"de": "Seite {n} von {total}", "en": "page {n} of {total}"},
    "recent_finished": {"de": "Zuletzt beendet", "en": "Recently finished"},
    "err_bad_record": {"de": "Die Aufzeichnung lässt sich nicht abspielen: {reason}", "en": "The record does not replay: {reason}"},
    "err_bad_record_action": {
        "de": "Die Aufzeichnung lässt sich nicht abspielen: Aktion {n} („{action}“) ist an dieser Stelle nicht möglich.",
        "en": "The record does not replay: {reason}",
    },
    "err_bad_record_json": {
        "de": "Das ist keine Spielaufzeichnung: kein gültiges JSON ({reason}).",
        "en": "That is not a game record: the record is not valid JSON ({reason}).",
    },
    "err_bad_record_shape": {
        "de": "Das ist keine Spielaufzeichnung: Sie muss ein JSON-Objekt mit „game“, „players“ und „actions“ sein.",
        "en": "That is not a game record: it must be a JSON object with \"game\", \"players\" and \"actions\".",
    },
    "err_no_record": {"de": "Wähle eine Aufzeichnungsdatei (JSON) oder füge eine ein.", "en": "Choose a record file (JSON) or paste a record."},
    "err_bad_step": {"de": "Diesen Zug gibt es nicht (0 bis {last}).", "en": "There is no such move (0 to {last})."},
    "err_bad_seat": {"de": "Diesen Platz gibt es in diesem Spiel nicht.", "en": "There is no such seat in this game."},
    "err_replay_seat": {
        "de": "Solange das Spiel läuft, kannst du nur deine eigenen Ansichten (oder die der Zuschauer) wiederholen.",
        "en": "While the game runs, you can replay only your own views (or a spectator's).",
    },
    "err_about_control": {
        "de": "Der Text über dich darf keine Steuerzeichen enthalten ({char}).",
        "en": "The text about you must not contain control characters ({char}).",
    },
    "err_about_long": {
        "de": "Der Text über dich hat {n} Zeichen; höchstens {max} passen.",
        "en": "The text about you has {n} characters; at most {max} fit.",
    },
    "err_bad_language": {"de": "Diese Sprache kennen wir nicht: {code}", "en": "Unknown language: {code}"},
    "err_too_many_languages": {"de": "Nenne höchstens {max} Sprachen.", "en": "Name at most {max} languages."},
    "err_not_finished": {
        "de": "Die Aufzeichnung gibt es zum Herunterladen, sobald das Spiel beendet ist.",
        "en": "The record can be downloaded once the game is over.",
    },
    "err_bad_limit": {"de": "Ungültige Anzahl Zeilen.", "en": "Invalid number of lines."},
    "err_bad_before": {"de": "Ungültige Zugnummer.", "en": "Invalid move number."},
})
