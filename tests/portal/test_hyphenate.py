"""Soft hyphens for card names: breaks at syllables in German and English, text otherwise unchanged."""

from ludothek.portal.hyphenate import SOFT_HYPHEN, soft_hyphens


def test_long_german_names_get_syllable_breaks() -> None:
    assert soft_hyphens("Fernsehsender", "de") == f"Fern{SOFT_HYPHEN}seh{SOFT_HYPHEN}sen{SOFT_HYPHEN}der"
    assert soft_hyphens("Einkaufszentrum", "de").split(SOFT_HYPHEN) == ["Ein", "kaufs", "zen", "trum"]


def test_english_names_and_hard_hyphens_survive() -> None:
    assert soft_hyphens("Amusement Park", "en") == f"Amuse{SOFT_HYPHEN}ment Park"
    assert soft_hyphens("Familien-Restaurant", "de").replace(SOFT_HYPHEN, "") == "Familien-Restaurant"


def test_short_words_and_unknown_languages() -> None:
    assert soft_hyphens("Café", "de") == "Café"
    assert soft_hyphens("Convenience Store", "xx").replace(SOFT_HYPHEN, "") == "Convenience Store"
