"""Transports: REST, MCP, OpenAPI and discovery. They translate; they hold no domain logic."""
