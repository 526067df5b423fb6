"""One thing `git enf forget` can remove, and how: what each source of forgettable
records (the fact stores, the pins) hands to forget. Its own module, so a source and
forget import it, not each other."""

from __future__ import annotations

from collections.abc import Callable


class Forgettable:
    """One thing `forget` can remove: a fact (later also a pin), with how to remove it."""

    def __init__(self, kind: str, scope: str, ident: str, text: str, label: str,
                 remove: Callable[[], str | None]) -> None:
        self.kind, self.scope, self.id, self.text, self.label = kind, scope, ident, text, label
        self.remove = remove  # removes it; returns the commit that did, if one did

    def as_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "scope": self.scope, "id": self.id, "category": self.label, "text": self.text}

    def describe(self) -> str:
        return f"{self.id} ({self.scope} {self.label.lower()}) {self.text}"
