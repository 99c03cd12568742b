"""ember from Python in one page: a lazy query, a stateful UDF class, and the results.

    python3 examples/python/quickstart.py

The class is constructed once per actor (twice here, concurrency=2), however many batches and
partitions it is called for.
"""

import ember
from ember import col


@ember.cls(returns=ember.int64(), concurrency=2, batch_size=1000)
class CountVowels:
    """Counts vowels in text. Imagine __init__ loading a model that takes seconds."""

    def __init__(self, vowels):
        self.vowels = set(vowels)

    def __call__(self, text):  # text: an ember.Series of one batch
        return [sum(ch in self.vowels for ch in t) for t in text.to_pylist()]


def main():
    words = ["ember", "python", "actor", "stateful", "dataframe", "arrow", "batch", "query"]
    df = (ember.range(100_000, partitions=4)
          .with_column("word", col("id").cast(ember.utf8()))
          .with_column("bucket", col("id") % len(words)))
    names = ember.from_pydict({"bucket": list(range(len(words))), "name": words})
    counter = CountVowels("aeiou")  # binds the init args; constructs nothing yet

    result = (df.join(names, on="bucket")
              .with_column("vowels", counter(col("name")))
              .where(col("vowels") >= 2)
              .group_by("name")
              .agg(col("id").count().alias("rows"), col("vowels").first())
              .sort("rows", "name", descending=[True, False])
              .execute(threads=2))

    print(result.table)
    stats = result.stats.udfs[0]
    print("udf %s: %d actors, %d inits, %d batches, %d rows"
          % (stats.name, stats.actors, stats.inits, stats.batches, stats.rows))
    print("inits == concurrency:", stats.inits == 2)
    table = result.table.to_pydict()
    assert sum(table["rows"]) == 75_000, table  # 6 of the 8 words have 2 vowels or more
    assert stats.inits == 2


if __name__ == "__main__":
    main()
