from .ops import *  # noqa: F401,F403 - temporary facade during the move
from .ops import WORKING_SET_DEFAULT, WORKING_SET_KEY, WORKTREE_LOCK_WAIT, _patched_views  # noqa: F401
