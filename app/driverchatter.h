#pragma once
// During a database outage Qt's SQL layer and libpq write lines of their own to stderr ("QSqlQuery::exec:
// database not open", "Unable to free statement: no connection to the server", libpq's "FATAL:
// terminating connection ..."), once per statement. A long-running command that already says the
// outage in its own words, once, leaves those out.

#include <QString>

namespace verity {

// Whether a warning of `category` saying `message` is such a line.
bool isDriverChatter(const char *category, const QString &message);

// Installs a message handler that drops those lines and passes every other one on, for the rest
// of the process.
void quietDriverChatter();

} // namespace verity
