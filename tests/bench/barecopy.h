#pragma once
// The floor an importer is measured against: the rows an import stored, inserted again into
// a fresh database of the same schema by nothing but prepared INSERT statements, in
// transactions of the importer's batch size. Only the inserts and commits are timed; reading
// the rows back from the first database is not.

#include "domain/expected.h"

#include <QString>

namespace verity::bench {

struct BareCopyFigures
{
    qint64 insertNs = 0; // time spent inserting and committing
    qint64 rows = 0; // every row of every table
    qint64 toolCalls = 0;
};

Expected<BareCopyFigures> bareCopy(const QString &fromDatabase, const QString &toDatabase);

} // namespace verity::bench
