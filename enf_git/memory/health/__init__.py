"""Health: `git enf doctor` and its checks (the installation, the MCP server registration,
the machine-local state, the records on the branch), each returning problem.Problem with
the command or edit that fixes it. Imports the rooms below it; nothing imports it but
the edges that run a check."""
