#pragma once
// The floor an import into a team's database is measured against: the rows an import stored
// in one PostgreSQL database, loaded again into a fresh one of the same schema by libpq's COPY,
// the bulk path QtSql does not have, one COPY per table, in one transaction. The rows are read
// and written as COPY's text to files first, untimed; only sending them is timed, to the
// commit, so all of the server's work is inside the figure.

#include "barecopy.h"

namespace verity::bench {

Expected<BareCopyFigures> bulkLoad(const QString &fromLocation, const QString &toLocation);

} // namespace verity::bench
