"""The order-independent result fingerprint of bench/workloads/result_digest.h, and the report
line every runner prints."""
import json


class ResultDigest:
    def __init__(self):
        self.rows = 0
        self.key_sum = 0
        self.aux_sum = 0
        self.value_sum = 0.0
        self.weighted_sum = 0.0

    def add(self, key, value, aux=0):
        self.rows += 1
        self.key_sum += key
        self.aux_sum += aux
        self.value_sum += value
        self.weighted_sum += value * (key % 1000 + 1)

    def as_dict(self):
        return {"rows": self.rows, "key_sum": self.key_sum, "aux_sum": self.aux_sum,
                "value_sum": self.value_sum, "weighted_sum": self.weighted_sum}


def print_report(system, workload, times, check, notes=""):
    """One JSON line on stdout, the shape bench/compare reads from every runner."""
    print(json.dumps({"system": system, "workload": workload, "times": times,
                      "check": check, "notes": notes}), flush=True)
