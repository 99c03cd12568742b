"""The cpu-heavy workload in Python: hashed character 3-grams dotted with a fixed vector.

Same definition as bench/workloads/ngram_embedding.cpp: CRC-32 of each 3-byte window modulo
256 buckets, counts L2-normalised, dot with weights built from integer arithmetic.
"""
import math
import zlib

BUCKETS = 256


def make_weights():
    """The "model": 256 weights in [-1, 1], bit-identical to the C++ ones."""
    return [((k * 2654435761) % 2001) / 1000.0 - 1.0 for k in range(BUCKETS)]


def score(text, weights):
    """One text's score; 0.0 below 3 bytes."""
    data = text.encode()
    if len(data) < 3:
        return 0.0
    counts = {}
    crc32 = zlib.crc32
    for i in range(len(data) - 2):
        bucket = crc32(data[i:i + 3]) & 0xFF
        counts[bucket] = counts.get(bucket, 0) + 1
    squares = sum(c * c for c in counts.values())
    dot = 0.0
    for bucket in sorted(counts):  # ascending, as the C++ loop adds them
        dot += weights[bucket] * counts[bucket]
    return dot / math.sqrt(squares)
