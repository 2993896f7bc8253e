"""Where a store is: a SQLite file (a plain path) or a PostgreSQL server (postgresql://... or
postgres://..., as libpq reads it). A URL that carries a password is refused: it would show in `ps`,
in shell history and in CI logs; libpq reads the password from ~/.pgpass (or the file PGPASSFILE
names), or a service that PGSERVICE names."""
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

from conformance.errors import BadInput

SQLITE, POSTGRESQL = "sqlite", "postgresql"
POSTGRESQL_SCHEMES = ("postgresql", "postgres")


@dataclass(frozen=True)
class Location:
    kind: str  # SQLITE or POSTGRESQL
    target: str  # the file's path, or the URL as libpq takes it

    def __str__(self):
        return self.target


def parse(url) -> Location:
    text = str(url)
    if not text:
        raise BadInput("--store: an empty store location (give a SQLite file's path or a postgresql:// URL)")
    scheme = text.split("://", 1)[0].lower() if "://" in text else ""
    if scheme in POSTGRESQL_SCHEMES:
        _refuse_password(text)
        return Location(POSTGRESQL, text)
    if scheme:
        raise BadInput(f"--store {text}: a {scheme}:// store is not supported (a SQLite file's path, or "
                       "postgresql://...)")
    return Location(SQLITE, text)


def _refuse_password(url: str):
    parts = urlsplit(url)
    if parts.password is not None or "password" in {key.lower() for key in parse_qs(parts.query)}:
        raise BadInput(f"--store {_without_password(parts)}: a password in the store URL is refused (it would "
                       "show in ps, shell history and logs); put it in ~/.pgpass (or the file PGPASSFILE names), "
                       "or name a service in PGSERVICE")


def _without_password(parts) -> str:
    """The URL with the password and any password= parameter taken out, for the message."""
    host = parts.hostname or ""
    user = f"{parts.username}@" if parts.username else ""
    port = f":{parts.port}" if parts.port else ""
    query = "&".join(item for item in parts.query.split("&") if item and not item.lower().startswith("password="))
    return f"{parts.scheme}://{user}{host}{port}{parts.path}" + (f"?{query}" if query else "")
