// Which SQLite failures are the disk's (a 503 that changes nothing) and which are the caller's.
#include <doctest/doctest.h>

#include <SQLiteCpp/Database.h>
#include <string>

#include "store/database.h"
#include "support/temp_dir.h"

namespace {

// The message of the StorageError that `error` maps to; empty when it maps to none.
std::string storage_message(const SQLite::Exception& error) {
    try {
        wr::store::throw_if_storage_failure(error);
    } catch (const wr::store::StorageError& storage) {
        return storage.what();
    }
    return "";
}

} // namespace

TEST_CASE("database: a write refused by a read-only database is a StorageError naming the data directory") {
    wr::test::TempDir temp;
    const std::string path = (temp.path() / "t.db").string();
    {
        SQLite::Database create(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
        create.exec("CREATE TABLE t (x INTEGER PRIMARY KEY)");
    }
    SQLite::Database read_only(path, SQLite::OPEN_READONLY);
    try {
        read_only.exec("INSERT INTO t VALUES (1)");
        FAIL("a read-only database took a write");
    } catch (const SQLite::Exception& error) {
        CHECK(storage_message(error).find("the data directory cannot be written") == 0);
    }
}

TEST_CASE("database: a constraint violation is not the disk's fault") {
    wr::test::TempDir temp;
    SQLite::Database database((temp.path() / "t.db").string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    database.exec("CREATE TABLE t (x INTEGER PRIMARY KEY)");
    database.exec("INSERT INTO t VALUES (1)");
    try {
        database.exec("INSERT INTO t VALUES (1)");
        FAIL("a duplicate key was accepted");
    } catch (const SQLite::Exception& error) {
        CHECK(storage_message(error).empty());
    }
}

TEST_CASE("database: a rehearsal checks and changes nothing; a write's failure rolls it back") {
    wr::test::TempDir temp;
    wr::store::Database database(temp.path());
    database.write([](wr::store::Connection& connection) { connection.exec("CREATE TABLE t (x INTEGER PRIMARY KEY)"); });
    const uint64_t generation = database.generation();
    const int rehearsed = database.rehearse([](wr::store::Connection& connection) {
        connection.exec("INSERT INTO t VALUES (1)");
        return connection.execAndGet("SELECT count(*) FROM t").getInt();
    });
    CHECK(rehearsed == 1);
    CHECK_THROWS(database.write([](wr::store::Connection& connection) {
        connection.exec("INSERT INTO t VALUES (2)");
        connection.exec("INSERT INTO t VALUES (2)");
    }));
    CHECK(database.generation() == generation);
    database.record([](wr::store::Connection& connection) { connection.exec("INSERT INTO t VALUES (3)"); });
    CHECK(database.generation() == generation); // a record does not make the edge reload
    CHECK(database.read([](wr::store::Connection& connection) { return connection.execAndGet("SELECT group_concat(x) FROM t").getString(); }) == "3");
}
