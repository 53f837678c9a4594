#include "simulationtypes.h"

namespace verity {

QString simPolicyId(SimPolicy policy)
{
    return policy == SimPolicy::AsShipped ? QStringLiteral("as-shipped") : QStringLiteral("intent-key");
}

std::optional<SimPolicy> simPolicyFromId(QStringView id)
{
    if (id == u"as-shipped")
        return SimPolicy::AsShipped;
    if (id == u"intent-key")
        return SimPolicy::IntentKey;
    return std::nullopt;
}

QString simPolicyLabel(SimPolicy policy)
{
    return policy == SimPolicy::AsShipped ? QStringLiteral("As shipped") : QStringLiteral("Intent key");
}

} // namespace verity
