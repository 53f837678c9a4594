#pragma once
// Small conversions every SQLite statement of the store uses.

#include <QSqlError>
#include <QString>
#include <QStringList>
#include <QVariant>

#include <optional>

namespace verity {

// Each line of a server's message once, on one line. libpq adds to its message as a failure goes
// on, so "server closed the connection unexpectedly ..." can come twice in one text.
inline QString linesOnce(const QString &said)
{
    QStringList lines;
    for (const QString &line : said.split(u'\n')) {
        const QString text = line.simplified();
        if (!text.isEmpty() && !lines.contains(text))
            lines << text;
    }
    return lines.join(u' ');
}

// The database's own words ("file is not a database"), without the driver's "Unable to fetch row".
inline QString sqlErrorText(const QSqlError &error)
{
    return linesOnce(error.databaseText().isEmpty() ? error.text() : error.databaseText());
}

// A typed NULL for an absent value (a null QString would bind as NULL too, silently).
inline QVariant nullableInt(const std::optional<qint64> &value)
{
    return value ? QVariant(*value) : QVariant(QMetaType::fromType<qint64>());
}

inline QVariant nullableText(const QString &value)
{
    return value.isEmpty() ? QVariant(QMetaType::fromType<QString>()) : QVariant(value);
}

inline std::optional<qint64> optionalInt(const QVariant &value)
{
    return value.isNull() ? std::nullopt : std::optional<qint64>(value.toLongLong());
}

} // namespace verity
