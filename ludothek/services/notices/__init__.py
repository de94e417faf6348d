"""What a player is told (issue 30): the kinds of notice (`kinds`), who wants which on which channel
(`prefs`), and a notice in words (`messages`).  How it reaches them is `ludothek.workers.channels`."""

from .kinds import ACCOUNT_KINDS, CHANNELS, KINDS, NOTICE_KINDS, ChannelInfo, canonical
from .messages import Message, Messages
from .prefs import NoticePrefs, Recipient

__all__ = ["ACCOUNT_KINDS", "CHANNELS", "KINDS", "NOTICE_KINDS", "ChannelInfo", "Message", "Messages",
           "NoticePrefs", "Recipient", "canonical"]
