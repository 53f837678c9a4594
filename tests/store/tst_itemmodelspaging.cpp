// The ticket queue pages through thousands of tickets: every row readable, in any order,
// with pages evicted and loaded again; and the page cache keeps to its budget, forgetting
// the least recently used page first. Pages entered at an anchor hold exactly the rows an
// OFFSET would, in every order; and the anchored cache reads each page from the nearest
// known row, so that after its walk no page is more than a stride from where it starts.

#include "itemmodels/anchoredrowcache.h"
#include "itemmodels/rowcache.h"
#include "itemmodels/ticketqueuemodel.h"
#include "storetestsupport.h"
#include "support/testmacros.h"

#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

using namespace verity;
using namespace storetest;

namespace {

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
    void anchoredPagesMatchOffsets_data();
    void anchoredPagesMatchOffsets();
    void anchorsRefusedWhereNullsSort();
    void searchedPagesAgreeWithTheQuery_data();
    void searchedPagesAgreeWithTheQuery();
    void anchoredCacheReadsFromTheNearestRow_data();
    void anchoredCacheReadsFromTheNearestRow();

private:
    SqliteStore &pagingStore();

    QTemporaryDir m_dir;
    std::unique_ptr<SqliteStore> m_store;
    std::unique_ptr<SqliteStore> m_searchStore;
};

// 3,000 tickets whose opening times repeat (so ties fall to the id) and whose ids mix cases
// (so the NOCASE order of ticket ids is tested).
SqliteStore &TestItemModelsPaging::pagingStore()
{
    if (m_store)
        return *m_store;
    QList<QByteArray> lines;
    for (int i = 0; i < 3000; ++i) {
        const QString ticket = (i % 3 == 0 ? QStringLiteral("p-%1") : QStringLiteral("P-%1"))
                                       .arg(i, 5, 10, QLatin1Char('0'));
        lines << ticketOpened(ticket,
                              QStringLiteral("2026-03-%1T10:00:%2Z")
                                      .arg(1 + i % 28, 2, 10, QLatin1Char('0'))
                                      .arg(i % 7, 2, 10, QLatin1Char('0')),
                              QStringLiteral("SO-%1").arg(i), QStringLiteral("Seller %1").arg(i % 7));
    }
    const QString file = m_dir.filePath(QStringLiteral("anchors.jsonl"));
    if (!writeLines(file, lines))
        qFatal("cannot write %s", qPrintable(file));
    m_store = openStore(m_dir.filePath(QStringLiteral("anchors.sqlite")));
    if (!m_store || !importFile(*m_store, file).clean())
        qFatal("cannot import the paging tickets");
    return *m_store;
}

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
    // The idle walk waits for the first page a view reads, so that page comes first on opening.
    QCoreApplication::processEvents();
    QVERIFY(!model.anchorsWalked());
    QVERIFY(ticketAt(model, 0).startsWith(u"P-"));
    QTRY_VERIFY(model.anchorsWalked());
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

void TestItemModelsPaging::anchoredPagesMatchOffsets_data()
{
    QTest::addColumn<int>("sortKey");
    QTest::addColumn<bool>("descending");
    QTest::addColumn<QString>("search");
    const QList<std::pair<const char *, TicketSortKey>> keys{{"opened", TicketSortKey::Opened},
                                                             {"ticket", TicketSortKey::Ticket},
                                                             {"writes", TicketSortKey::Writes},
                                                             {"attention", TicketSortKey::Attention},
                                                             {"worst outcome", TicketSortKey::WorstOutcome}};
    for (const auto &[name, key] : keys) {
        QTest::addRow("%s ascending", name) << int(key) << false << QString();
        QTest::addRow("%s descending", name) << int(key) << true << QString();
        QTest::addRow("%s descending, searched", name) << int(key) << true << QStringLiteral("p-01");
    }
}

void TestItemModelsPaging::anchoredPagesMatchOffsets()
{
    QFETCH(int, sortKey);
    QFETCH(bool, descending);
    QFETCH(QString, search);
    SqliteStore &store = pagingStore();
    TicketQuery query;
    query.sortKey = TicketSortKey(sortKey);
    query.descending = descending;
    query.search = search;
    QVERIFY(anchorsOrder(query.sortKey));
    const Expected<QList<TicketRow>> all = store.tickets(query, 0, 5000);
    QVERIFY_OK(all);
    const auto ids = [](const QList<TicketRow> &rows) {
        QStringList out;
        for (const TicketRow &row : rows)
            out << row.extId;
        return out;
    };
    const QStringList expected = ids(*all);
    QVERIFY(expected.size() > 100);
    const auto anchorAt = [&](qsizetype index) {
        return TicketAnchor{ticketSortValue(all->at(index), query.sortKey), all->at(index).id};
    };
    for (qsizetype at :
         {qsizetype(0), qsizetype(1), expected.size() / 2, expected.size() - 2, expected.size() - 1}) {
        for (qint64 skip : {0, 3, 40}) {
            // Forwards: the rows after the anchor, `skip` further on.
            Expected<QList<TicketRow>> after =
                    store.ticketPage(query, TicketPage{anchorAt(at), false, skip, 25});
            QVERIFY_OK(after);
            QCOMPARE(ids(*after), expected.mid(at + 1 + skip, 25));
            // Backwards: the rows before it, still in the queue's order.
            Expected<QList<TicketRow>> before =
                    store.ticketPage(query, TicketPage{anchorAt(at), true, skip, 25});
            QVERIFY_OK(before);
            const qsizetype end = qMax<qsizetype>(0, at - skip);
            const qsizetype start = qMax<qsizetype>(0, end - 25);
            QCOMPARE(ids(*before), expected.mid(start, end - start));
        }
    }
    // From either end, without an anchor.
    Expected<QList<TicketRow>> last = store.ticketPage(query, TicketPage{std::nullopt, true, 0, 10});
    QVERIFY_OK(last);
    QCOMPARE(ids(*last), expected.mid(expected.size() - 10));
}

void TestItemModelsPaging::searchedPagesAgreeWithTheQuery_data()
{
    // A searched page is read by walking the time order when matches are many, through the
    // searched columns' indexes when they are few, and by the indexes again when a walk's
    // window comes up short. Whichever way, the rows are the query's.
    QTest::addColumn<QString>("search");
    QTest::addColumn<int>("filter");
    QTest::newRow("many, spread through time: walked") << QStringLiteral("shared") << int(TicketFilter::All);
    QTest::newRow("some: indexes") << QStringLiteral("seller 1") << int(TicketFilter::All);
    QTest::newRow("half, mostly long ago: the window falls short")
            << QStringLiteral("oldfield") << int(TicketFilter::All);
    QTest::newRow("one order: indexes") << QStringLiteral("so-4321") << int(TicketFilter::All);
    QTest::newRow("none") << QStringLiteral("nobody") << int(TicketFilter::All);
    QTest::newRow("filtered, few: intersected indexes")
            << QStringLiteral("seller 1") << int(TicketFilter::NeedsAttention);
    QTest::newRow("filtered, many: walked along the filter")
            << QStringLiteral("oldfield") << int(TicketFilter::NeedsAttention);
}

void TestItemModelsPaging::searchedPagesAgreeWithTheQuery()
{
    QFETCH(QString, search);
    QFETCH(int, filter);
    // 6,000 tickets a minute apart, enough that a walk's window ends inside the queue. Half of
    // them, the oldest, are one seller's, who also has the ten newest.
    std::unique_ptr<SqliteStore> &store = m_searchStore;
    if (!store) {
        QList<QByteArray> lines;
        const QDateTime start(QDate(2026, 3, 1), QTime(0, 0), Qt::UTC);
        for (int i = 0; i < 6000; ++i) {
            const QString seller = (i < 3000 || i >= 5990) ? QStringLiteral("Oldfield Crafts")
                    : i % 3 == 0                           ? QStringLiteral("Shared Goods")
                                                           : QStringLiteral("Seller %1").arg(i % 50);
            lines << ticketOpened(QStringLiteral("S-%1").arg(i, 5, 10, QLatin1Char('0')),
                                  start.addSecs(60 * i).toString(Qt::ISODate), QStringLiteral("SO-%1").arg(i),
                                  seller);
        }
        const QString file = m_dir.filePath(QStringLiteral("search.jsonl"));
        QVERIFY(writeLines(file, lines));
        store = openStore(m_dir.filePath(QStringLiteral("search.sqlite")));
        QVERIFY(store);
        QVERIFY(importFile(*store, file).clean());
        // Some tickets need attention, so the filtered walk has rows to pass over.
        QCOMPARE(RawSqlite(store->location())
                         .exec(QStringLiteral("UPDATE tickets SET needs_attention = 1 WHERE id % 3 = 0")),
                 QString());
    }
    const QString attention = filter == int(TicketFilter::NeedsAttention)
            ? QStringLiteral(" AND needs_attention = 1")
            : QString();
    const QString pattern = search + u'%';
    RawSqlite raw(store->location());
    const QStringList expected = rows(
            raw.db(),
            QStringLiteral(
                    "SELECT ext_id FROM tickets NOT INDEXED WHERE (ext_id LIKE '%1' OR order_id LIKE '%1' "
                    "OR seller_name LIKE '%1')%2 ORDER BY opened_at DESC, id DESC")
                    .arg(pattern, attention));
    const QList<qint64> ids = [&] {
        QList<qint64> out;
        for (const QString &id :
             rows(raw.db(),
                  QStringLiteral("SELECT id FROM tickets NOT INDEXED WHERE (ext_id LIKE '%1' OR "
                                 "order_id LIKE '%1' OR seller_name LIKE '%1')%2 ORDER BY "
                                 "opened_at DESC, id DESC")
                          .arg(pattern, attention)))
            out << id.toLongLong();
        return out;
    }();
    const auto openedOf = [&](qsizetype index) {
        return scalar(raw.db(),
                      QStringLiteral("SELECT opened_at FROM tickets WHERE id = %1").arg(ids.at(index)));
    };
    const auto extIds = [](const QList<TicketRow> &page) {
        QStringList out;
        for (const TicketRow &row : page)
            out << row.extId;
        return out;
    };
    TicketQuery query;
    query.filter = TicketFilter(filter);
    query.search = search;
    TicketQueueModel model(*store);
    model.setFilter(TicketFilter(filter));
    model.setSearch(search);
    QCOMPARE(model.rowCount(), int(expected.size()));
    QCOMPARE(ticketColumn(model), expected);
    // A searched queue places no anchors while idle, however it is sorted: there they save nothing.
    QVERIFY(model.anchorsWalked());
    model.sort(TicketQueueModel::TicketColumn, Qt::AscendingOrder);
    QVERIFY(model.anchorsWalked());
    for (const qint64 skip : {0, 7, 300}) {
        Expected<QList<TicketRow>> first =
                store->ticketPage(query, TicketPage{std::nullopt, false, skip, 25});
        QVERIFY_OK(first);
        QCOMPARE(extIds(*first), expected.mid(skip, 25));
        Expected<QList<TicketRow>> last = store->ticketPage(query, TicketPage{std::nullopt, true, skip, 25});
        QVERIFY_OK(last);
        const qsizetype end = qMax<qsizetype>(0, expected.size() - skip);
        QCOMPARE(extIds(*last),
                 expected.mid(qMax<qsizetype>(0, end - 25), end - qMax<qsizetype>(0, end - 25)));
        for (const qsizetype at : {qsizetype(0), expected.size() / 2, expected.size() - 1}) {
            if (at < 0 || at >= expected.size())
                continue;
            const TicketAnchor anchor{openedOf(at), ids.at(at)};
            Expected<QList<TicketRow>> after = store->ticketPage(query, TicketPage{anchor, false, skip, 25});
            QVERIFY_OK(after);
            QCOMPARE(extIds(*after), expected.mid(at + 1 + skip, 25));
            Expected<QList<TicketRow>> before = store->ticketPage(query, TicketPage{anchor, true, skip, 25});
            QVERIFY_OK(before);
            const qsizetype stop = qMax<qsizetype>(0, at - skip);
            QCOMPARE(extIds(*before),
                     expected.mid(qMax<qsizetype>(0, stop - 25), stop - qMax<qsizetype>(0, stop - 25)));
        }
    }
}

void TestItemModelsPaging::anchorsRefusedWhereNullsSort()
{
    SqliteStore &store = pagingStore();
    for (TicketSortKey key : {TicketSortKey::Order, TicketSortKey::Seller}) {
        QVERIFY(!anchorsOrder(key));
        TicketQuery query;
        query.sortKey = key;
        const Expected<QList<TicketRow>> page =
                store.ticketPage(query, TicketPage{TicketAnchor{QStringLiteral("SO-1"), 1}, false, 0, 10});
        QVERIFY(!page);
        QVERIFY2(page.message().contains(QStringLiteral("cannot be entered")), qPrintable(page.message()));
        // Entered by position instead, the model reads those orders whole.
        TicketQueueModel model(store);
        model.sort(key == TicketSortKey::Order ? TicketQueueModel::OrderColumn
                                               : TicketQueueModel::SellerColumn,
                   Qt::DescendingOrder);
        const Expected<QList<TicketRow>> offsets = store.tickets(model.query(), 0, 5000);
        QVERIFY_OK(offsets);
        for (int row : {2999, 1500, 0, 1501, 2998})
            QCOMPARE(ticketAt(model, row), offsets->at(row).extId);
        // Within one order or seller, newest first: the order its index holds.
        const QString column =
                key == TicketSortKey::Order ? QStringLiteral("order_id") : QStringLiteral("seller_name");
        QCOMPARE(ticketColumn(model),
                 rows(RawSqlite(store.location()).db(),
                      QStringLiteral("SELECT ext_id FROM tickets NOT INDEXED ORDER BY %1 DESC, "
                                     "opened_at DESC, id DESC")
                              .arg(column)));
    }
}

void TestItemModelsPaging::anchoredCacheReadsFromTheNearestRow_data()
{
    QTest::addColumn<bool>("walked");
    QTest::addColumn<qint64>("row");
    QTest::addColumn<bool>("backwards");
    QTest::addColumn<qint64>("skip");
    QTest::addColumn<bool>("anchored");
    // 100,000 rows, pages of 100, anchors at rows 999, 1999, ... 99999 once walked.
    QTest::newRow("first page") << false << qint64(5) << false << qint64(0) << false;
    QTest::newRow("last page, from the end") << false << qint64(99999) << true << qint64(0) << false;
    QTest::newRow("near the end, counted from it") << false << qint64(90050) << true << qint64(9900) << false;
    QTest::newRow("before the middle, unwalked: from the start")
            << false << qint64(40000) << false << qint64(40000) << false;
    QTest::newRow("middle, unwalked: from the nearer end")
            << false << qint64(50000) << true << qint64(49900) << false;
    QTest::newRow("middle, walked: at its anchor") << true << qint64(50000) << false << qint64(0) << true;
    QTest::newRow("between anchors, walked") << true << qint64(50450) << false << qint64(400) << true;
    QTest::newRow("just before an anchor, walked") << true << qint64(51850) << true << qint64(99) << true;
}

void TestItemModelsPaging::anchoredCacheReadsFromTheNearestRow()
{
    QFETCH(bool, walked);
    QFETCH(qint64, row);
    QFETCH(bool, backwards);
    QFETCH(qint64, skip);
    QFETCH(bool, anchored);
    using Cache = AnchoredRowCache<qint64, qint64>;
    Cache cache(100, 4, 1000);
    constexpr qint64 rows = 100000;
    QList<Cache::Request> requests;
    // The rows are 0, 2, 4, ...: an anchor is a row's value, the order is the values'.
    cache.setLoader([&](const Cache::Request &request) -> std::optional<QList<qint64>> {
        requests << request;
        qint64 first = 0;
        if (!request.backwards)
            first = (request.anchor ? *request.anchor / 2 + 1 : 0) + request.skip;
        else
            first = (request.anchor ? *request.anchor / 2 : rows) - request.skip - request.limit;
        QList<qint64> page;
        for (qint64 i = qMax<qint64>(0, first); i < qMin(rows, first + request.limit); ++i)
            page << i * 2;
        return page;
    });
    cache.setAnchorOf([](const qint64 &value) { return std::optional<qint64>(value); });
    cache.reset(rows);
    if (walked) {
        int slices = 0;
        while (cache.walk(1000))
            QVERIFY(++slices < 100);
        QCOMPARE(cache.anchorsHeld(), 100);
        for (const Cache::Request &request : std::as_const(requests))
            QVERIFY(request.skip <= 999); // each step of the walk starts at the one before
        requests.clear();
    }
    const qint64 *value = cache.row(row);
    QVERIFY(value);
    QCOMPARE(*value, row * 2);
    QCOMPARE(requests.size(), 1);
    QCOMPARE(requests.first().backwards, backwards);
    QCOMPARE(requests.first().skip, skip);
    QCOMPARE(requests.first().anchor.has_value(), anchored);
    // Every row of the neighbourhood, read in any order, is the right one.
    for (qint64 i = qMax<qint64>(0, row - 450); i < qMin(rows, row + 450); i += 37)
        QCOMPARE(*cache.row(i), i * 2);
    QVERIFY(cache.pagesHeld() <= 4);
}

QTEST_GUILESS_MAIN(TestItemModelsPaging)
#include "tst_itemmodelspaging.moc"
