"""What a question asks for, and whether a passage of memory gives it: recall's signal of meaning.

Recall's weak rule (search.py) reads which query words memory holds. A question about
people and things the notes do mention, asking a detail they never give ("how much did
Declan charge for the bed", "when is Aoife's birthday"), looks to it like an answerable
one. Some questions say what kind of answer they want:

  amount    "how much", "cost", "price", "charge", "pay", "earn"   -> 250 euro, €40, 23 percent, 420 each
  age       "how old"                                               -> eleven, 90, three-year-old
  duration  "how long"                                              -> six weeks, 40 hours
  number    "how many", "what percentage"                           -> a figure or a number word
  date      "when", "what date/time/day"                            -> a month, a weekday, 10:30, 2025, next week
  name      "who", "whose", "what is X called", "the name of"       -> a capitalised word the question and the
                                                                       rest of the note do not use as a common word

Such a question is answered by a passage that holds what it asks about and a value of
that kind. search.py cuts the first results into windows (a note's summary, each list
item, each paragraph: a chat note's "User ->" line with its reply is one), counts in each
the query's words (its file's summary, tags and intent frame every window of it), and
calls the question weak when the best window holding an answer of the kind holds less
than search.ANSWER_SHARE of what the best window holds. Questions of other kinds ("what
did Máire say about my essay", "why did we drop Kafka") get no signal here.

Standard library only; `re` is already loaded on the recall path (stem.py analyzes the
query with it) and the patterns are compiled on first use.
"""

from __future__ import annotations

TYPE_CHECKING = False  # the warm recall path avoids importing typing
if TYPE_CHECKING:
    from typing import Any

KINDS = {"amount": "amount", "age": "age", "duration": "length of time", "number": "number",
         "date": "date or time", "name": "name"}  # what the notes "give no" of

_MONTHS = ("january february march april may june july august september october november december "
           "jan feb mar apr jun jul aug sep sept oct nov dec").split()
_DAYS = "monday tuesday wednesday thursday friday saturday sunday weekend weekends tomorrow tonight yesterday today".split()
_NUMBERS = ("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
            "seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand "
            "dozen twice").split()
_UNITS = "seconds?|minutes?|mins?|hours?|days?|weeks?|months?|years?|fortnights?|nights?"

# (kind, what in a question asks for it, the question's words that only say so: they are
# not what it is about, and count in no window). First match wins: "how long does the
# brewery have to pay" asks for an amount of time... and is read as an amount; "how much"
# before "how long" keeps "how much longer" an amount (rare either way).
_QUESTIONS = (
    ("amount", r"\bhow much\b|\b(cost|costs|price|prices|priced|charge|charges|charged|fee|fees|paid|pay|earn)\b",
     "much cost costs price prices priced charge charges charged fee fees pay paid earn"),
    ("age", r"\bhow old\b", "old age"),
    ("duration", r"\bhow long\b", "long"),
    ("number", r"\bhow many\b|\bwhat percentage\b", "many percentage number"),
    ("date", r"^\W*when\b|\bwhat (date|time)\b|\bwhat day (is|was|does|do|did|will|of)\b", "date time"),
    ("name", r"^\W*(who|whose)\b|\b(is|was|are|were)\b.*\bcalled\W*$|\bname of\b|\bwhat(\W?s| is| was) (the |his |her |their |my |our )?name\b",
     "called name named"),
)
_OPENER = r"^\W*(how|what|what's|when|who|whose|which|and)\b"  # a question of these kinds opens so ("why ... pay": no)

_COMPILED: dict[str, Any] | None = None


def _patterns() -> dict[str, Any]:
    global _COMPILED
    if _COMPILED is None:
        import re

        num = "|".join(_NUMBERS)
        months = "|".join([m for m in _MONTHS if m != "may"] + _DAYS)
        _COMPILED = {
            "opener": re.compile(_OPENER, re.I),
            "questions": [(k, re.compile(p, re.I), c) for k, p, c in _QUESTIONS],
            "amount": re.compile(
                r"[€$£¥]\s?\d|\d[\d,.]*\s?(k\b|%|(euros?|eur|dollars?|pounds?|quid|grand|cents?|pence|percent|per cent)\b)"
                r"|\d[\d,.]*\s+(each|a head|apiece|per\b|an? (hour|day|week|month|year|night|image|photo|person|session)\b)"
                r"|\bfor (about |around )?\d[\d,.]*\b"
                r"|\b(cost|costs|paid|pay|pays|charges?|charged|prices?|priced|fee|budget|rate)\b\D{0,15}\d|\bfree\b", re.I),
            "age": re.compile(
                rf"\b(\d+|{num})[\s-]*(years?|months?|weeks?)[\s-]*old\b"
                rf"|\b(is|was|turned|turns|aged?|now)\s+(about\s+|nearly\s+|almost\s+)?(\d+|{num})\b(?![:.,]?\d)"
                r"(?!\s*(euro|percent|%|km|hours|minutes|am|pm))"
                r"|\bunder-\d+|\b(twen|thir|for|fif|six|seven|eigh|nine)ties\b|\b\d+(st|nd|rd|th) birthday", re.I),
            "duration": re.compile(rf"(\d|\b({num}|a|an|few|several)\b)[\s-]*({_UNITS})\b", re.I),
            "number": re.compile(rf"\d|\b({'|'.join(n for n in _NUMBERS if n != 'one')}|a couple|dozens)\b", re.I),
            "date": re.compile(
                rf"\b({months}|spring|summer|autumn|winter|christmas|easter|new year|midnight|noon)\b"
                r"|\b\d+(st|nd|rd|th)\b|\b(19|20)\d\d\b|\b\d{1,2}[:.]\d\d\b|\b\d{1,2}\s?(am|pm)\b|o'clock|\bat \d{1,2}\b"
                r"|\b(next|last|this|every) (week|month|year|morning|evening|night)\b"
                rf"|\b(\d+|{num}|a) ({_UNITS}) (ago|later|before|after|from now)\b|\bin (\d+|{num}|a) ({_UNITS})\b"
                r"|\b\d{1,2}/\d{1,2}\b", re.I),
            "letters": re.compile(r"[a-z]+"),
            "capital": re.compile(r"\b[A-Z][\w'\u2019.-]*"),
            "lower": re.compile(r"\b[a-z][\w'\u2019-]*"),
            "time": re.compile(r"\[\d{1,2}:\d\d\]"),  # a chat note's "### [19:41] User ->": not the answer's time
            "paragraph": re.compile(r"\n\s*\n"),
            "item": re.compile(r"^([-*]|\d+\.)\s"),
            "intent": re.compile(r"^## Intent\s*\n(.*?)(?=^#|\Z)", re.M | re.S),
        }
    return _COMPILED


def asked(question: str) -> tuple[str, frozenset[str]] | None:
    """(the kind of answer `question` asks for, the analyzed words that only say so), or None."""
    from . import stem

    p = _patterns()
    if not p["opener"].match(question):
        return None
    for kind, pattern, cue in p["questions"]:
        if pattern.search(question):
            return kind, frozenset(stem.analyze(cue))
    return None


def header(text: str) -> str:
    """A record's summary, tags and intent: what every window of it is about."""
    out = []
    if text.startswith("---"):
        end = text.find("\n---", 3)
        for line in text[3:end].splitlines():
            if line.startswith(("summary:", "tags:")):
                out.append(line.split(":", 1)[1])
    found = _patterns()["intent"].search(text)
    if found:
        out.append(found.group(1))
    return " ".join(out)


def windows(text: str) -> list[str]:
    """The passages an answer is looked for in: the summary, each list item, each paragraph."""
    p = _patterns()
    out = []
    body = text
    if text.startswith("---"):
        end = text.find("\n---", 3)
        body = text[end + 4:] if end > 0 else text
        out += [line[8:].strip().strip("\"'") for line in text[3:max(end, 3)].splitlines() if line.startswith("summary:")]
    for para in p["paragraph"].split(body):
        current: list[str] = []
        for line in para.splitlines():
            line = line.strip()
            if p["item"].match(line):
                if current:
                    out.append(" ".join(current))
                    current = []
                out.append(line)
            elif line:
                current.append(line)
        if current:
            out.append(" ".join(current))
    return [p["time"].sub(" ", w) for w in out]


def gives(kind: str, window: str, question: str, text: str) -> bool:
    """Whether `window` (of the record `text`) holds an answer of `kind` to `question`.

    Each kind's pattern runs only on a window that has what every match of it needs (a digit,
    a number word, a unit of time, a month...): most windows have none, and running the long
    patterns on each window of the first results cost ~5 ms a question at 10,000 sessions.
    """
    p = _patterns()
    if kind == "name":
        return bool(_names(window, question, text))
    digit = any(c.isdigit() for c in window)
    words = set(p["letters"].findall(window.lower()))
    if kind == "date" and (words & _DATE_WORDS or _MAY in window):
        return True
    if not digit and not words & _NEEDS[kind]:
        return False
    return p[kind].search(window) is not None


# Words a pattern's match without a digit must hold one of (every other match holds a digit).
_NEEDS = {"amount": frozenset(("free",)), "age": frozenset(_NUMBERS + ["twenties", "thirties", "forties", "fifties",
                                                                        "sixties", "seventies", "eighties", "nineties"]),
          "duration": frozenset(("second", "seconds", "minute", "minutes", "min", "mins", "hour", "hours", "day", "days",
                                 "week", "weeks", "month", "months", "year", "years", "fortnight", "fortnights", "night",
                                 "nights")),
          "number": frozenset(_NUMBERS + ["couple", "dozens"]),
          "date": frozenset(("clock", "new", "next", "last", "this", "every", "ago", "later", "before", "after", "from", "in"))}
# Words that are a date by themselves (the date pattern's first branch, without its regex).
_MAY = " May"  # the month, and not the verb ("it may rain"): by its capital, in the middle of a sentence
_DATE_WORDS = frozenset([w for w in _MONTHS if w != "may"] + _DAYS + ["spring", "summer", "autumn", "winter", "christmas", "easter", "midnight",
                                           "noon"])


def _names(window: str, question: str, text: str) -> list[str]:
    """Capitalised words of `window` that are neither the question's words, stopwords, months
    nor words the record also writes in lower case (a sentence's first word, a heading's)."""
    from . import stem

    p = _patterns()
    asked_words = {_bare(w).lower() for w in p["capital"].findall(question) + p["lower"].findall(question)}
    common = set(p["lower"].findall(text))
    out = []
    for raw in p["capital"].findall(window):
        word = _bare(raw)
        low = word.lower()
        if (not word or low in asked_words or low in stem.STOPWORDS or low in common or low in _NOT_NAMES
                or low in _MONTHS or low in _DAYS):
            continue
        out.append(word)
    return out


def _bare(word: str) -> str:
    """A word without its clitic or trailing punctuation ("Kemi's" -> "Kemi")."""
    return word.replace("\u2019", "'").split("'")[0].rstrip(".-")


_NOT_NAMES = frozenset(("claude", "user", "i", "intent", "interactions", "notes", "decisions", "y", "n"))
