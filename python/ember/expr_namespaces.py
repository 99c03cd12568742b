"""The .str, .list and .dt namespaces of ember.Expr (the C++ str_*, list_* and dt_* methods)."""

from ._ember import Expr


class _Namespace:
    __slots__ = ("_expr",)

    def __init__(self, expr):
        self._expr = expr


class StrNamespace(_Namespace):
    """Text functions: lengths and positions count Unicode code points; null in, null out."""

    def length(self):
        """Number of code points (int64)."""
        return self._expr._str_length()

    def lower(self):
        """Unicode lower case."""
        return self._expr._str_lower()

    def upper(self):
        """Unicode upper case."""
        return self._expr._str_upper()

    def contains(self, part: str):
        """Whether the text contains `part` (bool)."""
        return self._expr._str_contains(part)

    def starts_with(self, prefix: str):
        """Whether the text starts with `prefix` (bool)."""
        return self._expr._str_starts_with(prefix)

    def ends_with(self, suffix: str):
        """Whether the text ends with `suffix` (bool)."""
        return self._expr._str_ends_with(suffix)

    def replace(self, old: str, new: str):
        """Every occurrence of `old` replaced by `new`."""
        return self._expr._str_replace(old, new)

    def split(self, sep: str):
        """The pieces between occurrences of `sep`, as list(utf8)."""
        return self._expr._str_split(sep)

    def slice(self, start: int, length: int):
        """`length` code points from `start` (negative counts from the end)."""
        return self._expr._str_slice(start, length)

    def strip(self):
        """Without leading and trailing ASCII whitespace."""
        return self._expr._str_strip()

    def pad(self, width: int, fill: str = " ", at_end: bool = False):
        """Padded with `fill` to `width` code points."""
        return self._expr._str_pad(width, fill, at_end)

    def match(self, regex: str):
        """Whether the RE2 pattern matches somewhere in the text (bool)."""
        return self._expr._str_match(regex)

    def extract(self, regex: str, group: int = 0):
        """Capture group `group` of the first match; null where nothing matches."""
        return self._expr._str_extract(regex, group)

    def replace_regex(self, regex: str, to: str):
        """Every match of `regex` replaced by `to` (\\1 .. \\9 name groups)."""
        return self._expr._str_replace_regex(regex, to)


class ListNamespace(_Namespace):
    """List functions (list and fixed_size_list). Calling it, ``col("x").list()``, is the
    aggregate that collects a group's values into one list."""

    def __call__(self):
        """Aggregate: every value of the group, in input order, as one list."""
        return self._expr._list_agg()

    def size(self):
        """Number of items of each list (int64)."""
        return self._expr._list_size()

    def get(self, i: int):
        """Item `i` of each list (negative counts from the end)."""
        return self._expr._list_get(i)

    def contains(self, value):
        """Whether the list holds `value` (bool)."""
        return self._expr._list_contains(value)

    def sum(self):
        """Sum of the non-null items."""
        return self._expr._list_sum()

    def mean(self):
        """Mean of the non-null items (float64)."""
        return self._expr._list_mean()

    def min(self):
        """Smallest non-null item."""
        return self._expr._list_min()

    def max(self):
        """Largest non-null item."""
        return self._expr._list_max()

    def slice(self, start: int, length: int):
        """Items [start, start + length) of each list."""
        return self._expr._list_slice(start, length)

    def join(self, sep: str):
        """The utf8 items joined with `sep`."""
        return self._expr._list_join(sep)

    def sort(self):
        """The items in ascending order, nulls last."""
        return self._expr._list_sort()

    def distinct(self):
        """The distinct non-null items, in order of first appearance."""
        return self._expr._list_distinct()


class DtNamespace(_Namespace):
    """Date and time functions over timestamps (UTC)."""

    def year(self):
        return self._expr._dt_year()

    def month(self):
        return self._expr._dt_month()

    def day(self):
        return self._expr._dt_day()

    def hour(self):
        return self._expr._dt_hour()

    def minute(self):
        return self._expr._dt_minute()

    def second(self):
        return self._expr._dt_second()

    def day_of_week(self):
        """ISO day of the week: 1 Monday .. 7 Sunday."""
        return self._expr._dt_day_of_week()

    def truncate(self, unit: str):
        """The start of the year, month, week, day, hour, minute or second holding it."""
        return self._expr._dt_truncate(unit)


Expr.str = property(StrNamespace, doc="Text functions (ember.expr_namespaces.StrNamespace).")
Expr.list = property(ListNamespace, doc="List functions; col('x').list() aggregates.")
Expr.dt = property(DtNamespace, doc="Date and time functions over timestamps.")
