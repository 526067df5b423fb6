"""Context: what the assistant is told. SessionStart's context (startup), the handoff to
the next session, brain-first pointers and the recall index they read (indexer,
pointer_state, pointer_refresh), the rows `git enf` and MCP answer with (answers), and
each session's toolset profile, and the analytics `git enf stats` reports (stats) with the
transcript figures Stop keeps (transcripts). The top of the operations layer below health/: it
imports every room under it and nothing imports it but health/ and the edges."""
