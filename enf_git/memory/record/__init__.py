"""Record: what a memory commit is made of and how it lands. The commit itself (commits),
the working copy and its working set, the derived views and hand edits to them, the
records' queries and digests, who wrote each record and whether it is trusted (authors,
trust), the stores of remembered facts, the text merge and the merge rule protocol each
record kind registers its rule with, the secret scan of what is committed, and `git enf
init` (setup). Imports only the flat base of memory/ (workspace, records, report,
eventlog, flags) and the layers below memory/."""
