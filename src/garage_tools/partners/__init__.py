"""The partner directory at run time: an in-memory index over the store, and lead recording."""
