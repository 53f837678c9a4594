// The ticket queue pages through thousands of tickets: every row readable, in any order,
// with pages evicted and loaded again; and the page cache keeps to its budget, forgetting
// the least recently used page first.

#include "itemmodels/rowcache.h"
#include "itemmodels/ticketqueuemodel.h"
#include "storetestsupport.h"

#include <QTemporaryDir>
#include <QTest>

using namespace verity;
using namespace storetest;

namespace {

QStringList ticketColumn(const QAbstractItemModel &model)
{
    QStringList ids;
    for (int row = 0; row < model.rowCount(); ++row)
        ids << model.data(model.index(row, TicketQueueModel::TicketColumn)).toString();
    return ids;
}

QString ticketAt(const QAbstractItemModel &model, int row)
{
    return model.data(model.index(row, TicketQueueModel::TicketColumn)).toString();
}

} // namespace

class TestItemModelsPaging : public QObject
{
    Q_OBJECT

private slots:
    void pagingThroughThousands();
    void rowCacheBudget_data();
    void rowCacheBudget();

private:
    QTemporaryDir m_dir;
};

void TestItemModelsPaging::pagingThroughThousands()
{
    constexpr int count = 3000;
    QList<QByteArray> lines;
    QStringList expected;
    for (int i = 0; i < count; ++i) {
        const QString ticket = QStringLiteral("P-%1").arg(i, 5, 10, QLatin1Char('0'));
        expected << ticket;
        lines << ticketOpened(ticket,
                              QStringLiteral("2026-03-%1T10:%2:%3Z")
                                      .arg(1 + i % 28, 2, 10, QLatin1Char('0'))
                                      .arg(i / 60 % 60, 2, 10, QLatin1Char('0'))
                                      .arg(i % 60, 2, 10, QLatin1Char('0')),
                              {}, QStringLiteral("Seller %1").arg(i % 7));
    }
    const QString file = m_dir.filePath(QStringLiteral("paging.jsonl"));
    QVERIFY(writeLines(file, lines));
    std::unique_ptr<SqliteStore> store = openStore(m_dir.filePath(QStringLiteral("paging.sqlite")));
    QVERIFY(store);
    QVERIFY(importFile(*store, file).clean());

    TicketQueueModel model(*store);
    QCOMPARE(model.rowCount(), count);
    QVERIFY(ticketAt(model, count - 1).startsWith(u"P-"));
    QVERIFY(!model.index(count, TicketQueueModel::TicketColumn).isValid());
    const QStringList forward = ticketColumn(model);
    QStringList sorted = forward;
    sorted.sort();
    QCOMPARE(sorted, expected); // every ticket once
    // Read again backwards and in jumps, so pages are evicted and loaded again: same rows.
    for (int row = count - 1; row >= 0; row -= 1)
        QCOMPARE(ticketAt(model, row), forward.at(row));
    for (int step = 0; step < 400; ++step) {
        const int row = (step * 7919) % count;
        QCOMPARE(ticketAt(model, row), forward.at(row));
    }
    model.sort(TicketQueueModel::TicketColumn, Qt::AscendingOrder);
    QCOMPARE(ticketColumn(model), expected);
    model.setSearch(QStringLiteral("p-0299"));
    QCOMPARE(model.rowCount(), 10);
    QCOMPARE(ticketAt(model, 9), QStringLiteral("P-02999"));
}

void TestItemModelsPaging::rowCacheBudget_data()
{
    QTest::addColumn<QList<int>>("reads"); // row indexes, pages of 10 rows, a budget of 3 pages
    QTest::addColumn<int>("loads");
    QTest::newRow("one page") << QList<int>{0, 5, 9, 3} << 1;
    QTest::newRow("budget filled") << QList<int>{0, 10, 20, 1, 11, 21} << 3;
    QTest::newRow("oldest evicted") << QList<int>{0, 10, 20, 30, 0} << 5;
    QTest::newRow("least recently used evicted") << QList<int>{0, 10, 20, 0, 30, 0, 20, 10} << 5;
    QTest::newRow("scan forward") << QList<int>{0, 10, 20, 30, 40, 50, 60, 70} << 8;
    QTest::newRow("past the end") << QList<int>{95, 99, 100, 150} << 3;
}

void TestItemModelsPaging::rowCacheBudget()
{
    QFETCH(QList<int>, reads);
    QFETCH(int, loads);
    RowCache<int> cache(10, 3);
    int loaded = 0;
    cache.setLoader([&](qint64 offset, int limit) -> std::optional<QList<int>> {
        ++loaded;
        QList<int> rows;
        for (qint64 row = offset; row < qMin<qint64>(offset + limit, 100); ++row)
            rows << int(row) * 2;
        return rows;
    });
    for (int row : std::as_const(reads)) {
        const int *value = cache.row(row);
        if (row < 100) {
            QVERIFY(value);
            QCOMPARE(*value, row * 2);
        } else {
            QVERIFY(!value);
        }
        QVERIFY(cache.pagesHeld() <= 3);
    }
    QCOMPARE(loaded, loads);
    cache.clear();
    QCOMPARE(cache.pagesHeld(), 0);
}

QTEST_GUILESS_MAIN(TestItemModelsPaging)
#include "tst_itemmodelspaging.moc"
