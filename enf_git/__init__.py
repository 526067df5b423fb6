"""enf-git: git-native, cross-session memory for AI coding assistants.

Kept import-free on purpose: hook fast paths import this package, and every
module loaded here would be paid on every tool call.
"""

__version__ = "0.6.0"
