"""Garage Door Tools Service: garage-door tools for people and agents, over REST and MCP."""

__version__ = "1.0.0"
