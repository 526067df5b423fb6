"""The dashboard's number columns as short strings: the page's per-session data in a few
characters a session instead of a JSON number each.

A column (a list of integers or None) becomes one string. Its first character says how to
read it: `=` the values themselves, `+` each value as the difference from the previous
non-null one (dates and row indexes in order, figures that drift: a digit or two instead of
five). Then a stream of codes, each a number written in base-64 digits
(`A`-`Z`, `a`-`z`, `0`-`9`, `-`, `_`: none of them needs escaping in JSON or HTML), five
bits a digit, most significant first, a digit of 32 or more meaning "more digits follow":

- 0 is None (a delta column does not move past it);
- 1 repeats the previous code as many more times as the number after it says (a day's
  sessions share one date; a column of zeros is a few characters);
- 2 + zigzag(x) is x, zigzag mapping 0, -1, 1, -2, … to 0, 1, 2, 3, … so a small
  negative difference is one digit too.

A third form suits figures that are neither small nor close to the previous one (a
session's token counts, its id): `#`, one digit giving the width w, then every value as
exactly w digits of six bits, most significant first (no None, no negative value).

The encoder writes whichever form is shortest. Values past 2**50 (where the page's
script, counting in doubles, would stop being exact) keep the plain JSON list, which the
script reads as it is. dashboard.js's `column()` is the decoder; tests/test_dashboard.py
holds a reference one in Python.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby

DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
SAFE = 2 ** 50  # a column with a value this large stays a JSON list
_NULL, _REPEAT, _FIRST = 0, 1, 2


def column(values: Sequence[int | None]) -> str | list[int | None]:
    """The shortest of the three forms of `values`, or the list itself when a value is too
    large for the page's script to add up exactly."""
    if any(v is not None and abs(v) >= SAFE for v in values):
        return list(values)
    plain, delta = _codes(values, False), _codes(values, True)
    best = min(("=", _size(plain)), ("+", _size(delta)), key=lambda form: form[1])
    width = _fixed_width(values)
    if width is not None and 1 + width * len(values) < best[1]:
        return "#" + DIGITS[width] + "".join(_fixed(v, width) for v in values if v is not None)
    return best[0] + _stream(delta if best[0] == "+" else plain)


def _fixed_width(values: Sequence[int | None]) -> int | None:
    """Six-bit digits enough for the largest value, when every value is there and >= 0."""
    if any(v is None or v < 0 for v in values):
        return None
    top = max((v for v in values if v is not None), default=0)
    return max(1, -(-top.bit_length() // 6))


def _fixed(v: int, width: int) -> str:
    return "".join(DIGITS[(v >> (6 * k)) & 63] for k in range(width - 1, -1, -1))


def _codes(values: Sequence[int | None], delta: bool) -> list[int]:
    if not delta:
        return [_NULL if v is None else 2 * v + _FIRST if v >= 0 else -2 * v - 1 + _FIRST for v in values]
    out, prev = [], 0
    for v in values:
        if v is None:
            out.append(_NULL)
            continue
        x = v - prev
        out.append(2 * x + _FIRST if x >= 0 else -2 * x - 1 + _FIRST)  # zigzag, inline: 100,000s a page
        prev = v
    return out


def _stream(codes: Sequence[int]) -> str:
    """Codes as digits, a run of one code written once with how many more times it comes."""
    parts: list[str] = []
    for code, run in groupby(codes):
        one = _number(code)
        more = sum(1 for _ in run) - 1
        parts.append(one)
        if more:  # repeat by marker only where that is shorter than writing it out again
            marked = _REPEAT_MARK + _number(more)
            parts.append(marked if len(marked) < len(one) * more else one * more)  # as _size counts
    return "".join(parts)


def _size(codes: Sequence[int]) -> int:
    """len(_stream(codes)), without writing it."""
    total = 0
    for code, run in groupby(codes):
        one = _width(code)
        more = sum(1 for _ in run) - 1
        total += one + (min(_width(_REPEAT) + _width(more), one * more) if more else 0)
    return total


def _width(n: int) -> int:
    return max(1, -(-n.bit_length() // 5))


def _number(n: int) -> str:
    return _SMALL[n] if n < len(_SMALL) else _digits(n)


def _digits(n: int) -> str:
    digits = [DIGITS[n & 31]]
    n >>= 5
    while n:
        digits.append(DIGITS[32 | (n & 31)])
        n >>= 5
    return "".join(reversed(digits))


_SMALL = [_digits(n) for n in range(32 * 32)]  # every number of one or two digits, written once
_REPEAT_MARK = _digits(_REPEAT)
