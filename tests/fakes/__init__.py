"""Small stand-ins for third-party services, served on loopback so tests drive our real clients."""
