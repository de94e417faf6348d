"""Ludothek beside other game servers, measured the same way on the same machine (see README.md)."""
