// Which payment a refund is looked up under. A guessed id finds nothing and an empty answer
// would read as "no refund", so only the data or a person may name it: the operator's entry,
// the refund call itself, the newest earlier call that names one, the order; else nothing.

#include "domain/paymentreference.h"
#include "domain/toolregistry.h"
#include "resolution/refundpayment.h"
#include "store/records.h"

#include <QTest>

#include <nlohmann/json.hpp>

using namespace verity;

class TestRefundPayment : public QObject
{
    Q_OBJECT

private slots:
    void reference_data();
    void reference();
    void field_data();
    void field();
    void registryFieldsAreChecked_data();
    void registryFieldsAreChecked();
    void chosen_data();
    void chosen();
};

namespace {

TranscriptEntry call(qint64 id, const QString &tool, const QString &arguments, const QString &result = {})
{
    TranscriptEntry entry;
    entry.isToolCall = true;
    entry.seq = id;
    entry.call.id = id;
    entry.call.callExtId = QStringLiteral("c%1").arg(id);
    entry.call.tool = tool;
    entry.call.argumentsJson = arguments;
    entry.call.hasResult = !result.isNull();
    entry.call.rawResult = result;
    return entry;
}

} // namespace

void TestRefundPayment::reference_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("id"); // empty: refused
    QTest::addColumn<QString>("parameter");
    QTest::newRow("payment intent") << "pi_3NfWq2Lk"
                                    << "pi_3NfWq2Lk"
                                    << "payment_intent";
    QTest::newRow("charge") << "ch_3NfWq2Lk"
                            << "ch_3NfWq2Lk"
                            << "charge";
    QTest::newRow("spaces around") << "  pi_3Nf \n"
                                   << "pi_3Nf"
                                   << "payment_intent";
    QTest::newRow("demo order number") << "pi_SU-88421"
                                       << "pi_SU-88421"
                                       << "payment_intent";
    QTest::newRow("refund id") << "re_3Nf"
                               << ""
                               << "";
    QTest::newRow("payment method") << "credit_card_7815826"
                                    << ""
                                    << "";
    QTest::newRow("prefix only") << "pi_"
                                 << ""
                                 << "";
    QTest::newRow("space inside") << "pi_3N f"
                                  << ""
                                  << "";
    QTest::newRow("upper-case prefix") << "PI_3Nf"
                                       << ""
                                       << "";
    QTest::newRow("empty") << ""
                           << ""
                           << "";
    QTest::newRow("query in it") << "pi_1&charge=ch_2"
                                 << ""
                                 << "";
    const QString longest = QStringLiteral("pi_") + QString(252, u'a');
    QTest::newRow("255 characters") << longest << longest << "payment_intent";
    QTest::newRow("256 characters") << longest + u'a' << ""
                                    << "";
}

void TestRefundPayment::reference()
{
    QFETCH(QString, text);
    QFETCH(QString, id);
    QFETCH(QString, parameter);
    const Expected<PaymentReference> read = readPaymentReference(text, QStringLiteral("test"));
    QCOMPARE(read.ok(), !id.isEmpty());
    if (!read) {
        QCOMPARE(read.code(), std::error_code(InputErrc::Invalid));
        QVERIFY2(read.message().contains(QStringLiteral("pi_")), qPrintable(read.message()));
        return;
    }
    QCOMPARE(read->id, id);
    QCOMPARE(read->parameter(), parameter);
    QCOMPARE(read->source, QStringLiteral("test"));
}

void TestRefundPayment::field_data()
{
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("arguments");
    QTest::addColumn<QString>("result");
    QTest::addColumn<QString>("value"); // "-": none
    QTest::newRow("argument") << "arguments.payment_intent"
                              << R"({"payment_intent":"pi_1"})"
                              << "{}"
                              << "pi_1";
    QTest::newRow("nested result") << "result.payment.charge"
                                   << "{}"
                                   << R"({"payment":{"charge":"ch_2"}})"
                                   << "ch_2";
    QTest::newRow("result as JSON text") << "result.payment_intent"
                                         << "{}"
                                         << "\"{\\\"payment_intent\\\":\\\"pi_3\\\"}\""
                                         << "pi_3";
    QTest::newRow("plain text result") << "result.payment_intent"
                                       << "{}"
                                       << R"("refund queued")"
                                       << "-";
    QTest::newRow("not a string") << "arguments.payment_intent"
                                  << R"({"payment_intent":42})"
                                  << "{}"
                                  << "-";
    QTest::newRow("missing") << "result.payment.charge"
                             << "{}"
                             << R"({"payment":"ch_2"})"
                             << "-";
}

void TestRefundPayment::field()
{
    QFETCH(QString, field);
    QFETCH(QString, arguments);
    QFETCH(QString, result);
    QFETCH(QString, value);
    const Expected<PaymentField> read = readPaymentField(field);
    QVERIFY(read);
    const std::optional<QString> found = read->valueIn(nlohmann::json::parse(arguments.toStdString()),
                                                       nlohmann::json::parse(result.toStdString()));
    QCOMPARE(found.value_or(QStringLiteral("-")), value);
}

void TestRefundPayment::registryFieldsAreChecked_data()
{
    QTest::addColumn<QString>("payment");
    QTest::addColumn<QString>("error"); // empty: loads
    QTest::newRow("two places") << R"(["arguments.payment_intent", "result.payment.charge"])"
                                << "";
    QTest::newRow("no side") << R"(["payment_intent"])"
                             << "$.tools.refund.payment[0]";
    QTest::newRow("other side") << R"(["ticket.payment_intent"])"
                                << "$.tools.refund.payment[0]";
    QTest::newRow("not a list") << R"("arguments.payment_intent")"
                                << "$.tools.refund.payment";
    QTest::newRow("not text") << R"(["arguments.charge", 7])"
                              << "$.tools.refund.payment[1]";
}

void TestRefundPayment::registryFieldsAreChecked()
{
    QFETCH(QString, payment);
    QFETCH(QString, error);
    const QByteArray json = QStringLiteral(R"({"format": "verity-tool-registry", "version": 1, "tools": {
        "refund": {"class": "write_money", "intent": ["order_id"], "payment": %1}}})")
                                    .arg(payment)
                                    .toUtf8();
    const Expected<ToolRegistry> registry = ToolRegistry::fromJson(json, QStringLiteral("mine.json"));
    QCOMPARE(registry.ok(), error.isEmpty());
    if (!registry) {
        QVERIFY2(registry.message().startsWith(QStringLiteral("mine.json: ") + error + QStringLiteral(": ")),
                 qPrintable(registry.message()));
        QVERIFY2(registry.message().contains(QStringLiteral("\"arguments.")), qPrintable(registry.message()));
        return;
    }
    QCOMPARE(registry->find(QStringLiteral("refund"))->payment.size(), 2);
}

void TestRefundPayment::chosen_data()
{
    QTest::addColumn<QString>("entered");
    QTest::addColumn<QString>("orderPayment");
    QTest::addColumn<QString>("refundArguments");
    QTest::addColumn<QString>("earlierResult"); // of a get_order before the refund
    QTest::addColumn<QString>("laterResult"); // of a get_order after it: never used
    QTest::addColumn<QString>("id"); // empty: none known
    QTest::addColumn<QString>("source");

    const QString refund = QStringLiteral(R"({"order_id":"SU-1","item_id":"A","amount_cents":500})");
    const QString refundNaming =
            QStringLiteral(R"({"order_id":"SU-1","amount_cents":500,"payment_intent":"pi_own"})");
    const QString orderResult =
            QStringLiteral(R"({"order_id":"SU-1","payment":{"payment_intent":"pi_read"}})");
    const QString laterResult = QStringLiteral(R"({"payment_intent":"pi_later"})");
    QTest::newRow("nothing named") << ""
                                   << "" << refund << "{}" << laterResult << ""
                                   << "";
    QTest::newRow("the order") << ""
                               << "pi_order" << refund << "{}"
                               << "{}"
                               << "pi_order"
                               << "order SU-1";
    QTest::newRow("an earlier read over the order") << ""
                                                    << "pi_order" << refund << orderResult << "{}"
                                                    << "pi_read"
                                                    << "get_order result, call c1";
    QTest::newRow("the refund itself over all data") << ""
                                                     << "pi_order" << refundNaming << orderResult << "{}"
                                                     << "pi_own"
                                                     << "issue_refund arguments, call c2";
    QTest::newRow("the operator over the data") << "ch_typed"
                                                << "pi_order" << refundNaming << orderResult << "{}"
                                                << "ch_typed"
                                                << "entered by Dana";
    QTest::newRow("an order's id that is none, nothing else") << ""
                                                              << "order-77" << refund << "{}"
                                                              << "{}"
                                                              << ""
                                                              << "";
    QTest::newRow("a read's id that is none") << ""
                                              << "" << refund << R"({"payment_intent":"credit_card_1"})"
                                              << "{}"
                                              << ""
                                              << "";
}

void TestRefundPayment::chosen()
{
    QFETCH(QString, entered);
    QFETCH(QString, orderPayment);
    QFETCH(QString, refundArguments);
    QFETCH(QString, earlierResult);
    QFETCH(QString, laterResult);
    QFETCH(QString, id);
    QFETCH(QString, source);

    EscalationDetail escalation;
    escalation.callId = 2;
    escalation.callExtId = QStringLiteral("c2");
    escalation.ticketExtId = QStringLiteral("T-1");
    escalation.orderId = QStringLiteral("SU-1");
    escalation.paymentIntent = orderPayment;
    escalation.enteredPayment = entered;
    escalation.enteredPaymentBy = QStringLiteral("Dana");
    const QList<TranscriptEntry> transcript{
            call(1, QStringLiteral("get_order"), QStringLiteral(R"({"order_id":"SU-1"})"), earlierResult),
            call(2, QStringLiteral("issue_refund"), refundArguments, QStringLiteral(R"("timeout")")),
            call(3, QStringLiteral("get_order"), QStringLiteral(R"({"order_id":"SU-1"})"), laterResult)};

    const Expected<PaymentReference> payment = refundPayment(escalation, transcript, ToolRegistry::builtIn());
    QCOMPARE(payment.ok(), !id.isEmpty());
    if (!payment) {
        QCOMPARE(payment.code(), std::error_code(InputErrc::Missing));
        QVERIFY2(payment.message().startsWith(QStringLiteral("no payment reference known for order SU-1")),
                 qPrintable(payment.message()));
        return;
    }
    QCOMPARE(payment->id, id);
    QCOMPARE(payment->source, source);
}

QTEST_GUILESS_MAIN(TestRefundPayment)
#include "tst_refundpayment.moc"
