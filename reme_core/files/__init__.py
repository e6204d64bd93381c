"""Which files are the workspace's: safe relative paths, the walk, excludes, discovery, decoding."""
