"""Process plumbing: work in a forked child, and the collector once start-up is over."""
