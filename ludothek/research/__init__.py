"""Ludothek's games for AI research (issue 33): integer action tables, OpenSpiel and PettingZoo adapters.

The top layer of the house: nothing else in Ludothek imports it (`.importlinter`), so the portal never
needs the optional ``research`` extra (``pip install -e .[research]``). See ``docs/research.md``.
"""
