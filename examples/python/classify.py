"""Batch inference with a PyTorch model: each actor builds the model once, in __init__, and
classifies every batch it is handed; the predictions go to Parquet.

    python3 examples/python/classify.py [--rows N] [--concurrency N] [--isolation process|thread]
                                        [--workdir DIR]

The model is defined here and trained for a moment on generated data from a fixed seed, so
every actor (and the test's reference) gets the same weights. The input is Parquet: points
around three centres, each with its true class.
"""

import argparse
import os
import tempfile

import numpy as np

import ember
from ember import col

FEATURES = 8
CLASSES = 3


def make_points(rows, seed):
    """`rows` points around CLASSES centres: (features float32 [rows, FEATURES], labels)."""
    centres = np.random.default_rng(0).normal(0.0, 4.0, size=(CLASSES, FEATURES))
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, CLASSES, size=rows)
    points = centres[labels] + rng.normal(0.0, 1.0, size=(rows, FEATURES))
    return points.astype(np.float32), labels.astype(np.int64)


def build_model():
    """A small classifier, trained for a moment on generated points: the same weights every
    time (fixed seeds, one thread)."""
    import torch
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = torch.nn.Sequential(torch.nn.Linear(FEATURES, 32), torch.nn.ReLU(),
                                torch.nn.Linear(32, CLASSES))
    points, labels = make_points(2000, seed=1)
    x, y = torch.from_numpy(points), torch.from_numpy(labels)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
    for _ in range(150):
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
    return model.eval()


def predict(model, features):
    """The class of each row of `features` (a [rows, FEATURES] float32 array)."""
    import torch
    with torch.no_grad():
        # A copy: the array may be a read-only view of ember's column, and torch wants to own
        # what it may write to.
        return model(torch.tensor(features)).argmax(dim=1).numpy()


class Classifier:
    """The UDF: the model is built once per actor; each call classifies one batch."""

    def __init__(self):
        self.model = build_model()

    def __call__(self, features):  # an ember.Series of fixed_size_list(float32, FEATURES)
        return predict(self.model, features.to_numpy())


def write_input(path, rows):
    points, labels = make_points(rows, seed=2)
    ember.from_pydict({"id": np.arange(rows), "features": points, "label": labels},
                      partitions=4).write_parquet(path, row_group_rows=2000)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=20000)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--isolation", choices=["process", "thread"], default="process")
    parser.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "ember-classify"))
    args = parser.parse_args()

    inputs, outputs = os.path.join(args.workdir, "points"), os.path.join(args.workdir, "predicted")
    write_input(inputs, args.rows)
    classify = ember.cls(Classifier, returns=ember.int64(), batch_size=1024,
                         concurrency=args.concurrency, isolation=args.isolation)

    # Parquet keeps a fixed_size_list as a list: the cast makes it one again (a 2-D array).
    result = (ember.read_parquet(os.path.join(inputs, "*.parquet"))
              .with_column("features",
                           col("features").cast(ember.fixed_size_list(ember.float32(), FEATURES)))
              .with_column("predicted", classify()(col("features")))
              .select("id", "label", "predicted")
              .write_parquet(outputs))

    s = result.stats.udfs[0]
    print("classified %d rows in %d batches, %.2f s; wrote %s"
          % (s.rows, s.batches, result.stats.wall_seconds, outputs))
    print("udf %s: actors %d, inits %d, init %.2f s, busy %.2f s"
          % (s.name, s.actors, s.inits, s.init_seconds, s.busy_seconds))
    print("inits == concurrency  %s (%d == %d): the model was built once per actor"
          % ("yes" if s.inits == args.concurrency else "NO", s.inits, args.concurrency))
    check = ember.read_parquet(os.path.join(outputs, "*.parquet")).agg(
        (col("label") == col("predicted")).cast(ember.int64()).sum().alias("correct"),
        col("id").count().alias("rows")).collect().to_pylist()[0]
    print("accuracy              %.3f" % (check["correct"] / check["rows"]))
    return 0 if s.inits == args.concurrency and check["rows"] == args.rows else 1


if __name__ == "__main__":
    raise SystemExit(main())
