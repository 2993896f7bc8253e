"""One connection to a store, SQLite or PostgreSQL, behind the few calls the store makes. Every
difference between the two is here: the parameter style (the store's SQL is written with `?`;
psycopg takes `%s`), how a transaction begins, how many rows are inserted at once (executemany;
COPY on PostgreSQL), and which errors mean the database itself failed (StoreFailed, one line
naming the store)."""
import contextlib
import sqlite3
from pathlib import Path

from conformance.errors import BadInput, OutputFailed
from conformance.store.location import POSTGRESQL, SQLITE, Location

SQLITE_BUSY_SECONDS = 60  # how long an add waits for another add's transaction on the same file


class StoreFailed(OutputFailed):
    """The store could not be opened, reached or written (a full disk, a path that cannot be a file,
    a server that does not answer): one line naming the store. Nothing of an add in progress stays."""


class Database:
    def __init__(self, location: Location, create: bool = True):
        self.location = location
        self.kind = location.kind
        if self.kind == SQLITE:
            self._connection, self._errors = _sqlite(location.target, create), (sqlite3.Error,)
        else:
            self._connection, self._errors = _postgresql(location.target)

    def sql(self, text: str) -> str:
        return text.replace("?", "%s") if self.kind == POSTGRESQL else text

    def execute(self, text: str, parameters=()):
        with self.failing("read or write"):
            return self._connection.execute(self.sql(text), tuple(parameters))

    def rows(self, text: str, parameters=()) -> list:
        with self.failing("read"):
            return self._connection.execute(self.sql(text), tuple(parameters)).fetchall()

    def insert_many(self, table: str, columns, rows):
        """rows (an iterable of tuples) into table, inside the caller's transaction."""
        with self.failing("write"):
            if self.kind == SQLITE:
                marks = ", ".join("?" for _ in columns)
                self._connection.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)
                return
            with self._connection.cursor() as cursor:
                with cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
                    for row in rows:
                        copy.write_row(row)

    @contextlib.contextmanager
    def transaction(self):
        """All or nothing: an exception (a bad record, Ctrl-C) rolls it back; a killed process leaves
        SQLite's journal, rolled back by the next connection, or a PostgreSQL transaction never committed."""
        if self.kind == POSTGRESQL:
            with self.failing("write"), self._connection.transaction():
                yield
            return
        with self.failing("write"):
            self._connection.execute("BEGIN IMMEDIATE")  # the write lock now: two adds queue, not deadlock
        try:
            yield
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                self._connection.execute("ROLLBACK")
            raise
        with self.failing("write"):
            self._connection.execute("COMMIT")

    def is_duplicate(self, error: Exception) -> bool:
        """Whether error is a primary key's violation (two adds of one run at once)."""
        if self.kind == SQLITE:  # not a trigger's or a CHECK's refusal
            return isinstance(error, sqlite3.IntegrityError) and "UNIQUE constraint failed" in str(error)
        import psycopg
        return isinstance(error, psycopg.errors.UniqueViolation)

    @contextlib.contextmanager
    def failing(self, doing: str):
        try:
            yield
        except self._errors as error:
            if self.is_duplicate(error):
                raise
            raise StoreFailed(f"store {self.location}: cannot {doing} it: {_reason(error)}") from None
        except OSError as error:
            raise StoreFailed(f"store {self.location}: cannot {doing} it: {error.strerror or error}") from None

    def close(self):
        with contextlib.suppress(*self._errors):
            self._connection.close()


def _sqlite(path: str, create: bool):
    file = Path(path)
    if not create and not file.is_file():
        raise BadInput(f"store {path}: no such store (conformance store add RESULTS... --store {path} makes one)")
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise StoreFailed(f"store {path}: cannot open it: a part of its folder's path is a file, not a folder") from None
    except OSError as error:
        raise StoreFailed(f"store {path}: cannot open it: {error.strerror or error}") from None
    try:
        connection = sqlite3.connect(file, timeout=SQLITE_BUSY_SECONDS, isolation_level=None,
                                     check_same_thread=False)
        connection.execute("PRAGMA foreign_keys = ON")
        connection.execute("SELECT count(*) FROM sqlite_master").fetchall()  # not a database: said here
    except (OSError, sqlite3.Error) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else _reason(error)
        raise StoreFailed(f"store {path}: cannot open it: {reason}") from None
    return connection


def _postgresql(url: str):
    try:
        import psycopg
    except ImportError:
        raise BadInput(f"store {url}: a PostgreSQL store needs psycopg: pip install 'dml-conformance[postgresql]' "
                       "(or 'psycopg[binary]')") from None
    try:
        connection = psycopg.connect(url, autocommit=True)  # transactions are explicit (Database.transaction)
    except psycopg.Error as error:
        raise StoreFailed(f"store {url}: cannot connect: {_reason(error)}") from None
    return connection, (psycopg.Error,)


def _reason(error) -> str:
    return " ".join(str(error).split()) or type(error).__name__
