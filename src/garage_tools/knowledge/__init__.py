"""Domain data files and their typed loaders, validated at start-up."""
