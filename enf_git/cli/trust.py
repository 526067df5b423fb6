"""`git enf trust review`: the records `enf.trust` keeps from the model, and why."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from .base import CONTEXT, JSON_OPTION, emit, reading
from .text import envelope, plural

if TYPE_CHECKING:  # the verification machinery is imported only when a trust command runs
    from ..memory.record.trust import Review, Withheld


@click.group(name="trust", context_settings=CONTEXT)
def trust_() -> None:
    """What enf.trust (all, signed, authors) lets reach the model."""


@trust_.command(context_settings=CONTEXT)
@click.option("--as", "mode", type=click.Choice(["all", "signed", "authors"]),
              help="Review under this setting instead of enf.trust's (nothing is changed).")
@JSON_OPTION
def review(mode: str | None, as_json: bool) -> None:
    """List the records withheld from the model under enf.trust, and why (unsigned, bad
    signature, author not in enf.trustedAuthors); git enf log and show still show them."""
    from .. import memory
    from ..memory.record import trust

    ctx = reading()
    tip = memory.require_branch(ctx)
    found = trust.review(ctx, tip, mode)
    if as_json:
        rules = found.gate.rules
        click.echo(envelope("trust review", mode=rules.mode, trusted_authors=sorted(rules.authors),
                            records=found.records, withheld=[_row(w) for w in found.withheld]))
        return
    emit(ctx, "\n".join(_lines(found)), pageable=True)


def _row(w: Withheld) -> dict[str, object]:
    c = w.change
    return {"path": w.path, "commit": c.commit, "author": c.name, "email": c.email, "date": c.date,
            "reason": w.reason}


def _lines(found: Review) -> list[str]:
    mode, held, total = found.gate.rules.mode, found.withheld, found.records
    if mode == "all":
        return ["enf.trust all: every record reaches the model, nothing is withheld "
                "(git config enf.trust signed, or authors with enf.trustedAuthors, to gate it; "
                "git enf trust review --as signed shows what that would withhold)"]
    if not held:
        return [f"enf.trust {mode}: all {plural(total, 'record')} reach the model, none withheld"]
    out = [f"enf.trust {mode}: {len(held):,} of {plural(total, 'record')} withheld from the model "
           "(git enf log and git enf show still show them):"]
    for w in held:
        c = w.change
        who = f"{c.name} <{c.email}>" if c.email else c.name or "unknown"
        out.append(f"  {w.path}  {who}, {c.date}, {c.commit[:12]}: {w.reason}")
    return out


COMMANDS = (trust_,)
