"""Operations both edges (the CLI and the Claude Code hooks) call.

The facade re-exports the few every edge needs; the rest are imported from their
modules (memory.doctor, memory.queries, memory.indexer...) by the edge that uses
them, so a routine `git enf commit` loads only the commit path.
"""

from .commits import Pending, commit, pending, would_refuse
from .report import Report, report_lines
from .setup import init
from .views import project_name, project_of
from .working_set import materialize, restore
from .workspace import WORKING_SET_DEFAULT, WORKING_SET_KEY, Context, Settings, require_branch

__all__ = ["WORKING_SET_DEFAULT", "WORKING_SET_KEY", "Context", "Pending", "Report", "Settings", "commit", "init",
           "materialize", "pending", "project_name", "project_of", "report_lines", "require_branch", "restore",
           "would_refuse"]
