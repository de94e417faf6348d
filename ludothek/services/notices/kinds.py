"""Every kind of notice, and which channel carries which (issue 30).

A notice is one outbox row with one of these kinds (`ludothek.storage.outbox.queue_notice`).  The
game kinds reach a player on every channel they want them on (`prefs`); the account kinds (an
address to confirm, a password reset, a changed address, the daily digest) go by mail only and
ignore the preferences: they are what the player asked for, or must know.
"""

from __future__ import annotations

from dataclasses import dataclass

#: What a player may be told about their games and friends, in the order the settings list them.
NOTICE_KINDS = ("turn", "reminder", "timed_out", "invited", "invite_declined", "abandon_offered",
                "abandon_declined", "ended", "friend_request",
                # Issue 31: I entered a tournament, one of its rounds started, it ended (or was called off).
                "tournament_entered", "tournament_round", "tournament_ended")
#: Mail-only kinds about the account itself: sent whatever the preferences say (the digest has its own setting).
ACCOUNT_KINDS = ("verify", "reset", "email_changed", "digest")
KINDS = NOTICE_KINDS + ACCOUNT_KINDS
#: The channels whose names the preferences know (each has the text key ``channel_<name>``).
CHANNEL_NAMES = ("mail", "tab", "push", "webhook")
#: Older names still queued by some code: the kind they mean.
ALIASES = {"invite": "invited"}


def canonical(kind: str) -> str:
    """The kind ``kind`` means (``invite`` is ``invited``)."""
    return ALIASES.get(kind, kind)


@dataclass(frozen=True)
class ChannelInfo:
    """What the preferences page and API know of a channel: its name, the kinds it carries, which are on
    by default.  The label is the text key ``channel_<name>``; each kind's is ``notice_kind_<kind>``."""

    name: str
    kinds: tuple[str, ...]
    defaults: frozenset[str]


GAME = frozenset(NOTICE_KINDS) - {"friend_request"}

#: The channels a player chooses between, in the order the account page shows them.
CHANNELS: dict[str, ChannelInfo] = {}


def add_channel(info: ChannelInfo) -> ChannelInfo:
    """Make a channel known to the preferences (a fifth channel calls this from its own module)."""
    unknown = set(info.kinds) - set(NOTICE_KINDS) or set(info.defaults) - set(info.kinds)
    if unknown:
        raise ValueError(f"channel {info.name!r}: unknown or uncarried kinds {sorted(unknown)}")
    CHANNELS[info.name] = info
    return info


add_channel(ChannelInfo("mail", NOTICE_KINDS, frozenset(NOTICE_KINDS) - {"friend_request"}))
add_channel(ChannelInfo("tab", NOTICE_KINDS, frozenset(NOTICE_KINDS)))
add_channel(ChannelInfo("push", NOTICE_KINDS, frozenset(
    {"turn", "reminder", "timed_out", "invited", "invite_declined", "abandon_offered", "ended", "tournament_round"})))
add_channel(ChannelInfo("webhook", NOTICE_KINDS, frozenset(NOTICE_KINDS)))


def is_account_kind(kind: str) -> bool:
    return kind in ACCOUNT_KINDS
