"""Access control: API keys, callers and tiers. Kept apart from tools and transports."""
