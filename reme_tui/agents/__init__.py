"""Serving a workspace to AI agents (the MCP server)."""
