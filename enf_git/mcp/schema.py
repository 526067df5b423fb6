"""Tool arguments: the JSON Schema each tool declares, and the one check that enforces it.

A client shows the model the schema and sends back whatever the model wrote, so the
server checks every call against the same schema it declared (one source: the two
cannot drift) and answers a clear error naming the argument, what it must be and
what came instead. Only the subset of JSON Schema the tools use is understood:
string (minLength, maxLength, enum), integer (minimum, maximum), boolean, an array
of strings (maxItems), `required`, and no properties beyond those declared.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from ..errors import EnfError

Property = dict[str, Any]


class BadArguments(EnfError):
    """A tool call whose arguments do not fit the tool's schema."""


class Spec(NamedTuple):
    """A tool as the server lists it: name, description, arguments, and whether it only reads."""

    name: str
    title: str
    description: str
    properties: dict[str, Property]
    required: tuple[str, ...] = ()
    read_only: bool = True
    example: str = ""  # a call that works, for the hint of an error

    def input_schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "object", "properties": self.properties, "additionalProperties": False}
        if self.required:
            schema["required"] = list(self.required)
        return schema


def string(description: str, *, max_length: int, enum: tuple[str, ...] = ()) -> Property:
    prop: Property = {"type": "string", "description": description, "minLength": 1, "maxLength": max_length}
    if enum:
        prop["enum"] = list(enum)
    return prop


def integer(description: str, *, minimum: int, maximum: int, default: int) -> Property:
    return {"type": "integer", "description": description, "minimum": minimum, "maximum": maximum,
            "default": default}


def boolean(description: str) -> Property:
    return {"type": "boolean", "description": description, "default": False}


def strings(description: str, *, max_items: int, max_length: int) -> Property:
    return {"type": "array", "description": description, "maxItems": max_items,
            "items": {"type": "string", "minLength": 1, "maxLength": max_length}}


def check(spec: Spec, arguments: object) -> dict[str, Any]:
    """The arguments, checked against `spec` and with defaults filled in; BadArguments otherwise."""
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, Mapping):
        raise _bad(spec, f"the arguments must be a JSON object, not {_kind(arguments)}")
    unknown = sorted(set(arguments) - set(spec.properties))
    if unknown:
        takes = ", ".join(spec.properties) or "no arguments"
        raise _bad(spec, f"unknown argument {', '.join(map(repr, unknown))}; {spec.name} takes: {takes}")
    out: dict[str, Any] = {}
    for name, prop in spec.properties.items():
        if name not in arguments or arguments[name] is None:
            if name in spec.required:
                raise _bad(spec, f"the argument {name!r} is required ({prop['description']})")
            out[name] = prop.get("default")
            continue
        out[name] = _value(spec, name, prop, arguments[name])
    return out


def _value(spec: Spec, name: str, prop: Property, value: object) -> Any:
    kind = prop["type"]
    if kind == "string":
        return _string(spec, name, prop, value)
    if kind == "integer":
        # bool is an int to Python, never to JSON; 5.0 is how some clients send 5
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool) or not prop["minimum"] <= value <= prop["maximum"]:
            raise _bad(spec, f"{name!r} must be a whole number from {prop['minimum']} to {prop['maximum']}, "
                             f"not {_shown(value)}")
        return value
    if kind == "boolean":
        if not isinstance(value, bool):
            raise _bad(spec, f"{name!r} must be true or false, not {_shown(value)}")
        return value
    if not isinstance(value, list) or len(value) > prop["maxItems"]:
        raise _bad(spec, f"{name!r} must be a list of at most {prop['maxItems']} strings, not {_shown(value)}")
    return [_string(spec, f"{name}[{i}]", prop["items"], item) for i, item in enumerate(value)]


def _string(spec: Spec, name: str, prop: Property, value: object) -> str:
    if not isinstance(value, str):
        raise _bad(spec, f"{name!r} must be a string, not {_shown(value)}")
    text = value.strip()
    if not text:
        raise _bad(spec, f"{name!r} is empty")
    if len(text) > prop["maxLength"]:
        raise _bad(spec, f"{name!r} is {len(text):,} characters long; at most {prop['maxLength']:,}")
    if "enum" in prop and text not in prop["enum"]:
        raise _bad(spec, f"{name!r} must be one of {', '.join(prop['enum'])}, not {_shown(text)}")
    return text


def _bad(spec: Spec, message: str) -> BadArguments:
    return BadArguments(f"{spec.name}: {message}", hint=f"for example: {spec.example}" if spec.example else None)


def _kind(value: object) -> str:
    return {list: "a list", str: "a string", bool: "a boolean", int: "a number", float: "a number"}.get(
        type(value), type(value).__name__)


def _shown(value: object) -> str:
    text = repr(value)
    return f"{_kind(value)} {text if len(text) <= 60 else text[:57] + '...'}"
