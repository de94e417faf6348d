"""The community's services: the log and replays (`history`), game chats (`chat`), ratings, profiles,
and friends and blocks (`social`); each a small object of its own, built by `ludothek.services.Site`."""
