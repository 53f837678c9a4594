// Refunds from transcripts in other formats than Verity's own settle by a lookup under the
// payment their calls named (a get_order result carrying a payment intent), at the sandbox as
// Stripe shapes it; a transcript that names no payment is never looked up under a guessed id.

#include "domain/registrychoice.h"
#include "import/transcriptimporter.h"
#include "resolution/escalationresolver.h"
#include "sandbox/sandboxserver.h"
#include "store/store.h"
#include "support/inprocesssandbox.h"
#include "support/provider.h"
#include "support/testmacros.h"
#include "support/teststore.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace verity;
using namespace verity::test;

class TestPaymentsFromData : public QObject
{
    Q_OBJECT

private slots:
    void refundsSettleUnderThePaymentTheirCallsNamed();
};

void TestPaymentsFromData::refundsSettleUnderThePaymentTheirCallsNamed()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    std::unique_ptr<Store> store = openTestStore(dir.filePath(QStringLiteral("team.sqlite")));
    QVERIFY(store);
    const RegistrySelection registries = automaticRegistries(QString());
    TranscriptImporter importer(*store, registries);
    for (const char *file : {"/formats/openai-chat-payments.jsonl", "/formats/otlp-payments.jsonl",
                             "/formats/anthropic-payments.jsonl"}) {
        const ImportReport report =
                importer.importFile(QStringLiteral(VERITY_TEST_DATA) + QLatin1String(file));
        QVERIFY2(report.clean(), qPrintable(report.summary()));
    }
    const QList<EscalationRow> open = *store->openEscalations(0, 10);
    QCOMPARE(open.size(), 4);

    // At the provider: the two payments the transcripts name, and the refunds the agent's
    // timed-out calls did make, under the keys Verity derives from their intent.
    InProcessSandbox sandbox;
    SandboxHttp http(sandbox.url());
    QCOMPARE(http.createAccount(QStringLiteral("birchwood"), 100000).status, 200);
    const QHash<QString, QString> paymentOf{
            {QStringLiteral("chat-pay-1"), QStringLiteral("pi_3PbWq7ChatPay0117")},
            {QStringLiteral("conv-pay-0388"), QStringLiteral("pi_3PbWq7OtlpPay0388")},
            {QStringLiteral("conv-anth-pay-0042"), QStringLiteral("ch_3PbWq7AnthPay0042")}};
    for (const EscalationRow &row : open) {
        const EscalationDetail detail = **store->escalation(row.id);
        const QString payment = paymentOf.value(row.ticketExtId);
        // The format names no order: the ticket's is the one its calls name, with the payment a
        // record of that order names, and never another's.
        QVERIFY2(detail.paymentIntent.isEmpty() || detail.paymentIntent == payment,
                 qPrintable(detail.paymentIntent));
        if (payment.isEmpty())
            continue;
        // A charge ch_X is the charge of payment pi_X, as the sandbox (and Stripe) make them.
        const QString intent =
                payment.startsWith(QStringLiteral("ch_")) ? QStringLiteral("pi_") + payment.mid(3) : payment;
        QCOMPARE(http.createPayment(intent, *detail.amountCents, QStringLiteral("birchwood")).status, 200);
        const HttpResult refund =
                http.post(QStringLiteral("/v1/refunds"),
                          {{payment.startsWith(QStringLiteral("ch_")) ? QStringLiteral("charge")
                                                                      : QStringLiteral("payment_intent"),
                            payment},
                           {QStringLiteral("amount"), QString::number(*detail.amountCents)},
                           {QStringLiteral("metadata[intent_key]"), detail.intentKey}},
                          {{"Idempotency-Key", detail.intentKey.toUtf8()}});
        QVERIFY2(refund.status == 200, refund.body.constData());
    }

    ProviderClient client(settingsFor(sandbox.url()));
    EscalationResolver resolver(*store, client, QStringLiteral("amira"));
    resolver.setRegistries(registries);
    QSignalSpy served(&sandbox.server(), &SandboxServer::served);
    for (const EscalationRow &row : open) {
        const qint64 askedBefore = served.count();
        ResolutionOperation *operation = resolver.lookUp(row.id);
        const ResolutionReport report = EscalationResolver::waitFor(operation);
        operation->deleteLater();
        const QString payment = paymentOf.value(row.ticketExtId);
        if (payment.isEmpty()) {
            QCOMPARE(int(report.kind), int(ResolutionReport::Kind::NotPossible));
            QVERIFY2(report.message.startsWith(
                             QStringLiteral("no payment reference known for order BW-30242")),
                     qPrintable(report.message));
            QCOMPARE(served.count(), askedBefore); // nothing asked under a guess
            continue;
        }
        QVERIFY2(report.kind == ResolutionReport::Kind::Resolved,
                 qPrintable(row.ticketExtId + u' ' + report.message));
        QCOMPARE(report.resolution, std::optional<Resolution>(Resolution::Performed));
        QVERIFY(report.evidence);
        const QString parameter = payment.startsWith(QStringLiteral("ch_"))
                ? QStringLiteral("charge=")
                : QStringLiteral("payment_intent=");
        QVERIFY2(report.evidence->request.contains(parameter + payment),
                 qPrintable(report.evidence->request));
        const EscalationDetail settled = **store->escalation(row.id);
        QCOMPARE(resolver.route(settled).payment,
                 QStringLiteral("%1 (get_order result, call %2)")
                         .arg(payment,
                              row.ticketExtId == u"chat-pay-1"              ? QStringLiteral("call_G1")
                                      : row.ticketExtId == u"conv-pay-0388" ? QStringLiteral("call_O1")
                                                                            : QStringLiteral("toolu_P1")));
    }
    QCOMPARE(*store->countOpenEscalations(), 1);
}

QTEST_GUILESS_MAIN(TestPaymentsFromData)
#include "tst_paymentsfromdata.moc"
