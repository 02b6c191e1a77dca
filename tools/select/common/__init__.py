"""Shared by every stage: the device capability table, device restrictions, the error type, YAML text hygiene."""
