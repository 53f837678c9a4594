// What the customer is told once evidence settles a refund: it must match the money that
// moved, counted as refunds at the provider, never as calls; and it promises nothing that
// has not happened.

#include "resolution/customerdraft.h"
#include "support/time.h"

#include <QDateTime>
#include <QTest>

using namespace verity;

class TestCustomerDraft : public QObject
{
    Q_OBJECT

private slots:
    void draft_data();
    void draft();
    void furtherUnknownCallIsStillBeingChecked();
    void writeDraft_data();
    void writeDraft();
};

namespace {

qint64 march17()
{
    return test::utcMs(2026, 3, 17, 14, 32, 7);
}

} // namespace

void TestCustomerDraft::draft_data()
{
    QTest::addColumn<int>("performedRefunds");
    QTest::addColumn<int>("resolution"); // -1: still open
    QTest::addColumn<bool>("attested");
    QTest::addColumn<QStringList>("mustSay");
    QTest::addColumn<QStringList>("mustNotSay");

    QTest::newRow("one refund, verified")
            << 1 << int(Resolution::Performed) << false
            << QStringList{QStringLiteral("Hello Dana,"), QStringLiteral("one refund of $118.00"),
                           QStringLiteral("17 March")}
            << QStringList{QStringLiteral("in error")};
    QTest::newRow("the March incident: two refunds")
            << 2 << int(Resolution::Performed) << false
            << QStringList{QStringLiteral("One refund of $118.00"), QStringLiteral("17 March"),
                           QStringLiteral("A second refund"), QStringLiteral("recovering it")}
            << QStringList{QStringLiteral("further refunds")};
    QTest::newRow("three refunds") << 3 << int(Resolution::Performed) << false
                                   << QStringList{QStringLiteral("2 further refunds"),
                                                  QStringLiteral("recovering them")}
                                   << QStringList{QStringLiteral("A second refund")};
    // Nothing is promised before the write is made: not "we are issuing it".
    QTest::newRow("verified absent") << 0 << int(Resolution::NotPerformed) << false
                                     << QStringList{QStringLiteral("has not been made so far"),
                                                    QStringLiteral("$118.00"),
                                                    QStringLiteral("with our payment provider")}
                                     << QStringList{QStringLiteral("in error"), QStringLiteral("was made to"),
                                                    QStringLiteral("issuing"), QStringLiteral("will be")};
    QTest::newRow("attested absent") << 0 << int(Resolution::NotPerformed) << true
                                     << QStringList{QStringLiteral(
                                                "not yet been able to confirm a refund of $118.00")}
                                     << QStringList{QStringLiteral("payment provider"),
                                                    QStringLiteral("issuing"),
                                                    QStringLiteral("has not been made")};
    QTest::newRow("attested performed") << 1 << int(Resolution::Performed) << true
                                        << QStringList{QStringLiteral("We have checked that one refund")}
                                        << QStringList{QStringLiteral("confirmed with our payment provider")};
    // Open, with another call of the intent performed by its own result: nothing is claimed of
    // the provider before anyone asked it.
    QTest::newRow("open beside a performed call")
            << 1 << -1 << false
            << QStringList{QStringLiteral("One refund of $118.00 was made"), QStringLiteral("17 March"),
                           QStringLiteral("We are checking with our payment provider")}
            << QStringList{QStringLiteral("confirmed"), QStringLiteral("made in error")};
    QTest::newRow("still open") << 0 << -1 << false
                                << QStringList{QStringLiteral("being confirmed"), QStringLiteral("$118.00")}
                                << QStringList{QStringLiteral("was made"), QStringLiteral("issuing")};
}

void TestCustomerDraft::draft()
{
    QFETCH(int, performedRefunds);
    QFETCH(int, resolution);
    QFETCH(bool, attested);
    QFETCH(QStringList, mustSay);
    QFETCH(QStringList, mustNotSay);

    QList<RefundFact> facts;
    for (int i = 0; i < qMax(1, performedRefunds); ++i)
        facts.append({11800, QStringLiteral("USD"), march17() + i * 7000, i < performedRefunds});
    const QString text = draftCustomerMessage(
            QStringLiteral("Dana Whitfield"), facts,
            resolution < 0 ? std::nullopt : std::optional<Resolution>(Resolution(resolution)), attested);
    for (const QString &phrase : std::as_const(mustSay))
        QVERIFY2(text.contains(phrase),
                 qPrintable(QStringLiteral("missing \"%1\" in: %2").arg(phrase, text)));
    for (const QString &phrase : std::as_const(mustNotSay))
        QVERIFY2(!text.contains(phrase),
                 qPrintable(QStringLiteral("unexpected \"%1\" in: %2").arg(phrase, text)));
}

// Three calls of one intent: two known to have made a refund, one still unknown. The draft
// counts what is known and says the rest is being checked, never "one in error" as final.
void TestCustomerDraft::furtherUnknownCallIsStillBeingChecked()
{
    const QList<RefundFact> facts{{9650, QStringLiteral("USD"), march17(), true, false},
                                  {9650, QStringLiteral("USD"), march17() + 7000, false, true},
                                  {9650, QStringLiteral("USD"), march17() + 14000, true, false}};
    const QString text = draftCustomerMessage(QStringLiteral("Ines Moreau"), facts, Resolution::Performed);
    QVERIFY2(text.contains(QStringLiteral("A second refund of the same amount was made in error")),
             qPrintable(text));
    QVERIFY2(text.contains(
                     QStringLiteral("still checking with our payment provider whether a further refund")),
             qPrintable(text));
    // Nothing unknown left: no such sentence.
    const QList<RefundFact> known{facts.at(0), facts.at(2)};
    QVERIFY(!draftCustomerMessage(QStringLiteral("Ines Moreau"), known, Resolution::Performed)
                     .contains(QStringLiteral("still checking")));
}

void TestCustomerDraft::writeDraft_data()
{
    QTest::addColumn<QString>("tool");
    QTest::addColumn<int>("resolution"); // -1: still open
    QTest::addColumn<bool>("attested");
    QTest::addColumn<QStringList>("mustSay");
    QTest::addColumn<QStringList>("mustNotSay");

    const QStringList noReference{QStringLiteral("reference")};
    QTest::newRow("pickup still unknown: no claim that it is booked")
            << "schedule_pickup" << -1 << false
            << QStringList{QStringLiteral(
                       "We are checking with the courier whether the collection of your order "
                       "SU-88316 has been booked")}
            << QStringList{QStringLiteral("is booked"), QStringLiteral("reference")};
    QTest::newRow("pickup verified: the courier's reference")
            << "schedule_pickup" << int(Resolution::Performed) << false
            << QStringList{QStringLiteral("We have confirmed with the courier"),
                           QStringLiteral("(reference pu_123)")}
            << QStringList{};
    QTest::newRow("pickup attested: where the person looked is not quoted")
            << "schedule_pickup" << int(Resolution::Performed) << true
            << QStringList{QStringLiteral(
                       "We have checked that the collection of your order SU-88316 is booked.")}
            << QStringList{QStringLiteral("reference"), QStringLiteral("dashboard")};
    QTest::newRow("message still unknown")
            << "message_seller" << -1 << false
            << QStringList{QStringLiteral(
                       "whether our message to the seller about your order SU-88316 was delivered")}
            << noReference;
    QTest::newRow("message attested not performed")
            << "message_seller" << int(Resolution::NotPerformed) << true
            << QStringList{QStringLiteral(
                       "We have not yet been able to confirm that our message to the seller about "
                       "your order SU-88316 was delivered.")}
            << QStringList{QStringLiteral("dashboard"), QStringLiteral("messaging service")};
}

void TestCustomerDraft::writeDraft()
{
    QFETCH(QString, tool);
    QFETCH(int, resolution);
    QFETCH(bool, attested);
    QFETCH(QStringList, mustSay);
    QFETCH(QStringList, mustNotSay);

    EscalationDetail escalation;
    escalation.tool = tool;
    escalation.toolClass = ToolClass::WriteCostly;
    escalation.orderId = QStringLiteral("SU-88316");
    escalation.customerName = QStringLiteral("Dana Whitfield");
    escalation.state = resolution < 0 ? EscalationState::Open : EscalationState::Resolved;
    if (resolution >= 0) {
        escalation.resolution = Resolution(resolution);
        escalation.basis = attested ? SettlementBasis::Attestation : SettlementBasis::Lookup;
        escalation.reference =
                attested ? QStringLiteral("the courier's dashboard") : QStringLiteral("pu_123");
    }
    const QString text = draftWriteMessage(escalation);
    QVERIFY2(text.startsWith(QStringLiteral("Hello Dana,")), qPrintable(text));
    for (const QString &phrase : std::as_const(mustSay))
        QVERIFY2(text.contains(phrase),
                 qPrintable(QStringLiteral("missing \"%1\" in: %2").arg(phrase, text)));
    for (const QString &phrase : std::as_const(mustNotSay))
        QVERIFY2(!text.contains(phrase),
                 qPrintable(QStringLiteral("unexpected \"%1\" in: %2").arg(phrase, text)));
}

QTEST_GUILESS_MAIN(TestCustomerDraft)
#include "tst_customerdraft.moc"
