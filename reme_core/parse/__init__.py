"""One file in, chunks, links and term counts out; batches across cores in a process pool."""
