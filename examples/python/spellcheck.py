"""The main job from Python: spell-check every WordNet gloss with a Hunspell dictionary loaded
once per actor (Debian's python3-hunspell, hunspell-en-us and wordnet-base).

    python3 examples/python/spellcheck.py [--concurrency N] [--batch-size N]
                                          [--isolation process|thread] [--corpus DIR]

The same job as ./run.sh (examples/spellcheck), with the same tokenizer, so the same result:
10,558 of WordNet's 117,659 glosses hold a word the dictionary does not know.
"""

import argparse
import json
import os
import re
import tempfile

import ember
from ember import col

WORDNET = "/usr/share/wordnet"
DICTIONARY = "/usr/share/hunspell/en_US"
# A word: an ASCII letter or apostrophe, then letters, apostrophes or bytes of multi-byte
# characters (as examples/spellcheck/speller.cpp reads the text's UTF-8 bytes).
WORD = re.compile(rb"[A-Za-z'][A-Za-z'\x80-\xff]*")


def write_wordnet_corpus(out_dir, files=16):
    """One JSON object per WordNet synset ({"id", "pos", "text"}: its gloss), spread over
    `files` JSON-lines files, as examples/spellcheck/wordnet_corpus.cpp writes them."""
    os.makedirs(out_dir, exist_ok=True)
    outs = [open(os.path.join(out_dir, "docs-%02d.jsonl" % k), "w") for k in range(files)]
    doc = 0
    for pos in ("noun", "verb", "adj", "adv"):
        with open(os.path.join(WORDNET, "data." + pos), "rb") as f:
            for line in f:
                line = line.rstrip(b"\n")
                if not line or line.startswith(b" ") or b" | " not in line:
                    continue  # the licence header
                gloss = line.split(b" | ", 1)[1].rstrip(b" ").decode("utf-8", "replace")
                outs[doc % files].write(json.dumps({"id": doc, "pos": pos, "text": gloss}) + "\n")
                doc += 1
    for out in outs:
        out.close()
    return doc


@ember.cls(returns=ember.int64(), concurrency=2, batch_size=512, isolation="process")
class Speller:
    """Counts the words of each text that the dictionary does not know."""

    def __init__(self, dictionary=DICTIONARY):
        import hunspell  # Debian's python3-hunspell
        if not os.path.exists(dictionary + ".dic"):
            raise FileNotFoundError("dictionary not found: %s.dic (install hunspell-en-us)"
                                    % dictionary)
        self.dict = hunspell.HunSpell(dictionary + ".dic", dictionary + ".aff")

    def misspelled(self, text):
        typos = 0
        for match in WORD.finditer(text.encode("utf-8")):
            word = match.group().strip(b"'")
            if len(word) < 2 or max(word) >= 0x80:
                continue  # single letters, and words with non-ASCII letters
            if not self.dict.spell(word.decode("ascii")):
                typos += 1
        return typos

    def __call__(self, texts):
        return [None if t is None else self.misspelled(t) for t in texts.to_pylist()]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=512)
    parser.add_argument("--isolation", choices=["process", "thread"], default="process")
    parser.add_argument("--corpus", default=os.path.join(tempfile.gettempdir(),
                                                        "ember-spellcheck-corpus"))
    parser.add_argument("--progress", action="store_true")
    args = parser.parse_args()

    if not os.path.isdir(args.corpus) or not os.listdir(args.corpus):
        docs = write_wordnet_corpus(args.corpus)
        print("wrote %d WordNet glosses into %s" % (docs, args.corpus))
    speller = Speller.options(concurrency=args.concurrency, batch_size=args.batch_size,
                              isolation=args.isolation)
    result = (ember.read_jsonl(os.path.join(args.corpus, "*.jsonl"))
              .with_column("typos", speller()(col("text")))
              .where(col("typos") > 0)
              .select("id", "typos", "text")
              .execute(progress=args.progress))

    s = result.stats.udfs[0]
    print(result.table)
    print("documents processed   %d" % s.rows)
    print("with misspellings     %d (%.1f%%)" % (result.stats.rows_out,
                                                 100.0 * result.stats.rows_out / max(s.rows, 1)))
    print("wall time             %.2f s" % result.stats.wall_seconds)
    print("udf '%s'  actors %d, inits %d, batches %d, init %.2f s, busy %.2f s"
          % (s.name, s.actors, s.inits, s.batches, s.init_seconds, s.busy_seconds))
    print("inits == concurrency  %s (%d == %d): each dictionary was loaded once per actor"
          % ("yes" if s.inits == args.concurrency else "NO", s.inits, args.concurrency))
    return 0 if s.inits == args.concurrency else 1


if __name__ == "__main__":
    raise SystemExit(main())
