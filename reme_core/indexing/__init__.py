"""Keeping the index fresh: diff and apply, rebuild, the live watcher, locks, maintenance."""
