"""Operations both edges (the CLI and the Claude Code hooks) call.

The facade re-exports the few every edge needs, loaded on first use (PEP 562): the
commit path imports pygit2, and a light operation such as memory.toolsets runs in
the per-call hooks, which must not pay for it. The rest are imported from their
modules (memory.health.doctor, memory.queries, memory.indexer...) by the edge that uses
them, so a routine `git enf commit` loads only the commit path.
"""


TYPE_CHECKING = False  # typing's would be loaded by every hook that imports a light operation
if TYPE_CHECKING:
    from .record.commits import Pending, commit, pending, would_refuse
    from .report import Report, report_lines
    from .record.setup import init
    from .record.views import project_name, project_of
    from .record.working_set import materialize, restore
    from .workspace import WORKING_SET_DEFAULT, WORKING_SET_KEY, Context, Settings, require_branch

_WHERE = {
    "Pending": "record.commits", "commit": "record.commits", "pending": "record.commits",
    "would_refuse": "record.commits", "Report": "report", "report_lines": "report", "init": "record.setup",
    "project_name": "record.views", "project_of": "record.views",
    "materialize": "record.working_set", "restore": "record.working_set", "WORKING_SET_DEFAULT": "workspace",
    "WORKING_SET_KEY": "workspace", "Context": "workspace", "Settings": "workspace", "require_branch": "workspace",
}
__all__ = ["WORKING_SET_DEFAULT", "WORKING_SET_KEY", "Context", "Pending", "Report", "Settings", "commit", "init",
           "materialize", "pending", "project_name", "project_of", "report_lines", "require_branch", "restore",
           "would_refuse"]


def __getattr__(name: str) -> object:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # once: later lookups are plain attributes
    return value
