"""The site's one SQLite database (source/database.py): its settings, one connection per process
(a new one after a fork), transactions that roll back whole, a full disk, and a vacuum that leaves
no byte of deleted rows."""

import os
import sqlite3

import pytest

from ccreport.source import database


@pytest.fixture
def db_path(tmp_path):
    path = tmp_path / "site" / database.NAME
    yield path
    database.close(path)


def test_settings_and_one_connection_per_process(db_path):
    conn = database.connect(db_path)
    assert conn is database.connect(db_path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    assert conn.execute("PRAGMA secure_delete").fetchone()[0] == 1
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == int(database.BUSY_TIMEOUT_S * 1000)
    assert database.schema_version(conn, "store") is None
    with database.transaction(conn):
        database.set_schema_version(conn, "store", 3)
    assert database.schema_version(conn, "store") == 3


def test_a_forked_child_opens_its_own_connection(db_path):
    parent = database.connect(db_path)
    with database.transaction(parent):
        parent.execute("CREATE TABLE t (v INTEGER)")
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: a new connection, which sees the parent's table and can write
        try:
            child = database.connect(db_path)
            ok = child is not parent
            with database.transaction(child):
                child.execute("INSERT INTO t VALUES (7)")
            os.write(write, b"1" if ok else b"0")
        finally:
            os._exit(0)
    os.close(write)
    assert os.read(read, 1) == b"1"
    os.waitpid(pid, 0)
    assert parent.execute("SELECT v FROM t").fetchall() == [(7,)]
    assert database.connect(db_path) is parent


def test_a_failed_transaction_is_rolled_back_whole(db_path):
    conn = database.connect(db_path)
    with database.transaction(conn):
        conn.execute("CREATE TABLE t (v INTEGER)")
        conn.execute("INSERT INTO t VALUES (1)")
    with pytest.raises(RuntimeError):
        with database.transaction(conn):
            conn.execute("INSERT INTO t VALUES (2)")
            raise RuntimeError("killed half-way")
    assert conn.execute("SELECT v FROM t").fetchall() == [(1,)]
    assert not conn.in_transaction


def test_a_full_disk_raises_database_full_and_keeps_the_last_commit(db_path):
    conn = database.connect(db_path)
    with database.transaction(conn):
        conn.execute("CREATE TABLE t (v BLOB)")
        conn.execute("INSERT INTO t VALUES (?)", (b"kept",))
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages + 2}")  # the disk as good as full
    with pytest.raises(database.DatabaseFull):
        with database.transaction(conn, db_path):
            conn.execute("INSERT INTO t VALUES (?)", (os.urandom(1 << 20),))
    assert conn.execute("SELECT v FROM t").fetchall() == [(b"kept",)]


def test_vacuum_leaves_no_byte_of_deleted_rows(db_path):
    conn = database.connect(db_path)
    secret = b"forget-me-" + os.urandom(16).hex().encode()
    with database.transaction(conn):
        conn.execute("CREATE TABLE t (v BLOB)")
        conn.executemany("INSERT INTO t VALUES (?)", [(secret * 50,), (b"other" * 50,)])
    with database.transaction(conn):
        conn.execute("DELETE FROM t WHERE v = ?", (secret * 50,))
    database.vacuum(conn)
    for path in db_path.parent.iterdir():
        assert secret not in path.read_bytes(), path.name
    assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == 1


def test_a_transaction_takes_the_write_lock_at_its_start(db_path):
    conn = database.connect(db_path)
    with database.transaction(conn):
        conn.execute("CREATE TABLE t (v INTEGER)")
    other = sqlite3.connect(db_path, timeout=0.05, isolation_level=None)
    try:
        with database.transaction(conn):
            conn.execute("INSERT INTO t VALUES (1)")
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                other.execute("BEGIN IMMEDIATE")
        other.execute("BEGIN IMMEDIATE")  # free again once the first committed
        other.execute("ROLLBACK")
    finally:
        other.close()


def test_a_part_is_set_up_once_per_connection_and_again_for_a_new_one(db_path):
    calls = []
    conn = database.prepared(db_path, "part", calls.append)
    assert database.prepared(db_path, "part", calls.append) is conn and calls == [conn]
    database.close(db_path)  # a new connection: set up again
    again = database.prepared(db_path, "part", calls.append)
    assert calls == [conn, again]
    for p in db_path.parent.iterdir():  # the file deleted under the connection: a new one, set up again
        p.unlink()
    fresh = database.prepared(db_path, "part", calls.append)
    assert fresh is not again and calls == [conn, again, fresh] and db_path.exists()
