"""How memory is shown to a model: as quoted data that cannot break out of its frame.

Whatever is on the memory branch reaches every teammate's assistant, and any of it may
have been written by someone else, or summarized from a poisoned page. Claude Code wraps
a hook's context in `<system-reminder>` tags and reads its own markers (`<command-name>`,
`<function_calls>`, "SessionStart hook additional context:", transcript turns): a closing
tag inside our text would end our frame, and what follows would read as the client's.

So every text from memory is passed through `shown` (several lines) or `inline` (one
field, its line breaks folded) on its way into a context, a pointer or a tool result:
- a tag-like sequence, `<` (or an entity or a look-alike of it) then a name, a `/`, `!`
  or `?`, in any letter case and with any spaces, gets guillemets: `‹/system-reminder›`;
- a line that imitates a frame (a transcript turn `Human:`, a hook label `… hook
  additional context:`, one of our own block headings) gets its marker quoted the same
  way (`‹Human›:`), or a backslash before a heading (`\\## Recent sessions`);
- invisible format characters (zero-width spaces and joiners, bidi overrides, soft
  hyphens) that could hide either are dropped.
A person still reads every word. The files on the branch are never changed: this is
how memory is shown, not what it stores. Stdlib only, and `re` is loaded only for a text
that has a character worth looking at: the per-call hooks pass their text through here.
"""

# No `from __future__`, no typing: the per-prompt hook imports this module (each import
# costs there; tests/test_pointers.py counts them).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

OPEN, CLOSE = "\u2039", "\u203a"  # ‹ ›: reads as a bracket, parsed as nothing

# Characters that render as nothing (or reorder what is around them): a tag or a marker
# split by one still reads as one to a model.
INVISIBLE = dict.fromkeys(map(ord, "\u00ad\u180e\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                                   "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff"))
# Line breaks of every kind, for a one-line field (str.splitlines' set).
BREAKS = dict.fromkeys(map(ord, "\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029"), " ")
# ... and in a text of several lines, each of them made a plain `\n`: a reader may take
# any for a line's end, so the line rules must see the same lines.
NEWLINES = {**dict.fromkeys(map(ord, "\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"), "\n")}

# The block headings our contexts use: a memory line equal to one would start a block
# of its own (a fake "## Remembered facts" with orders in it).
HEADINGS = ("enf-git memory", "open disagreements", "interrupted sessions", "standing decisions",
            "recent sessions", "last sessions", "remembered facts", "pinned", "pins", "instincts",
            "handoff", "compressed this start", "memory pointers", "brain-first", "flagged")
SPACED = ("invoke", "parameter", "thinking", "result", "output", "system", "user", "assistant", "human",
          "instructions", "prompt")  # tag names without a `-`, `_` or `:` that are still read as frames
TURNS = ("human", "assistant", "user", "system", "developer", "tool", "ai", "h", "a")

# What makes a text worth a look: any of these present, and the slower rules run.
_TRIGGERS = ("<", "&", "\uff1c", "\ufe64", "\u2329", "\u3008", "\\u003c", "\\x3c", ":", "#")

LT = r"(?:<|&lt;?|&#0*60;?|&#x0*3c;?|\\u003c|\\x3c|\uff1c|\ufe64|\u2329|\u3008)"
GT = r"(?:>|&gt;?|&#0*62;?|&#x0*3e;?|\\u003e|\\x3e|\uff1e|\ufe65|\u232a|\u3009)"

_rules: "dict[int, Callable[[str], str]]" = {}  # index (0 tags, 1 turns, 2 headings) -> the rule, once built
_TAGS = 0


def inline(text: str) -> str:
    """One field (a summary, a decision, a tag): line breaks folded to spaces, so nothing
    in it starts a line of the context, then `shown`."""
    return shown(str(text).translate(BREAKS))


def shown(text: str) -> str:
    """`text` from memory as it may be shown to a model (see the module docstring)."""
    text = str(text)
    if not text.isascii():
        text = text.translate(INVISIBLE)
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    text = text.translate(NEWLINES)
    if not any(t in text for t in _TRIGGERS):
        return text
    # Each rule only where it could apply: most notes hold a `:` or a `#`, few a turn or
    # one of our headings, and the rules' patterns take ~7 ms to compile in a new process
    # (each is compiled at its first use: a SessionStart context needs the headings' alone).
    wanted = (_may_hold_tag(text), _may_turn(text), _may_head(text))
    for index, needed in enumerate(wanted):
        if needed:
            text = _rule(index)(text)
    return text


def _may_turn(text: str) -> bool:
    """Whether a line could start with a turn or a hook label (what the rule's pattern
    takes, looked at with str methods; when unsure, yes)."""
    for line in text.split("\n"):
        core = line.lstrip(" \t>*-+")
        if core.startswith("&"):
            return True  # a quote mark as an entity: the pattern decides
        head = core.partition(":")
        if not head[1]:
            continue
        word = head[0].rstrip().lower()
        if word in TURNS or word.partition(" ")[2].startswith("hook"):
            return True
    return False


def _may_head(text: str) -> bool:
    return any(line.lstrip(" \t").startswith("#") for line in text.split("\n"))


def tags_only(text: str) -> str:
    """Only the tag rule, over a whole reply: the last guard at the boundary to the client
    (our own text has no tags, so whatever one it holds came from memory)."""
    if not _may_hold_tag(text):
        return text
    return _rule(_TAGS)(text)


def _may_hold_tag(text: str) -> bool:
    """A cheap look for any spelling of `<` (an `&` alone, as in "Errors & Fixes", is not one)."""
    if any(t in text for t in ("<", "\uff1c", "\ufe64", "\u2329", "\u3008")):
        return True
    lowered = text.lower() if ("&" in text or "\\" in text) else ""
    return any(t in lowered for t in ("&lt", "&#", "\\u003c", "\\x3c"))


def shown_json(value: object) -> object:
    """`value` (parsed JSON: dicts, lists, strings) with every string `shown`: a tool
    result's JSON cannot carry a closing tag either, whatever key it sits under."""
    if isinstance(value, str):
        return shown(value)
    if isinstance(value, list):
        return [shown_json(v) for v in value]
    if isinstance(value, dict):
        return {k: shown_json(v) for k, v in value.items()}
    return value


def _rule(index: int) -> "Callable[[str], str]":
    found = _rules.get(index)
    if found is None:
        found = _rules[index] = (_tags_rule, _turns_rule, _headings_rule)[index]()
    return found


def _tags_rule() -> "Callable[[str], str]":
    import re

    # `<`, its entities (with or without `;`, decimal or hex, padded) and look-alikes, then
    # a tag: a name, `/`, `!` or `?` right after it, up to a `>` on the line or not (`</x`
    # cut off still reads as a tag); with spaces first (`< / system-reminder >`), only a
    # name a client would use (a `-`, `_` or `:` in it, or a known one), so that a
    # comparison (`a < b and c > d`) is left alone.
    named = rf"(?:[A-Za-z][\w.]*[-_:][\w.:-]*|{'|'.join(SPACED)})"
    closed = re.compile(rf"{LT}(/?[A-Za-z!?][^<>\n]{{0,200}}?|\s*/?\s*{named}\b[^<>\n]{{0,200}}?){GT}",
                        re.IGNORECASE)
    opened = re.compile(rf"{LT}(?=/?[A-Za-z!?]|\s*/?\s*{named}\b)", re.IGNORECASE)

    def tags(text: str) -> str:
        return opened.sub(OPEN, closed.sub(lambda m: f"{OPEN}{m.group(1)}{CLOSE}", text))

    return tags


def _turns_rule() -> "Callable[[str], str]":
    import re

    # At a line's start, after quoting and list marks: a transcript turn, a hook's label.
    lead = r"(?m)^((?:[ \t>*\-+]|&gt;?|&#0*62;?|&#x0*3e;?)*)"  # `>` as an entity too: a quoted turn
    turn = re.compile(lead + rf"({'|'.join(TURNS)})([ \t]*:)", re.IGNORECASE)  # on its own line
    label = re.compile(lead + r"([A-Za-z]+ hook(?: [A-Za-z ]{0,40})?)([ \t]*:)", re.IGNORECASE)

    def turns(text: str) -> str:
        text = turn.sub(lambda m: f"{m.group(1)}{OPEN}{m.group(2)}{CLOSE}{m.group(3)}", text)
        return label.sub(lambda m: f"{m.group(1)}{OPEN}{m.group(2)}{CLOSE}{m.group(3)}", text)

    return turns


def _headings_rule() -> "Callable[[str], str]":
    import re

    heading = re.compile(r"(?m)^([ \t]*)(#{1,6}[ \t]*(?:" + "|".join(map(re.escape, HEADINGS)) + r")\b)",
                         re.IGNORECASE)

    def headings(text: str) -> str:
        return heading.sub(lambda m: f"{m.group(1)}\\{m.group(2)}", text)

    return headings
