// What the customer is told once evidence settles a write: what happened, the amount, the day,
// the collection window and what happens next, counted as refunds at the provider, never as
// calls. No internal id, no system's name, no promise of what has not happened, and an apology
// only where the customer was told something the evidence now contradicts.

#include "resolution/customerdraft.h"
#include "resolution/pickupwindow.h"
#include "support/time.h"

#include <QDateTime>
#include <QTest>

using namespace verity;

class TestCustomerDraft : public QObject
{
    Q_OBJECT

private slots:
    void refundDraft_data();
    void refundDraft();
    void furtherUnknownCallIsStillBeingChecked();
    void absentWhileAnotherCallMayHaveMadeIt();
    void anAmountNotReadIsLeftOut();
    void aNameHoldsNothingHidden();
    void writeDraft_data();
    void writeDraft();
    void pickupWindowFromTheCouriersRecord();
    void pickupWindowFromAResult();
};

namespace {

qint64 march17()
{
    return test::utcMs(2026, 3, 17, 14, 32, 7);
}

const QString sorry = QStringLiteral("Sorry for the confusion.");

// What no draft says: ids only Verity and the systems use, the systems' names, a promise to
// take money back that nobody asked for, and "once this is settled" of a write that is settled.
QStringList neverSaid()
{
    return {QStringLiteral("pu_"),
            QStringLiteral("msg_"),
            QStringLiteral("re_"),
            QStringLiteral("pi_"),
            QStringLiteral("pk_"),
            QStringLiteral("c3"),
            QStringLiteral("7f3a9c"), // the intent key
            QStringLiteral("schedule_pickup"),
            QStringLiteral("message_seller"),
            QStringLiteral("reference"),
            QStringLiteral("payment provider"),
            QStringLiteral("messaging service"),
            QStringLiteral("courier"),
            QStringLiteral("dashboard"),
            QStringLiteral("recover"),
            QStringLiteral("once this is settled")};
}

void verifyPhrases(const QString &text, const QStringList &mustSay, const QStringList &mustNotSay,
                   bool apologise)
{
    for (const QString &phrase : mustSay)
        QVERIFY2(text.contains(phrase),
                 qPrintable(QStringLiteral("missing \"%1\" in: %2").arg(phrase, text)));
    for (const QString &phrase : mustNotSay + neverSaid())
        QVERIFY2(!text.contains(phrase, Qt::CaseInsensitive),
                 qPrintable(QStringLiteral("unexpected \"%1\" in: %2").arg(phrase, text)));
    QVERIFY2(text.contains(sorry) == apologise,
             qPrintable(QStringLiteral("apology %1 expected in: %2")
                                .arg(apologise ? QStringLiteral("") : QStringLiteral("not"), text)));
}

} // namespace

void TestCustomerDraft::refundDraft_data()
{
    QTest::addColumn<int>("performedRefunds");
    QTest::addColumn<int>("resolution"); // -1: still open
    QTest::addColumn<bool>("attested");
    QTest::addColumn<bool>("reportedNotPerformed"); // the tool said the refund had not been made
    QTest::addColumn<bool>("apologise");
    QTest::addColumn<QStringList>("mustSay");
    QTest::addColumn<QStringList>("mustNotSay");

    const QString made =
            QStringLiteral("one refund of $118.00 was made to your original payment method on 17 March");
    QTest::newRow("performed, verified")
            << 1 << int(Resolution::Performed) << false << false << false
            << QStringList{QStringLiteral("Hello Dana,"), QStringLiteral("We have confirmed that ") + made,
                           QStringLiteral("3 to 5 working days")}
            << QStringList{QStringLiteral("in error")};
    QTest::newRow("performed, attested")
            << 1 << int(Resolution::Performed) << true << false << false
            << QStringList{QStringLiteral("We have checked that ") + made}
            << QStringList{QStringLiteral("confirmed"), QStringLiteral("in error")};
    // The agent was told it had failed, and may have told the customer so.
    QTest::newRow("performed, though the tool said it failed")
            << 1 << int(Resolution::Performed) << false << true << true
            << QStringList{QStringLiteral("We have confirmed that ") + made} << QStringList{};
    QTest::newRow("unknown")
            << 0 << -1 << false << false << false
            << QStringList{QStringLiteral("We are still checking whether your refund of $118.00 has "
                                          "been made."),
                           QStringLiteral("as soon as we know")}
            << QStringList{QStringLiteral("was made"), QStringLiteral("issuing"),
                           QStringLiteral("We will make")};
    // Open, with another call of the intent performed by its own result: nothing is claimed to
    // have been confirmed, nor a second refund stated.
    QTest::newRow("unknown beside a performed call")
            << 1 << -1 << false << false << false
            << QStringList{QStringLiteral("One refund of $118.00 was made"), QStringLiteral("17 March"),
                           QStringLiteral("We are still checking whether a second refund")}
            << QStringList{QStringLiteral("confirmed"), QStringLiteral("A second refund of the same amount")};
    // Settled absent, it is still owed: said plainly, and the next step promised, not done.
    for (const bool attested : {false, true}) {
        QTest::addRow("not performed, %s", attested ? "attested" : "verified")
                << 0 << int(Resolution::NotPerformed) << attested << false << false
                << QStringList{QStringLiteral(
                                       "We have checked, and your refund of $118.00 has not been made yet."),
                               QStringLiteral("We will make it to your original payment method and write to "
                                              "you again once it has gone through.")}
                << QStringList{QStringLiteral("was made to"), QStringLiteral("issuing"),
                               QStringLiteral("is being"), QStringLiteral("not yet been able")};
    }
    // The March incident: the customer was told of one refund and sees two. Nobody has asked
    // for the second back, so nothing is said of taking it back.
    QTest::newRow("duplicate")
            << 2 << int(Resolution::Performed) << false << false << true
            << QStringList{QStringLiteral("We have confirmed that ") + made,
                           QStringLiteral("A second refund of the same amount was also made on 17 March, in "
                                          "error, so you may see two refunds of $118.00."),
                           QStringLiteral("our team will contact you")}
            << QStringList{QStringLiteral("further refunds"), QStringLiteral("back")};
    QTest::newRow("three refunds") << 3 << int(Resolution::Performed) << false << false << true
                                   << QStringList{QStringLiteral("2 further refunds"),
                                                  QStringLiteral("you may see 3 refunds of $118.00")}
                                   << QStringList{QStringLiteral("A second refund")};
}

void TestCustomerDraft::refundDraft()
{
    QFETCH(int, performedRefunds);
    QFETCH(int, resolution);
    QFETCH(bool, attested);
    QFETCH(bool, reportedNotPerformed);
    QFETCH(bool, apologise);
    QFETCH(QStringList, mustSay);
    QFETCH(QStringList, mustNotSay);

    QList<RefundFact> facts;
    for (int i = 0; i < qMax(1, performedRefunds); ++i)
        facts.append({11800, QStringLiteral("USD"), march17() + i * 7000, i < performedRefunds, false,
                      reportedNotPerformed});
    const QString text = draftCustomerMessage(
            QStringLiteral("Dana Whitfield"), facts,
            resolution < 0 ? std::nullopt : std::optional<Resolution>(Resolution(resolution)), attested);
    verifyPhrases(text, mustSay, mustNotSay, apologise);
}

// Three calls of one intent: two known to have made a refund, one still unknown. The draft
// counts what is known and says the rest is being checked, never "one in error" as final.
void TestCustomerDraft::furtherUnknownCallIsStillBeingChecked()
{
    const QList<RefundFact> facts{{9650, QStringLiteral("USD"), march17(), true, false},
                                  {9650, QStringLiteral("USD"), march17() + 7000, false, true},
                                  {9650, QStringLiteral("USD"), march17() + 14000, true, false}};
    const QString text = draftCustomerMessage(QStringLiteral("Ines Moreau"), facts, Resolution::Performed);
    QVERIFY2(text.contains(QStringLiteral("A second refund of the same amount was also made on 17 March")),
             qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("still checking whether a further refund")), qPrintable(text));
    // Nothing unknown left: no such sentence.
    const QList<RefundFact> known{facts.at(0), facts.at(2)};
    QVERIFY(!draftCustomerMessage(QStringLiteral("Ines Moreau"), known, Resolution::Performed)
                     .contains(QStringLiteral("still checking")));
}

// This call made no refund, but another of its intent may have: making it now could pay twice,
// so nothing is promised until that one is known.
void TestCustomerDraft::absentWhileAnotherCallMayHaveMadeIt()
{
    const QList<RefundFact> facts{{9650, QStringLiteral("USD"), march17(), false, false},
                                  {9650, QStringLiteral("USD"), march17() + 7000, false, true}};
    const QString text = draftCustomerMessage(QStringLiteral("Ines Moreau"), facts, Resolution::NotPerformed);
    verifyPhrases(text,
                  {QStringLiteral("We are still checking whether your refund of $96.50 has been made.")},
                  {QStringLiteral("We will make"), QStringLiteral("has not been made")}, false);
}

// The import could not read the amount (kept with none): the customer is never told of $0.00.
void TestCustomerDraft::anAmountNotReadIsLeftOut()
{
    const QList<RefundFact> facts{{0, QStringLiteral("USD"), march17(), false, true}};
    verifyPhrases(draftCustomerMessage(QStringLiteral("Ines Moreau"), facts, std::nullopt),
                  {QStringLiteral("We are still checking whether your refund has been made.")},
                  {QStringLiteral("$0.00")}, false);
    const QList<RefundFact> made{{0, QStringLiteral("USD"), march17(), true, false}};
    verifyPhrases(
            draftCustomerMessage(QStringLiteral("Ines Moreau"), made, Resolution::Performed),
            {QStringLiteral("We have confirmed that one refund was made to your original payment method")},
            {QStringLiteral("$0.00")}, false);
}

// A right-to-left override in the agent's data would turn the greeting around in the mail.
void TestCustomerDraft::aNameHoldsNothingHidden()
{
    const QList<RefundFact> facts{{9650, QStringLiteral("USD"), march17(), true, false}};
    const QString text =
            draftCustomerMessage(QStringLiteral("Zo\u00eb\u202e kcaj Ng"), facts, Resolution::Performed);
    QVERIFY2(text.startsWith(QStringLiteral("Hello Zo\u00eb,")), qPrintable(text));
    QVERIFY(!text.contains(QChar(0x202e)));
}

void TestCustomerDraft::writeDraft_data()
{
    QTest::addColumn<QString>("tool");
    QTest::addColumn<int>("resolution"); // -1: still open
    QTest::addColumn<bool>("attested");
    QTest::addColumn<int>("reported"); // the outcome the tool reported
    QTest::addColumn<QString>("window"); // the pickup's, as the courier named it
    QTest::addColumn<bool>("apologise");
    QTest::addColumn<QStringList>("mustSay");
    QTest::addColumn<QStringList>("mustNotSay");

    const QString pickup = QStringLiteral("schedule_pickup");
    const QString message = QStringLiteral("message_seller");
    const QString window = QStringLiteral("Fri 3 Apr, 08:00-12:00");
    const int unknown = int(Outcome::Unknown);
    QTest::newRow("pickup unknown: no claim that it is booked")
            << pickup << -1 << false << unknown << QString() << false
            << QStringList{QStringLiteral("We are still checking whether the collection of your order "
                                          "SU-88316 has been booked. We "
                                          "will write to you again as soon as we know.")}
            << QStringList{QStringLiteral("is booked")};
    QTest::newRow("pickup performed, with its window")
            << pickup << int(Resolution::Performed) << false << unknown << window << false
            << QStringList{QStringLiteral("We have confirmed that the collection of your order SU-88316 is "
                                          "booked for Fri 3 Apr, "
                                          "08:00-12:00.")}
            << QStringList{};
    QTest::newRow("pickup booked again from the console")
            << pickup << int(Resolution::PerformedAgain) << false << unknown << window << false
            << QStringList{QStringLiteral("is booked for Fri 3 Apr, 08:00-12:00.")} << QStringList{};
    QTest::newRow("pickup attested, no window named")
            << pickup << int(Resolution::Performed) << true << unknown << QString() << false
            << QStringList{QStringLiteral(
                       "We have checked that the collection of your order SU-88316 is booked.")}
            << QStringList{QStringLiteral("confirmed")};
    // The tool said no booking was made, and the agent may have said so: now it is found.
    QTest::newRow("pickup the tool said failed, found booked")
            << pickup << int(Resolution::Performed) << false << int(Outcome::NotPerformed) << window << true
            << QStringList{QStringLiteral("is booked for Fri 3 Apr, 08:00-12:00.")} << QStringList{};
    QTest::newRow("pickup not performed, still owed")
            << pickup << int(Resolution::NotPerformed) << false << unknown << QString() << false
            << QStringList{QStringLiteral(
                                   "We have checked, and the collection of your order SU-88316 has not "
                                   "been booked yet."),
                           QStringLiteral("We will book it and write to you again with the collection time")}
            << QStringList{QStringLiteral("is booked")};
    QTest::newRow("message performed")
            << message << int(Resolution::Performed) << false << unknown << QString() << false
            << QStringList{QStringLiteral("We have confirmed that our message to the seller about your order "
                                          "SU-88316 was sent on 18 "
                                          "March.")}
            << QStringList{};
    QTest::newRow("message unknown") << message << -1 << false << unknown << QString() << false
                                     << QStringList{QStringLiteral(
                                                "We are still checking whether our message to the seller "
                                                "about your order SU-88316 was "
                                                "sent.")}
                                     << QStringList{QStringLiteral("was sent on")};
    // Settled by a person's check: it is settled, so no "once this is settled"; still owed.
    for (const bool attested : {false, true}) {
        QTest::addRow("message not performed, %s", attested ? "attested" : "verified")
                << message << int(Resolution::NotPerformed) << attested << unknown << QString() << false
                << QStringList{QStringLiteral(
                           "We have checked, and our message to the seller about your order "
                           "SU-88316 has not been sent yet. We will send it and write to you "
                           "again once it has gone.")}
                << QStringList{QStringLiteral("was sent"), QStringLiteral("not yet been able")};
    }
}

void TestCustomerDraft::writeDraft()
{
    QFETCH(QString, tool);
    QFETCH(int, resolution);
    QFETCH(bool, attested);
    QFETCH(int, reported);
    QFETCH(QString, window);
    QFETCH(bool, apologise);
    QFETCH(QStringList, mustSay);
    QFETCH(QStringList, mustNotSay);

    // Every id Verity holds for it, so that the draft is seen to quote none.
    EscalationDetail escalation;
    escalation.tool = tool;
    escalation.toolClass = ToolClass::WriteCostly;
    escalation.callExtId = QStringLiteral("c3");
    escalation.intentKey = QStringLiteral("7f3a9c0b");
    escalation.orderId = QStringLiteral("SU-88316");
    escalation.paymentIntent = QStringLiteral("pi_SU-88316");
    escalation.customerName = QStringLiteral("Dana Whitfield");
    escalation.calledAt = test::utcMs(2026, 3, 18, 10, 13, 33);
    escalation.reported = Outcome(reported);
    escalation.state = resolution < 0 ? EscalationState::Open : EscalationState::Resolved;
    if (resolution >= 0) {
        escalation.resolution = Resolution(resolution);
        escalation.basis = attested ? SettlementBasis::Attestation : SettlementBasis::Lookup;
        escalation.reference = attested
                ? QStringLiteral("the courier's dashboard")
                : (tool == u"schedule_pickup" ? QStringLiteral("pu_123")
                                              : QStringLiteral("msg_vhMBVf0zEoVt17EZ"));
        escalation.resolvedAt = test::utcMs(2026, 3, 20, 9);
    }
    const QString text = draftWriteMessage(escalation, window);
    QVERIFY2(text.startsWith(QStringLiteral("Hello Dana,")), qPrintable(text));
    verifyPhrases(text, mustSay, mustNotSay, apologise);
}

// The courier's record, as a lookup's list or a write's answer kept it: the window of the
// record that settled it, not of another booking on the order.
void TestCustomerDraft::pickupWindowFromTheCouriersRecord()
{
    const QString page = QStringLiteral(
            "HTTP 200 OK\nAnswered by: http://127.0.0.1:12111/v1/pickups?order=SU-1\nContent-Type: "
            "application/json\n\n{\n    \"data\": [\n        {\"id\": \"pu_other\", \"window\": \"Mon 30 "
            "Mar, "
            "08:00-12:00\"},\n        {\"id\": \"pu_found\", \"window\": \"Thu 2 Apr, 12:00-16:00\"}\n    "
            "],\n"
            "    \"has_more\": false,\n    \"object\": \"list\"\n}\n");
    const QString retried =
            QStringLiteral("HTTP 503 Service Unavailable\nAnswered by: http://127.0.0.1\n\n{\"error\": "
                           "{}}\n\n")
            + page;
    QCOMPARE(pickupWindowOfRecord(retried, QStringLiteral("pu_found")),
             QStringLiteral("Thu 2 Apr, 12:00-16:00"));
    QCOMPARE(pickupWindowOfRecord(retried, QStringLiteral("pu_gone")), QString());
    const QString made =
            QStringLiteral("HTTP 200 OK\n\n{\"id\": \"pu_new\", \"window\": \"Fri 3 Apr, 08:00-12:00\"}");
    QCOMPARE(pickupWindowOfRecord(made, QStringLiteral("pu_new")), QStringLiteral("Fri 3 Apr, 08:00-12:00"));
    QCOMPARE(pickupWindowOfRecord(QStringLiteral("no HTTP answer: timed out"), QStringLiteral("pu_new")),
             QString());

    // The newest record found wins over the calls' results; a person's check names none.
    Evidence lookup;
    lookup.verdict = LookupVerdict::Found;
    lookup.response = retried;
    lookup.recordId = QStringLiteral("pu_found");
    Evidence check;
    check.kind = EvidenceKind::Attestation;
    check.verdict = LookupVerdict::Found;
    check.response = made;
    check.recordId = QStringLiteral("pu_new");
    ToolCallRow call;
    call.rawResult = QStringLiteral(R"({"outcome":"performed","window":"Tue 31 Mar, 08:00-12:00"})");
    QCOMPARE(pickupWindow({lookup, check}, {call}), QStringLiteral("Thu 2 Apr, 12:00-16:00"));
    QCOMPARE(pickupWindow({check}, {call}), QStringLiteral("Tue 31 Mar, 08:00-12:00"));
    QCOMPARE(pickupWindow({}, {}), QString());
}

void TestCustomerDraft::pickupWindowFromAResult()
{
    QCOMPARE(
            pickupWindowInResult(QStringLiteral(R"({"pickup_id":"pk_1","window":"Thu 2 Apr, 08:00-12:00"})")),
            QStringLiteral("Thu 2 Apr, 08:00-12:00"));
    QCOMPARE(pickupWindowInResult(QStringLiteral(R"({"outcome":"unknown"})")), QString());
    QCOMPARE(pickupWindowInResult(QStringLiteral("Pickup PU-404 scheduled")), QString());
    QCOMPARE(pickupWindowInResult(QString()), QString());
    // Not a line a customer could read: not quoted.
    QCOMPARE(pickupWindowInResult(QStringLiteral(R"({"window":"Thu 2 Apr\n\u001b[31m08:00"})")), QString());
    QCOMPARE(pickupWindowInResult(QStringLiteral(R"({"window":"%1"})").arg(QString(101, u'x'))), QString());
}

QTEST_GUILESS_MAIN(TestCustomerDraft)
#include "tst_customerdraft.moc"
