#include "money.h"

#include <QLocale>

namespace verity {

QString formatMoney(qint64 cents, const QString &currency)
{
    const QLocale locale;
    const bool negative = cents < 0;
    const quint64 magnitude = negative ? quint64(-(cents + 1)) + 1 : quint64(cents);
    const QString units = locale.toString(magnitude / 100);
    const QString fraction = QStringLiteral("%1").arg(magnitude % 100, 2, 10, QLatin1Char('0'));
    QString symbol;
    if (currency == u"USD")
        symbol = QStringLiteral("$");
    else if (currency == u"EUR")
        symbol = QStringLiteral("€");
    else if (currency == u"GBP")
        symbol = QStringLiteral("£");
    else
        symbol = currency + u' ';
    return (negative ? QStringLiteral("-") : QString()) + symbol + units + locale.decimalPoint() + fraction;
}

} // namespace verity
