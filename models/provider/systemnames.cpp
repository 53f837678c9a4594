#include "systemnames.h"

namespace verity {

QString systemWords(const QString &system)
{
    if (system == u"payments")
        return QStringLiteral("the payment provider");
    if (system == u"courier")
        return QStringLiteral("the courier");
    if (system == u"messaging")
        return QStringLiteral("the seller-messaging service");
    return QStringLiteral("the %1 system").arg(system);
}

QString recordNoun(const QString &system)
{
    if (system == u"payments")
        return QStringLiteral("refund");
    if (system == u"courier")
        return QStringLiteral("pickup");
    if (system == u"messaging")
        return QStringLiteral("message");
    return QStringLiteral("record");
}

} // namespace verity
