"""JSON for the per-call hooks without importing `json`.

`import json` pulls in `re` and `enum` (json.decoder and json.encoder compile
regexes at import), which costs about as much as starting the interpreter. The C
scanner and string encoder behind the json package live in `_json` and need
neither, so hooks parse and print through them. Output is the compact form json
would give; anything unexpected (no `_json`, an unsupported type) falls back to
the json package.
"""

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs ~4 ms here
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, ClassVar

_scan: "Callable[[str, int], tuple[Any, int]] | None"
_CONSTANTS = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}

try:
    import _json

    class _Context:
        """The attributes `_json.make_scanner` reads from a json.JSONDecoder."""

        strict = True
        object_hook = None
        object_pairs_hook = None
        parse_float = float
        parse_int = int
        parse_constant = _CONSTANTS.__getitem__
        memo: "ClassVar[dict[str, str]]" = {}

    # typeshed types the context as a make_scanner itself; any object with these attributes will do.
    _scan = _json.make_scanner(_Context())  # type: ignore[arg-type]
    _encode = _json.encode_basestring  # keeps non-ASCII as is, like ensure_ascii=False
except (ImportError, AttributeError):  # pragma: no cover - every CPython has _json
    _scan = None

_WS = " \t\n\r"


def loads(text: str) -> "Any":
    """Parse one JSON document; ValueError on anything malformed."""
    if _scan is None:
        import json

        return json.loads(text)
    start = len(text) - len(text.lstrip(_WS))
    try:
        value, end = _scan(text, start)
    except StopIteration as exc:
        raise ValueError(f"expecting a JSON value at {exc.value}") from None
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    if text[end:].strip(_WS):
        raise ValueError(f"extra data at {end}")
    return value


def dumps(value: "Any") -> str:
    """Compact JSON (`separators=(",", ":")`, non-ASCII kept)."""
    if _scan is None:
        import json

        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    parts: list[str] = []
    _emit(value, parts)
    return "".join(parts)


def _emit(value: "Any", out: list[str]) -> None:
    if isinstance(value, str):
        out.append(_encode(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(int.__repr__(value))
    elif isinstance(value, float) and value - value == 0.0:  # finite (math.isfinite: a .so to load per call)
        out.append(float.__repr__(value))
    elif isinstance(value, dict):
        out.append("{")
        for i, (k, v) in enumerate(value.items()):
            if not isinstance(k, str):
                raise TypeError(f"keys must be str, not {type(k).__name__}")
            out.append(("," if i else "") + _encode(k) + ":")
            _emit(v, out)
        out.append("}")
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for i, v in enumerate(value):
            if i:
                out.append(",")
            _emit(v, out)
        out.append("]")
    else:
        raise TypeError(f"cannot encode {type(value).__name__}")
