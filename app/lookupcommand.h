#pragma once

#include <QStringList>

namespace verity {

// `verity lookup [--db PATH] --provider URL (--all-open | ESCALATION...) [--json]`: settles
// escalations by a lookup at the provider, for a scheduled job. The API key comes from
// VERITY_PROVIDER_API_KEY. Exits 1 while unknowns remain open.
int runLookupCommand(const QStringList &arguments);

} // namespace verity
