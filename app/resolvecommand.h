#pragma once

#include <QStringList>

namespace verity {

// `verity resolve [--db PATH] ESCALATION --attest performed|not-performed --reference TEXT
// --note TEXT --operator NAME [--json]`: records a person's check of a write no system can be
// asked about, as attested (never verified), with its audit entries. Exits 0 when settled, 1
// when another operator settled it first, 2 for bad arguments or when it cannot run.
int runResolveCommand(const QStringList &arguments);

} // namespace verity
