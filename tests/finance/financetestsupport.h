#pragma once
// Shared by the finance rule tables: payouts and provider refunds written as short specs, so
// each table row reads as the case it is.
//
//   payout: "c3:K:11800:u" = call c3 of ticket T-7, intent key K ('-' for none), 11800 cents,
//           unknown ('p' performed); then any of at=MS (after t0; default the call number in
//           seconds), order=ID (default SU-1), refund=ID, seller=ID (default ashcombe-furniture)
//   refund: "re_1:K:11800" = refund re_1 with intent key K ('-' none), 11800 cents; then any of
//           at=MS (after t0; default 0), order=ID (default SU-1), status=S (default succeeded),
//           account=ID (default ashcombe-furniture; empty for none)

#include "domain/providerstatement.h"
#include "store/financerecords.h"
#include "support/strings.h"

#include <QHash>
#include <QStringList>

namespace verity::financetest {

constexpr qint64 t0 = 1773757927000; // 2026-03-17 14:32:07 UTC

using verity::test::strings; // support/strings.h, by the name the rule tables use

// The fields after the positional ones, as name=value.
inline QHash<QString, QString> options(const QStringList &fields, qsizetype from)
{
    QHash<QString, QString> named;
    for (qsizetype i = from; i < fields.size(); ++i) {
        const qsizetype equals = fields.at(i).indexOf(u'=');
        if (equals < 0)
            qFatal("bad spec field '%s': expected name=value", qPrintable(fields.at(i)));
        named.insert(fields.at(i).left(equals), fields.at(i).mid(equals + 1));
    }
    return named;
}

inline LedgerPayout payout(const QString &spec)
{
    const QStringList f = spec.split(u':');
    const QHash<QString, QString> o = options(f, 4);
    LedgerPayout p;
    p.callExtId = f.at(0);
    p.callId = f.at(0).mid(1).toLongLong();
    p.ticketId = 7;
    p.ticketExtId = QStringLiteral("T-7");
    p.intentKey = f.at(1) == u"-" ? QString() : f.at(1);
    p.amountCents = f.at(2).toLongLong();
    p.effect = f.at(3) == u"p" ? PayoutEffect::Performed : PayoutEffect::Unknown;
    p.at = t0
            + (o.contains(QStringLiteral("at")) ? o.value(QStringLiteral("at")).toLongLong()
                                                : p.callId * 1000);
    p.orderId = o.value(QStringLiteral("order"), QStringLiteral("SU-1"));
    p.paymentIntent = QStringLiteral("pi_") + p.orderId;
    p.refundId = o.value(QStringLiteral("refund"));
    p.sellerId = o.value(QStringLiteral("seller"), QStringLiteral("ashcombe-furniture"));
    p.sellerName = p.sellerId == u"ashcombe-furniture" ? QStringLiteral("Ashcombe Furniture") : p.sellerId;
    return p;
}

inline StatementRefund refund(const QString &spec)
{
    const QStringList f = spec.split(u':');
    const QHash<QString, QString> o = options(f, 3);
    StatementRefund r;
    r.id = f.at(0);
    r.intentKey = f.at(1) == u"-" ? QString() : f.at(1);
    r.amountCents = f.at(2).toLongLong();
    r.createdMs = t0 + o.value(QStringLiteral("at"), QStringLiteral("0")).toLongLong();
    r.paymentIntent = QStringLiteral("pi_") + o.value(QStringLiteral("order"), QStringLiteral("SU-1"));
    r.status = o.value(QStringLiteral("status"), QStringLiteral("succeeded"));
    r.account = o.value(QStringLiteral("account"), QStringLiteral("ashcombe-furniture"));
    r.currency = QStringLiteral("USD");
    return r;
}

} // namespace verity::financetest
