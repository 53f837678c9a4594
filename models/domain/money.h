#pragma once

#include <QString>
#include <QtGlobal>

namespace verity {

// No real refund comes near it (ten billion in a currency's units); beyond it an amount is a
// broken line, and sums of it would overflow.
inline constexpr qint64 maxAmountCents = 1'000'000'000'000;

// "$118.00", "-$47.00", "EUR 1,250.00": integer cents in, text out, no floating point.
QString formatMoney(qint64 cents, const QString &currency = QStringLiteral("USD"));

} // namespace verity
