"""Every sentence the CLI, the MCP server, dialogs and toasts show, rendered from core data."""
