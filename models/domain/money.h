#pragma once

#include <QString>

namespace verity {

// "$118.00", "-$47.00", "EUR 1,250.00": integer cents in, text out, no floating point.
QString formatMoney(qint64 cents, const QString &currency = QStringLiteral("USD"));

} // namespace verity
