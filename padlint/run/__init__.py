"""Running over many files: the file loop, worker processes, the result cache, progress."""
