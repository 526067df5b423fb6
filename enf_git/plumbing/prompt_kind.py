"""Which prompts ask memory nothing: a greeting, "yes", a number, a slash command.

UserPromptSubmit decides this before anything else is loaded for the prompt: most
prompts in a session steer the conversation ("yes", "continue", "thanks, go ahead"),
and for those the hook must cost no more than the session check and the event log.
So this module is a leaf: it needs the tokenizer and the stopwords (stem.py, which
imports nothing), not the pointers file's reader, the settings or the skills index.
"""

from . import stem

# Words of a prompt that only steers the conversation ("yes, go ahead", "thanks, continue").
TRIVIAL_WORDS = frozenset("""
hi hello hey hiya morning evening afternoon thanks thank thx ty cheers yes yeah yep yup no nope nah ok okay
k sure fine good great cool nice perfect awesome excellent right correct exactly agreed continue go ahead
proceed next done carry keep going please pls do it that sounds lgtm ship y n again retry stop wait hmm
""".split())


def trivial(prompt: str) -> bool:
    """A prompt that asks nothing memory could answer: a greeting, "yes", a number, a slash command."""
    text = prompt.strip()
    if not text or text.startswith("/"):
        return True
    words = stem.words(text, scan=True)
    if not words or all(w.replace(".", "").replace(",", "").isdigit() for w in words):
        return True
    return all(w in TRIVIAL_WORDS or w in stem.STOPWORDS for w in words)
