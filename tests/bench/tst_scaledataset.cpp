// The benchmark's dataset is what its figures say it is: it imports without a rejected line,
// and the store finds the shares the generator counted (calls, writes, unknowns left for an
// escalation, tickets with a repeated intent). The same seed writes the same bytes.

#include "../store/storetestsupport.h"
#include "scaledataset.h"
#include "support/filedigest.h"
#include "support/teststore.h"

#include <QTemporaryDir>
#include <QTest>

using namespace verity;
using namespace verity::bench;
using namespace storetest;

class TestScaleDataset : public QObject
{
    Q_OBJECT

private slots:
    void importsAsCounted()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("scale.jsonl"));
        const ScaleDatasetShape shape = writeScaleDataset(file, 3000, 7);
        QCOMPARE(shape.tickets, 3000);
        QVERIFY(shape.toolCalls > 5 * shape.tickets
                && shape.toolCalls < 7 * shape.tickets); // about six a ticket
        QVERIFY(shape.unknownWrites > 0);
        QVERIFY(shape.repeatedTickets > 0);

        std::unique_ptr<Store> store = test::openTestStore(dir.filePath(QStringLiteral("scale.sqlite")));
        QVERIFY(store);
        const ImportReport report = importFile(*store, file);
        QVERIFY2(report.clean(), qPrintable(report.summary()));
        QCOMPARE(report.ticketsOpened, shape.tickets);
        RawSqlite raw(store->location());
        QSqlDatabase &db = raw.db();
        QCOMPARE(scalar(db, QStringLiteral("SELECT count(*) FROM tool_calls")), shape.toolCalls);
        QCOMPARE(scalar(db, QStringLiteral("SELECT count(*) FROM tool_calls WHERE tool_class != 'read'")),
                 shape.writes);
        QCOMPARE(scalar(db,
                        QStringLiteral("SELECT count(*) FROM tool_calls WHERE tool_class = 'unclassified'")),
                 0);
        QCOMPARE(scalar(db, QStringLiteral("SELECT count(*) FROM escalations WHERE state = 'open'")),
                 shape.unknownWrites);
        QCOMPARE(scalar(db, QStringLiteral("SELECT count(*) FROM tickets WHERE has_repeat = 1")),
                 shape.repeatedTickets);
        QCOMPARE(scalar(db,
                        QStringLiteral("SELECT count(*) FROM tool_calls WHERE tool = 'issue_refund' "
                                       "AND outcome = 'performed'")),
                 shape.performedRefunds);
        // A search the benchmark makes finds its ticket.
        TicketQuery query;
        query.search = scaleOrderId(1500);
        QCOMPARE(*store->countTickets(query), 1);
    }

    void sameSeedSameBytes()
    {
        QTemporaryDir dir;
        const QString a = dir.filePath(QStringLiteral("a.jsonl"));
        const QString b = dir.filePath(QStringLiteral("b.jsonl"));
        const QString c = dir.filePath(QStringLiteral("c.jsonl"));
        QCOMPARE(writeScaleDataset(a, 200, 1).tickets, 200);
        QCOMPARE(writeScaleDataset(b, 200, 1).tickets, 200);
        QCOMPARE(writeScaleDataset(c, 200, 2).tickets, 200);
        QVERIFY(!test::fileSha256(a).isEmpty());
        QCOMPARE(test::fileSha256(a), test::fileSha256(b));
        QVERIFY(test::fileSha256(a) != test::fileSha256(c));
    }

    void unwritableFileSaysSo()
    {
        QCOMPARE(writeScaleDataset(QStringLiteral("/nonexistent-folder/x.jsonl"), 10, 1).tickets, 0);
    }
};

QTEST_GUILESS_MAIN(TestScaleDataset)
#include "tst_scaledataset.moc"
