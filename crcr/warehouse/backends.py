"""Where the warehouse lives: an embedded chdb directory, or a ClickHouse server by URL.

Both answer `query(sql) -> rows` and `insert(table, columns, rows)` with plain Python values
(times as epoch seconds in, whatever the SQL selects out), so the schema and the queries are
written once. `open_warehouse(spec)` picks one: `clickhouse://[user[:password]@]host:port/db`
is a server, anything else a directory, and no spec the default below.

chdb runs ClickHouse inside this process and one process at a time may open a directory,
so every use takes an exclusive `flock` on `<dir>/.lock` (other processes wait; a crashed
one releases it with its file descriptors) and closes the session afterwards.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator, Mapping, Optional, Protocol, Sequence
from urllib.parse import unquote, urlsplit

from crcr.callback_client.errors import ConfigError, CrcrError
from crcr.warehouse.schema import (
    SCHEMA_VERSION,
    add_columns,
    backfill,
    create_statements,
    missing_columns,
    missing_derived,
    stale_tables,
    view_statements,
)
from crcr.warehouse.sql import quote

ENV = "OOT_WAREHOUSE"
DEFAULT_DB = "oot_ci"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_INTS = re.compile(r"^(Nullable\()?U?Int(8|16|32|64)")
# chdb JIT-compiles an expression once it has run 3 times; a process renders a page or
# answers a command once, so compiling (LLVM, tens of ms per expression) is pure cost.
EMBEDDED_SETTINGS = ("compile_expressions", "compile_aggregate_expressions", "compile_sort_description")
# JSONCompact quotes 64-bit integers by default; nested in arrays and tuples no column type
# says which to convert back, so they come out as numbers (Python's json reads any size).
EMBEDDED_SETTINGS += ("output_format_json_quote_64bit_integers",)
# chdb merges a table's parts in threads that end with the session, and a writer holds the
# session for one leg: merges that outlast it are dropped and every leg leaves one more part
# per table (measured: 131 parts of `results` after 240 legs of 5,000 tests; ClickHouse
# delays inserts at 1,000 parts and refuses them at 3,000, and each part costs every
# per-test read a seek). So a writer waits, up to SETTLE_S, for the merges its inserts
# started, and merges whole any table still above MAX_PARTS (rare: only after a writer
# was cut short).
SETTLE_S = 60.0
MAX_PARTS = 64


class WarehouseError(CrcrError):
    """The warehouse refused a query or cannot be reached; one line."""


class Backend(Protocol):
    db: str
    where: str  # for messages: the directory or the URL without a password

    def query(self, sql: str) -> list[tuple]: ...
    def insert(self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None: ...
    def insert_columns(self, table: str, data: Mapping[str, Sequence[Any]]) -> None: ...
    def exclusive(self) -> contextlib.AbstractContextManager: ...
    def settle(self) -> None: ...
    def close(self) -> None: ...


def default_dir(env: Mapping[str, str]) -> Path:
    base = env.get("XDG_CACHE_HOME") or (Path(env["HOME"]) / ".cache" if env.get("HOME") else None)
    if base is None:
        raise ConfigError(f"no default warehouse: set --warehouse or ${ENV}")
    return Path(base) / "oot-ci" / "warehouse"


def describe(spec: Optional[str], env: Mapping[str, str]) -> str:
    """The spec a command will use: --warehouse, else $OOT_WAREHOUSE, else the default directory.
    A relative directory is the user's: under `bazel run`, relative to where they ran it."""
    chosen = spec or env.get(ENV) or str(default_dir(env))
    if "://" not in chosen and not Path(chosen).is_absolute() and env.get("BUILD_WORKING_DIRECTORY"):
        return str(Path(env["BUILD_WORKING_DIRECTORY"]) / chosen)
    return chosen


def open_warehouse(
    spec: Optional[str] = None, env: Optional[Mapping[str, str]] = None, create: bool = True
) -> Backend:
    """The warehouse `spec` names (describe), its tables made current. create=False (a command
    that only reads): a directory that does not exist is a one-line error naming it, never a
    new empty store (a mistyped path used to answer "none found")."""
    env = os.environ if env is None else env
    chosen = describe(spec, env)
    if not create and "://" not in chosen and not Path(chosen).exists():
        given = "" if spec or env.get(ENV) else " (the default)"
        raise ConfigError(
            f"no warehouse at {chosen}{given}: handler runs record one, --simulate-days N writes a "
            "labelled one; check --warehouse / $" + ENV
        )
    backend: Backend = Server(chosen) if chosen.startswith("clickhouse://") else Embedded(Path(chosen))
    with backend.exclusive():
        if backend.query(stale_tables(backend.db))[0][0]:
            raise ConfigError(
                f"warehouse {backend.where} holds an older schema (1, before integer ingest ids; this is {SCHEMA_VERSION}): "
                "move it aside (or drop its database) and ingest again"
            )
        missing = [r[0] for r in backend.query(missing_derived(backend.db))]
        for statement in create_statements(backend.db):
            backend.query(statement)
        upgrade_columns(backend)  # before the views: one may name a column an older table lacks
        for statement in view_statements(backend.db):
            backend.query(statement)
        for name in missing:  # schema 2: the view is in place (new rows reach it), copy the older ones
            backend.query(backfill(backend.db, name))
    return backend


def upgrade_columns(backend: Backend) -> None:
    """Schema 3 onwards: every column of schema.ADDED_COLUMNS a table lacks, added in one ALTER
    per table (older rows read them through the columns' defaults); one line if the engine refuses."""
    lacking: dict[str, list[str]] = {}
    for table, column in backend.query(missing_columns(backend.db)):
        lacking.setdefault(table, []).append(column)
    for table, names in lacking.items():
        try:
            backend.query(add_columns(backend.db, table, names))
        except WarehouseError as err:
            raise WarehouseError(
                # what and that nothing changed first: a long path would cut the end of the line
                f"could not upgrade {table} to schema {SCHEMA_VERSION} (adding {', '.join(names)}; nothing "
                f"was changed) in warehouse {backend.where}: {str(err).splitlines()[0][-200:]}"
            ) from None


def _epoch(value: Any) -> Any:
    return int(value) if isinstance(value, float) else value


class Embedded:
    """chdb under a directory; the session is open only while a caller holds it."""

    _thread_lock = threading.RLock()  # chdb allows one embedded server per process

    def __init__(self, path: Path, db: str = DEFAULT_DB):
        if path.exists() and not path.is_dir():
            raise ConfigError(f"--warehouse {path}: not a directory")
        self.path, self.db, self.where = path.resolve(), db, str(path)
        self._session = None
        self._depth = 0
        self.last_read = (0, 0)  # the last query's rows and bytes read, as the engine counted them

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold the directory (and this process's chdb) for several statements."""
        with self._thread_lock:
            if self._depth == 0:
                self._open()
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                if self._depth == 0:
                    self._shut()

    def _open(self) -> None:
        from chdb import session as chdb_session  # 500 MB of engine: only when used

        try:
            self.path.mkdir(parents=True, exist_ok=True)
            self._lock_fd = os.open(self.path / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as err:
            raise ConfigError(f"--warehouse {self.path}: {err.strerror}") from None
        fcntl.flock(self._lock_fd, fcntl.LOCK_EX)
        try:
            self._session = chdb_session.Session(str(self.path / "chdb"))
            for name in EMBEDDED_SETTINGS:
                self._session.query(f"SET {name} = 0")
        except Exception as err:
            self._release()
            raise WarehouseError(f"warehouse {self.path}: {err}") from None

    def _shut(self) -> None:
        try:
            if self._session is not None:
                self._session.close()
        finally:
            self._session = None
            self._release()

    def _release(self) -> None:
        fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
        os.close(self._lock_fd)

    def _run(self, sql: str, fmt: str = "JSONCompact"):
        try:
            return self._session.query(sql, fmt)
        except Exception as err:
            raise WarehouseError(f"warehouse {self.where}: {err}") from None

    def query(self, sql: str) -> list[tuple]:
        with self.exclusive():
            raw = self._run(sql).bytes()
        if not raw.strip():
            return []
        doc = json.loads(raw)
        read = doc.get("statistics", {})
        self.last_read = (read.get("rows_read", 0), read.get("bytes_read", 0))
        # JSONCompact quotes 64-bit integers; the column types say which
        ints = [bool(_INTS.match(m["type"])) for m in doc["meta"]]
        return [
            tuple(int(v) if flag and isinstance(v, str) else v for v, flag in zip(row, ints))
            for row in doc["data"]
        ]

    def insert(self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            self.insert_columns(table, dict(zip(columns, zip(*rows))))

    def insert_columns(self, table: str, data: Mapping[str, Sequence[Any]]) -> None:
        """Columns (lists or numpy arrays) through Arrow: chdb reads the table in place."""
        import pyarrow as pa

        kinds = dict(_columns_of(table))
        arrow_rows = pa.table(  # noqa: F841  (named in the SQL below: chdb's Python() table function)
            {
                c: pa.array(
                    [_epoch(v) for v in vals] if isinstance(vals, (list, tuple)) else vals,
                    type=_arrow_type(kinds[c]),
                )
                for c, vals in data.items()
            }
        )
        cols = ", ".join(f"`{c}`" for c in data)
        with self.exclusive():
            self._run(
                f"INSERT INTO {self.db}.{table} ({cols}) SELECT * FROM Python(arrow_rows)", "TabSeparated"
            )

    def parts(self) -> dict[str, int]:
        """Table -> its active parts."""
        return dict(
            self.query(
                f"""SELECT table, count() FROM system.parts WHERE active AND database = {quote(self.db)}
                GROUP BY table ORDER BY table"""
            )
        )

    def settle(self, timeout: float = SETTLE_S) -> None:
        """After a write: let the merges it started finish, then bound every table's parts.
        Best effort: the write is stored either way, and a failure here only leaves parts for
        the next writer's settle to merge."""
        deadline = time.monotonic() + timeout
        in_flight = f"SELECT count() FROM system.merges WHERE database = {quote(self.db)}"
        with self.exclusive():
            try:
                while self.query(in_flight)[0][0] and time.monotonic() < deadline:
                    time.sleep(0.05)
                for table, parts in self.parts().items():
                    if parts > MAX_PARTS:
                        self._run(f"OPTIMIZE TABLE {self.db}.{table} FINAL", "TabSeparated")
            except WarehouseError:
                pass

    def close(self) -> None:
        pass  # nothing stays open between uses


def parse_url(url: str) -> dict:
    """clickhouse://[user[:password]@]host[:port]/db -> clickhouse_driver.Client arguments."""
    parts = urlsplit(url)
    db = parts.path.strip("/") or DEFAULT_DB
    if not parts.hostname or not _NAME.fullmatch(db):
        raise ConfigError(f"--warehouse {redact(url)}: expected clickhouse://host:port/database")
    try:
        port = parts.port or 9000
    except ValueError:
        raise ConfigError(f"--warehouse {redact(url)}: bad port") from None
    return {
        "host": parts.hostname,
        "port": port,
        "database": db,
        "user": unquote(parts.username or "default"),
        "password": unquote(parts.password or ""),
    }


def redact(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    return url.replace(f":{parts.password}@", ":***@", 1)


class Server:
    """A ClickHouse server through clickhouse-driver (native protocol; works with 18.16)."""

    def __init__(self, url: str):
        from clickhouse_driver import Client

        args = parse_url(url)
        self.db, self.where = args.pop("database"), redact(url)
        # connect to `default`: our database may not exist yet
        self._client = Client(**args, database="default", connect_timeout=10, send_receive_timeout=300)
        self._lock = threading.Lock()  # one connection: one statement at a time

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        yield  # the server serialises for us; concurrent legs are deduplicated at read time

    def settle(self) -> None:
        pass  # a server merges in the background for as long as it runs

    def _execute(self, sql: str, rows=None, columnar: bool = False):
        from clickhouse_driver import errors

        try:
            with self._lock:
                if rows is None:
                    return self._client.execute(sql)
                return self._client.execute(sql, rows, columnar=columnar)
        except (errors.Error, OSError, EOFError) as err:
            raise WarehouseError(f"warehouse {self.where}: {err}") from None

    def query(self, sql: str) -> list[tuple]:
        return [tuple(r) for r in self._execute(sql)]

    def insert(self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            self.insert_columns(table, dict(zip(columns, zip(*rows))))

    def insert_columns(self, table: str, data: Mapping[str, Sequence[Any]]) -> None:
        kinds = dict(_columns_of(table))
        fixed = [[_to_server(v, kinds[c]) for v in vals] for c, vals in data.items()]
        cols = ", ".join(f"`{c}`" for c in data)
        self._execute(f"INSERT INTO {self.db}.{table} ({cols}) VALUES", fixed, columnar=True)

    def close(self) -> None:
        self._client.disconnect()


def _columns_of(table: str):
    from crcr.warehouse.schema import TABLES

    return TABLES[table][0]


def _arrow_type(kind: str):
    import pyarrow as pa

    base = kind.removeprefix("Nullable(").removesuffix(")")
    if base == "String" or base.startswith("Enum"):
        return pa.string()
    if base == "Float64":
        return pa.float64()
    return pa.int64()  # integers, and DateTime as epoch seconds


def _to_server(value: Any, kind: str) -> Any:
    if "DateTime" in kind and isinstance(value, (int, float)):
        return datetime.fromtimestamp(int(value), timezone.utc)
    return value
