"""Stable short ids (a prefix and 7 hex digits of a SHA-1), with nothing else imported:
the pre-push hook's fast path names its scan marker with one and must not pay for the
Y-statement parser's regular expressions (~7 ms) to do it."""

from __future__ import annotations


def stable_id(prefix: str, *parts: str) -> str:
    try:  # CPython's built-in SHA-1: hashlib would load OpenSSL first (~2 ms a process)
        from _sha1 import sha1  # type: ignore[import-not-found]
    except ImportError:  # other interpreters
        from hashlib import sha1

    digest = sha1("\x1f".join(parts).encode("utf-8")).hexdigest()
    return f"{prefix}{digest[:7]}"
