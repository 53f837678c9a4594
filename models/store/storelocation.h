#pragma once
// What a `--db` value names: an SQLite file, or a PostgreSQL database given as a URI
// (postgresql://[user@]host[:port]/dbname) or a libpq keyword string ("host=... dbname=...").
// A password is never part of it: libpq reads ~/.pgpass and PGPASSWORD, and the console may
// hand one over from the desktop keychain.

#include "domain/expected.h"

#include <QList>
#include <QPair>
#include <QString>

namespace verity {

struct PostgresTarget
{
    QString host; // a name, an address, or a folder holding the server's socket; empty: libpq's default
    int port = 0; // 0: libpq's default
    QString user; // empty: libpq's default (the login name, or PGUSER)
    QString database;
    QList<QPair<QString, QString>> options; // further libpq keywords (sslmode, connect_timeout, ...)
    QString password; // never parsed from a location; set by whoever holds one

    // The target as a URI without any password: what messages, titles and the audit name.
    QString display() const;
};

// Whether `location` names a PostgreSQL database rather than a file.
bool isPostgresLocation(const QString &location);
// The target a PostgreSQL location names, or an error that says which part is wrong and what
// was expected.
Expected<PostgresTarget> parsePostgresLocation(const QString &location);

} // namespace verity
