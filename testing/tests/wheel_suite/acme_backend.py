"""Stands in for another backend's Python package (docs/adopting.md): the plugin imports it
(global.backend) and reads its capability table. Its device is the CPU, so the wheel test
needs no accelerator; a real backend registers its privateuse1 device on import."""


def capabilities() -> dict[str, list[str]]:
    """aten op -> dtypes the device runs it in; the simplest form the plugin accepts."""
    return {"add": ["float32", "int64"], "mul": ["float32", "int64"], "abs": ["float32", "int64"]}
