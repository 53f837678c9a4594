// The simulated model's fixed policy, row by row, and the seeded parts of the simulator:
// the fault schedule and the generated tickets depend on the seed and indices only.

#include "simulation/faultschedule.h"
#include "simulation/modelpolicy.h"
#include "simulation/refundtools.h"
#include "simulation/ticketgenerator.h"

#include <QRegularExpression>
#include <QTest>

using namespace verity;

class TestModelPolicy : public QObject
{
    Q_OBJECT

private slots:
    void reading_data();
    void reading();
    void nextMove_data();
    void nextMove();
    void tableIsDocumented();
    void faultScheduleIsSeeded();
    void ticketsAreSeeded();
    void asShippedKeysLookRandomButReplay();
};

void TestModelPolicy::reading_data()
{
    QTest::addColumn<QString>("result");
    QTest::addColumn<ToolReading>("reading");
    QTest::newRow("performed") << QStringLiteral(R"({"outcome":"performed","refund_id":"re_1"})")
                               << ToolReading::Performed;
    QTest::newRow("already") << QStringLiteral(R"({"outcome":"already_performed"})")
                             << ToolReading::AlreadyPerformed;
    QTest::newRow("not performed, same key")
            << QStringLiteral(R"({"outcome":"not_performed","retry":"same_key"})")
            << ToolReading::NotPerformedRetryable;
    QTest::newRow("refused") << QStringLiteral(R"({"outcome":"not_performed","note":"refused"})")
                             << ToolReading::Refused;
    QTest::newRow("unknown") << QStringLiteral(R"({"outcome":"unknown","retry":"never"})")
                             << ToolReading::Unknown;
    QTest::newRow("odd outcome") << QStringLiteral(R"({"outcome":"maybe"})") << ToolReading::Unknown;
    QTest::newRow("as shipped success")
            << QStringLiteral(R"({"refund_id":"re_2","status":"queued"})") << ToolReading::Performed;
    QTest::newRow("as shipped timeout")
            << QStringLiteral(R"({"error":"refund failed: upstream timeout"})") << ToolReading::Failed;
    QTest::newRow("as shipped 4xx") << QStringLiteral(R"({"error":"refund failed: HTTP 400"})")
                                    << ToolReading::Failed;
    QTest::newRow("text") << QStringLiteral(R"("ok")") << ToolReading::Unknown;
    QTest::newRow("empty object") << QStringLiteral("{}") << ToolReading::Unknown;
}

void TestModelPolicy::reading()
{
    QFETCH(QString, result);
    QFETCH(ToolReading, reading);
    QCOMPARE(ModelPolicy::read(SimJson::parse(result.toStdString())), reading);
}

void TestModelPolicy::nextMove_data()
{
    QTest::addColumn<ToolReading>("reading");
    QTest::addColumn<int>("calls");
    QTest::addColumn<ModelMove>("move");
    for (int calls : {1, 2, 3}) {
        const QByteArray n = QByteArray::number(calls);
        QTest::newRow("performed " + n) << ToolReading::Performed << calls << ModelMove::ReplyRefunded;
        QTest::newRow("already " + n)
                << ToolReading::AlreadyPerformed << calls << ModelMove::ReplyAlreadyRefunded;
        QTest::newRow("refused " + n) << ToolReading::Refused << calls << ModelMove::EscalateRefused;
        QTest::newRow("unknown " + n) << ToolReading::Unknown << calls << ModelMove::EscalateUnknown;
    }
    QTest::newRow("not performed 1") << ToolReading::NotPerformedRetryable << 1
                                     << ModelMove::RetrySameArguments;
    QTest::newRow("not performed 2") << ToolReading::NotPerformedRetryable << 2
                                     << ModelMove::EscalateNotPerformedTwice;
    QTest::newRow("failed 1") << ToolReading::Failed << 1 << ModelMove::RetrySameArguments;
    QTest::newRow("failed 2") << ToolReading::Failed << 2 << ModelMove::RetrySameArguments;
    QTest::newRow("failed 3") << ToolReading::Failed << 3 << ModelMove::EscalateAfterFailures;
}

void TestModelPolicy::nextMove()
{
    QFETCH(ToolReading, reading);
    QFETCH(int, calls);
    QFETCH(ModelMove, move);
    QCOMPARE(ModelPolicy::nextMove(reading, calls), move);
    // Every stop says something to the customer; a retry says nothing yet.
    QCOMPARE(ModelPolicy::replyText(move, QStringLiteral("$1.00")).isEmpty(), ModelPolicy::retries(move));
    QCOMPARE(ModelPolicy::escalationReason(move).isEmpty(), !ModelPolicy::escalates(move));
}

void TestModelPolicy::tableIsDocumented()
{
    const QString table = ModelPolicy::tableText();
    for (const char *word : {"performed", "already performed", "not performed", "refused", "unknown",
                             "failed", "never retry", "escalate_to_human"})
        QVERIFY2(table.contains(QLatin1String(word)), word);
}

void TestModelPolicy::faultScheduleIsSeeded()
{
    const FaultSchedule a(7, 0.3), b(7, 0.3), c(8, 0.3);
    int stalls = 0, differ = 0;
    for (int ticket = 0; ticket < 2000; ++ticket) {
        for (int attempt = 1; attempt <= 3; ++attempt) {
            QCOMPARE(a.postStalls(ticket, attempt), b.postStalls(ticket, attempt));
            stalls += a.postStalls(ticket, attempt) ? 1 : 0;
            differ += a.postStalls(ticket, attempt) != c.postStalls(ticket, attempt) ? 1 : 0;
        }
        QCOMPARE(a.readsDown(ticket), b.readsDown(ticket));
    }
    QVERIFY(stalls > 1500 && stalls < 2100); // about 30% of 6000
    QVERIFY(differ > 0);
    QVERIFY(!FaultSchedule(7, 0).postStalls(3, 1));
    QVERIFY(FaultSchedule(7, 1).postStalls(3, 1));
    const FaultSchedule fixed = FaultSchedule::fixed({1});
    QCOMPARE(fixed.faultsFor(0, 1, 600), QStringLiteral("accept-then-stall=600ms"));
    QCOMPARE(fixed.faultsFor(0, 2, 600), QString());
    QCOMPARE(FaultSchedule::fixed({2}, true).faultsFor(0, 2, 50),
             QStringLiteral("accept-then-stall=50ms,fail-before-accept=503"));
}

void TestModelPolicy::ticketsAreSeeded()
{
    const GeneratedTickets a = generateTickets({5, 50, QStringLiteral("T-X"), {}});
    const GeneratedTickets b = generateTickets({5, 50, QStringLiteral("T-X"), {}});
    const GeneratedTickets c = generateTickets({6, 50, QStringLiteral("T-X"), {}});
    QCOMPARE(a.tickets.size(), 50);
    QCOMPARE(a.sellers.size(), 10);
    bool anyDifferent = false;
    QHash<QString, qint64> owed;
    for (qsizetype i = 0; i < a.tickets.size(); ++i) {
        const SimTicket &x = a.tickets.at(i), &y = b.tickets.at(i);
        QCOMPARE(x.ticketId, QStringLiteral("T-X-%1").arg(i + 1, 5, 10, QLatin1Char('0')));
        QCOMPARE(x.amountCents, y.amountCents);
        QCOMPARE(x.customerEmail, y.customerEmail);
        QCOMPARE(x.openedAt, y.openedAt);
        QVERIFY(x.amountCents >= 500 && x.amountCents < 15000);
        QCOMPARE(x.paymentCents, 3 * x.amountCents);
        anyDifferent |= x.amountCents != c.tickets.at(i).amountCents;
        owed[x.seller.id] += x.amountCents;
    }
    QVERIFY(anyDifferent);
    // Each seller's balance covers its tickets' refunds once, with $1 to $150 to spare.
    for (const SimSeller &seller : a.sellers) {
        const qint64 margin = seller.openingBalanceCents - owed.value(seller.id);
        QVERIFY2(margin >= 100 && margin <= 15000, qPrintable(seller.id));
    }
}

void TestModelPolicy::asShippedKeysLookRandomButReplay()
{
    static const QRegularExpression uuid4(
            QStringLiteral("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"));
    const SimTicket ticket = generateTickets({1, 10, QStringLiteral("T-X"), {}}).tickets.at(4);
    SimTicket elsewhere = ticket;
    elsewhere.paymentIntent += QStringLiteral("-run2");
    const QString key = AsShippedRefundTool::keyFor(1, ticket, 1);
    QVERIFY2(uuid4.match(key).hasMatch(), qPrintable(key));
    QCOMPARE(AsShippedRefundTool::keyFor(1, ticket, 1), key);
    QVERIFY(AsShippedRefundTool::keyFor(1, ticket, 2) != key); // a fresh key per attempt: the flaw itself
    QVERIFY(AsShippedRefundTool::keyFor(2, ticket, 1) != key);
    QVERIFY(AsShippedRefundTool::keyFor(1, elsewhere, 1) != key);
}

QTEST_GUILESS_MAIN(TestModelPolicy)
#include "tst_modelpolicy.moc"
