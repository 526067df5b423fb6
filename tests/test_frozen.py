"""pure/frozen.py: records behave as the frozen dataclasses they replaced."""

from __future__ import annotations

import pytest

from enf_git.pure import frozen, model
from enf_git.pure.facts import Fact
from enf_git.pure.ledger import Disagreement


def _decision(decided: str = "x") -> model.Decision:
    return model.Decision("d1234567", "sessions/a.md", "2026-01-01", "10:00", "ctx", "f", decided, "o", "a", "acc",
                          "high", "s1", "text")


def _session(sections: dict[str, str]) -> model.Session:
    return model.Session("sessions/a.md", "a", "s1", "2026-01-01", "10:00", ("t",), "done", "sum", sections,
                         decisions=(_decision(),))


def test_equal_fields_make_equal_records_with_equal_hashes_and_the_unhashed_field_still_compares() -> None:
    a, b = _session({"Intent": "one"}), _session({"Intent": "one"})
    assert a == b and hash(a) == hash(b) and a is not b
    other = _session({"Intent": "two"})
    assert a != other and hash(a) == hash(other)  # sections: compared, never hashed (a dict)
    assert _decision("x") != _decision("y") and _decision() != ("d1234567",)


def test_a_record_is_frozen_and_replace_makes_a_changed_copy() -> None:
    d = _decision()
    with pytest.raises(AttributeError):
        d.decided = "z"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del d.decided
    changed = frozen.replace(d, decided="z")
    assert changed.decided == "z" and d.decided == "x" and changed.id == d.id
    with pytest.raises(TypeError):
        frozen.replace(d, nonsense=1)


def test_defaults_repr_and_as_dict() -> None:
    s = _session({"Intent": "one"})
    assert s.reversals == () and s.problems == ()
    assert Disagreement(_decision(), (), ()).settled_by is None  # type: ignore[arg-type]
    fact = Fact("f12345678", "text", "General", "2026-01-01", "me", "project", None)
    assert repr(fact) == ("Fact(id='f12345678', text='text', category='General', date='2026-01-01', author='me', "
                          "scope='project', expires=None)")
    data = frozen.as_dict(s)
    assert list(data) == list(model.Session.FIELDS)
    assert data["decisions"] == ({**{f: getattr(s.decisions[0], f) for f in model.Decision.FIELDS}},)
    assert data["sections"] == {"Intent": "one"} and data["sections"] is not s.sections


def test_every_record_lists_its_annotated_fields_in_the_order_its_init_takes_them() -> None:
    import inspect

    from enf_git.pure import briefing, facts, ledger, pins

    classes: list[type[frozen.Record]] = [
        model.Decision, model.Reversal, model.Session, ledger.Chain, ledger.Disagreement, ledger.Ledger, facts.Fact,
        facts.Matched, pins.Pin, briefing.Situation, briefing.DecisionLine, briefing.Digest]
    for cls in classes:
        assert tuple(cls.__annotations__) == cls.FIELDS, cls
        assert tuple(inspect.signature(cls).parameters) == cls.FIELDS, cls
