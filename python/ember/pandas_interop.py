"""pandas DataFrames in: ember.from_pandas. (Out: Table.to_pandas.)"""

from ._ember import from_pydict


def from_pandas(frame, partitions: int = 1):
    """A lazy frame over a pandas.DataFrame's columns (NumPy columns cross as whole arrays;
    object columns value by value, NaN-free)."""
    data = {}
    for name in frame.columns:
        column = frame[name]
        data[str(name)] = column.to_numpy() if column.dtype != object else column.tolist()
    return from_pydict(data, partitions=partitions)
