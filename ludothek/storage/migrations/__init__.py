"""Alembic migrations, shipped inside the package and run programmatically (see ``ludothek.storage.db``)."""
