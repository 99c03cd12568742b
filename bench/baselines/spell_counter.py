"""The spellcheck workload in Python: the tokenising rules of examples/spellcheck/speller.cpp,
with Debian's pyhunspell (python3-hunspell) asking the same en_US dictionary."""
import re

import hunspell

DICTIONARY = "/usr/share/hunspell/en_US"

# A word starts with an ASCII letter or an apostrophe and runs on through letters, apostrophes
# and non-ASCII bytes (C locale isalpha), exactly as Speller::count_misspelled scans.
_WORD = re.compile(rb"[A-Za-z'][A-Za-z'\x80-\xff]*")


class SpellCounter:
    """Loads the dictionary once (the expensive part); counts misspelled words per text."""

    def __init__(self, dictionary=DICTIONARY):
        self._dict = hunspell.HunSpell(dictionary + ".dic", dictionary + ".aff")

    def count(self, text):
        typos = 0
        for token in _WORD.findall(text.encode()):
            word = token.strip(b"'")
            # Single letters and words with non-ASCII bytes are not checked.
            if len(word) < 2 or not word.isascii():
                continue
            if not self._dict.spell(word.decode("ascii")):
                typos += 1
        return typos
