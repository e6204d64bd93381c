"""The in-memory index: BM25 postings, per-chunk places, file nodes, the link graph, snapshots."""
