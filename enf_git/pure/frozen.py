"""Frozen records without the cost of making a dataclass.

`@dataclass(frozen=True)` writes and compiles each class's `__init__`, `__eq__`,
`__hash__`, `__repr__`, `__setattr__` and `__delattr__` when its module is imported:
~0.5 ms a class, and every SessionStart imports twelve of the records. A `Record`
subclass lists its fields in `FIELDS` and writes its own `__init__` (compiled once,
into the .pyc, like any method); the rest behaves as the dataclass did: equal when
of the same class with equal fields, hashed on its fields (less `UNHASHED`), shown
as `Name(field=value, ...)`, no field assignable after `__init__`, and
`replace(record, **changes)` in place of `dataclasses.replace`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from operator import attrgetter
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

if TYPE_CHECKING or sys.version_info >= (3, 11):
    from typing import dataclass_transform
else:  # Python 3.10 has no dataclass_transform; it only informs type checkers, so a no-op will do
    def dataclass_transform(**_: Any) -> Callable[[type[Any]], type[Any]]:
        return lambda cls: cls

R = TypeVar("R", bound="Record")


class FrozenError(AttributeError):
    """An assignment to a field of a frozen record (dataclasses' FrozenInstanceError)."""


# For type checkers only (no cost at run time): a Record's fields are read-only.
@dataclass_transform(frozen_default=True)
class Record:
    FIELDS: ClassVar[tuple[str, ...]] = ()  # in the order __init__ takes them
    UNHASHED: ClassVar[frozenset[str]] = frozenset()  # fields the hash leaves out (dataclass field(hash=False))

    # The tuple of a record's fields, and of those it is hashed on: C-level getters, so
    # equality and hashing cost what the dataclass's generated methods did.
    _all: ClassVar[Callable[..., tuple[Any, ...]]] = staticmethod(lambda record: ())
    _hashed: ClassVar[Callable[..., tuple[Any, ...]]] = staticmethod(lambda record: ())

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._all = staticmethod(_getter(cls.FIELDS))
        cls._hashed = staticmethod(_getter(tuple(f for f in cls.FIELDS if f not in cls.UNHASHED)))

    def _values(self) -> tuple[Any, ...]:
        return self._all(self)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._all(self) == self._all(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._hashed(self))

    def __repr__(self) -> str:
        own = self.__dict__
        return f"{self.__class__.__qualname__}({', '.join(f'{f}={own[f]!r}' for f in self.FIELDS)})"

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenError(f"cannot delete field {name!r}")


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """A function of a record giving the tuple of its fields `names`."""
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda record: (one(record),)
    return attrgetter(*names) if names else (lambda record: ())


def as_dict(record: Record) -> dict[str, Any]:
    """`record`'s fields by name, records inside it made dicts too (dataclasses.asdict)."""
    return {f: _plain(v) for f, v in zip(record.FIELDS, record._values())}


def _plain(value: Any) -> Any:
    if isinstance(value, Record):
        return as_dict(value)
    if isinstance(value, (tuple, list)):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    return value


def replace(record: R, **changes: Any) -> R:
    """A copy of `record` with `changes` (dataclasses.replace for a Record)."""
    unknown = set(changes) - set(record.FIELDS)
    if unknown:
        raise TypeError(f"{record.__class__.__qualname__} has no field {', '.join(sorted(unknown))}")
    own = record.__dict__
    return record.__class__(**{f: changes[f] if f in changes else own[f] for f in record.FIELDS})
