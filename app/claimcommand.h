#pragma once

#include <QStringList>

namespace verity {

// verity claim: take, renew or give back a claim on an escalation, or claim the next one.
int runClaimCommand(const QStringList &arguments);

} // namespace verity
