#pragma once

#include <QSqlError>

namespace verity {

// SQLite's own words ("file is not a database"), without the driver's "Unable to fetch row".
inline QString sqlErrorText(const QSqlError &error)
{
    return error.databaseText().isEmpty() ? error.text() : error.databaseText();
}

} // namespace verity
