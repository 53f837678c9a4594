// The sandbox writes its answers' JSON itself, straight from its records; each body must be
// byte for byte what QJsonDocument::toJson(Indented) makes of the same object, so that a
// client, a transcript or a replayed answer cannot tell the difference. Strings include what
// needs escaping: quotes, backslashes, control characters, text beyond ASCII and beyond the
// BMP, and a lone surrogate.

#include "sandbox/sandboxobjects.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace verity;

namespace {

QByteArray indented(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Indented);
}

QJsonValue textOrNull(const QString &text)
{
    return text.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(text);
}

QJsonObject metadataObject(const SandboxMetadata &metadata)
{
    QJsonObject object;
    for (auto it = metadata.cbegin(); it != metadata.cend(); ++it)
        object.insert(it.key(), it.value());
    return object;
}

// The objects as the sandbox built them with QJsonObject before it wrote them itself.
QJsonObject refundObject(const SandboxRefund &refund)
{
    return {{QStringLiteral("id"), refund.id},
            {QStringLiteral("object"), QStringLiteral("refund")},
            {QStringLiteral("amount"), refund.amount},
            {QStringLiteral("balance_transaction"), textOrNull(refund.balanceTransaction)},
            {QStringLiteral("charge"), textOrNull(refund.charge)},
            {QStringLiteral("created"), refund.created},
            {QStringLiteral("currency"), refund.currency},
            {QStringLiteral("metadata"), metadataObject(refund.metadata)},
            {QStringLiteral("payment_intent"), refund.paymentIntent},
            {QStringLiteral("reason"), textOrNull(refund.reason)},
            {QStringLiteral("status"), refund.status}};
}

QJsonObject transactionObject(const SandboxBalanceTransaction &transaction)
{
    return {{QStringLiteral("id"), transaction.id},
            {QStringLiteral("object"), QStringLiteral("balance_transaction")},
            {QStringLiteral("amount"), transaction.amount},
            {QStringLiteral("available_on"), transaction.created},
            {QStringLiteral("balance_type"), QStringLiteral("payments")},
            {QStringLiteral("created"), transaction.created},
            {QStringLiteral("currency"), transaction.currency},
            {QStringLiteral("description"), transaction.description},
            {QStringLiteral("fee"), 0},
            {QStringLiteral("fee_details"), QJsonArray()},
            {QStringLiteral("net"), transaction.amount},
            {QStringLiteral("reporting_category"), transaction.type},
            {QStringLiteral("source"), transaction.source},
            {QStringLiteral("status"), QStringLiteral("available")},
            {QStringLiteral("type"), transaction.type}};
}

QJsonObject listObject(const QJsonArray &data, bool hasMore, const QString &url)
{
    return {{QStringLiteral("object"), QStringLiteral("list")},
            {QStringLiteral("data"), data},
            {QStringLiteral("has_more"), hasMore},
            {QStringLiteral("url"), url}};
}

// Text that must be escaped or encoded, in every place a string goes.
const QString awkward =
        QStringLiteral("quote \" backslash \\ slash / tab \t newline \n return \r bell \a unit \x1f "
                       "del \x7f é ß € 中文 ")
        + QString::fromUcs4(U"\U0001F600") + QChar(0xD800) + QStringLiteral(" end");

SandboxRefund refund(int i)
{
    SandboxRefund refund;
    refund.id = QStringLiteral("re_%1").arg(i);
    refund.paymentIntent = QStringLiteral("pi_%1").arg(i);
    refund.amount = 11800 + i;
    refund.currency = QStringLiteral("usd");
    refund.created = 1773757934 + i;
    refund.balanceTransaction = i % 2 ? QStringLiteral("txn_%1").arg(i) : QString();
    refund.reason = i % 3 ? QString() : QStringLiteral("requested_by_customer");
    if (i % 2)
        refund.metadata.insert(QStringLiteral("intent_key"), QStringLiteral("key-%1").arg(i));
    if (i % 3 == 1)
        refund.metadata.insert(QStringLiteral("note ") + awkward.left(12), awkward);
    refund.metadata.insert(QStringLiteral("Ticket_ID"),
                           QStringLiteral("T-%1").arg(i)); // sorts before lower case
    return refund;
}

SandboxBalanceTransaction transaction(int i)
{
    return SandboxBalanceTransaction{QStringLiteral("txn_%1").arg(i),
                                     QStringLiteral("acct_north"),
                                     -100 - i,
                                     QStringLiteral("usd"),
                                     i % 2 ? QStringLiteral("refund") : QStringLiteral("adjustment"),
                                     QStringLiteral("re_%1").arg(i),
                                     i == 2 ? awkward : QStringLiteral("Refund for pi_%1").arg(i),
                                     1773757934 - i};
}

} // namespace

class SandboxJsonTest : public QObject
{
    Q_OBJECT

private slots:
    void refunds()
    {
        for (int i = 0; i < 6; ++i)
            QCOMPARE(refundBody(refund(i)), indented(refundObject(refund(i))));
    }

    void lists()
    {
        QList<SandboxRefund> refunds;
        QJsonArray refundData;
        for (int i = 0; i < 5; ++i) {
            refunds.append(refund(i));
            refundData.append(refundObject(refund(i)));
        }
        QCOMPARE(listBody(refunds, &writeRefund, true, QLatin1StringView("/v1/refunds")),
                 indented(listObject(refundData, true, QStringLiteral("/v1/refunds"))));
        QCOMPARE(listBody(QList<SandboxRefund>(), &writeRefund, false, QLatin1StringView("/v1/refunds")),
                 indented(listObject(QJsonArray(), false, QStringLiteral("/v1/refunds"))));

        QList<SandboxBalanceTransaction> movements;
        QJsonArray movementData;
        for (int i = 0; i < 4; ++i) {
            movements.append(transaction(i));
            movementData.append(transactionObject(transaction(i)));
        }
        QCOMPARE(listBody(movements, &writeBalanceTransaction, false,
                          QLatin1StringView("/v1/balance_transactions")),
                 indented(listObject(movementData, false, QStringLiteral("/v1/balance_transactions"))));
    }

    void errors()
    {
        const SandboxError full{402, QStringLiteral("card_error"), QStringLiteral("amount_too_large"),
                                awkward, QStringLiteral("amount")};
        const SandboxError bare{500, QStringLiteral("api_error"), QString(),
                                QStringLiteral("Nothing was committed."), QString()};
        for (const SandboxError &error : {full, bare}) {
            QJsonObject inner{{QStringLiteral("type"), error.type},
                              {QStringLiteral("message"), error.message}};
            if (!error.code.isEmpty())
                inner.insert(QStringLiteral("code"), error.code);
            if (!error.param.isEmpty())
                inner.insert(QStringLiteral("param"), error.param);
            QCOMPARE(errorBody(error), indented(QJsonObject{{QStringLiteral("error"), inner}}));
        }
    }

    void accountsPaymentsAndBalances()
    {
        const SandboxAccount account{QStringLiteral("acct_north"), awkward, QStringLiteral("usd"),
                                     1700000000};
        QCOMPARE(accountBody(account),
                 indented({{QStringLiteral("id"), account.id},
                           {QStringLiteral("object"), QStringLiteral("account")},
                           {QStringLiteral("business_profile"),
                            QJsonObject{{QStringLiteral("name"), account.name}}},
                           {QStringLiteral("created"), account.created},
                           {QStringLiteral("default_currency"), account.currency}}));

        SandboxPayment payment{QStringLiteral("pi_1"),
                               99999999,
                               QStringLiteral("eur"),
                               QStringLiteral("acct_north"),
                               1700000001,
                               {{QStringLiteral("order_id"), QStringLiteral("SU-1")}}};
        payment.charge = QStringLiteral("ch_1");
        for (const SandboxMetadata &metadata : {payment.metadata, SandboxMetadata()}) {
            payment.metadata = metadata;
            QCOMPARE(paymentIntentBody(payment),
                     indented({{QStringLiteral("id"), payment.id},
                               {QStringLiteral("object"), QStringLiteral("payment_intent")},
                               {QStringLiteral("amount"), payment.amount},
                               {QStringLiteral("amount_received"), payment.amount},
                               {QStringLiteral("created"), payment.created},
                               {QStringLiteral("currency"), payment.currency},
                               {QStringLiteral("latest_charge"), payment.charge},
                               {QStringLiteral("livemode"), false},
                               {QStringLiteral("metadata"), metadataObject(payment.metadata)},
                               {QStringLiteral("status"), QStringLiteral("succeeded")},
                               {QStringLiteral("transfer_data"),
                                QJsonObject{{QStringLiteral("destination"), payment.account}}}}));
        }

        for (qint64 available : {qint64(0), qint64(-4700), qint64(123456789012)}) {
            const auto amounts = [&](qint64 amount) {
                return QJsonArray{QJsonObject{{QStringLiteral("amount"), amount},
                                              {QStringLiteral("currency"), QStringLiteral("usd")}}};
            };
            QCOMPARE(balanceBody(available, QStringLiteral("usd")),
                     indented({{QStringLiteral("object"), QStringLiteral("balance")},
                               {QStringLiteral("available"), amounts(available)},
                               {QStringLiteral("pending"), amounts(0)},
                               {QStringLiteral("livemode"), false}}));
        }
    }
};

QTEST_GUILESS_MAIN(SandboxJsonTest)
#include "tst_sandboxjson.moc"
