"""The analyzer shared by documents and queries, and the term vocabulary."""
