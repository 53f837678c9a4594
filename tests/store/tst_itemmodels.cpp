// The console's item models over the imported demo data, each watched by
// QAbstractItemModelTester while it is filtered, searched, sorted and refreshed. Paging
// through thousands of tickets: tst_itemmodelspaging.

#include "domain/outcome.h"
#include "itemmodels/escalationqueuemodel.h"
#include "itemmodels/ticketqueuemodel.h"
#include "itemmodels/transcriptmodel.h"
#include "storetestsupport.h"
#include "support/testmacros.h"

#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QSet>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace verity;
using namespace storetest;

namespace {

using Tester = QAbstractItemModelTester;
const QString incident = QStringLiteral("T-20260317-0412");

// What a column sorts by, as text that sorts the same way (NOCASE columns fold case).
QString sortKey(const QAbstractItemModel &model, int row, int column)
{
    switch (column) {
    case TicketQueueModel::TicketColumn:
    case TicketQueueModel::OrderColumn:
    case TicketQueueModel::SellerColumn:
        return cell(model, row, column).toString().toLower();
    case TicketQueueModel::WritesColumn:
        return QStringLiteral("%1").arg(cell(model, row, column).toInt(), 6, 10, QLatin1Char('0'));
    case TicketQueueModel::AttentionColumn:
        // Ascending runs from the worst state down.
        return QString::number(int(TicketState::DuplicateEffect)
                               - cell(model, row, column, TicketQueueModel::StateRole).toInt());
    case TicketQueueModel::OutcomeColumn: {
        const auto outcome =
                outcomeFromId(cell(model, row, column, TicketQueueModel::OutcomeIdRole).toString());
        return QString::number(outcome ? outcomeSeverity(*outcome) : 0);
    }
    default:
        return cell(model, row, TicketQueueModel::OpenedColumn).toString();
    }
}

} // namespace

class TestItemModels : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void ticketQueueFilterAndSearch_data();
    void ticketQueueFilterAndSearch();
    void ticketQueueSort_data();
    void ticketQueueSort();
    void ticketQueueIncidentRow();
    void ticketQueueRefreshSeesNewImport();
    void transcript();
    void escalationQueue();
    void escalationWaitingText_data();
    void escalationWaitingText();

private:
    QTemporaryDir m_dir;
    std::unique_ptr<SqliteStore> m_store;
    QList<TicketRow> m_all; // every demo ticket, read once, to check the models against
};

void TestItemModels::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_store = openStore(m_dir.filePath(QStringLiteral("demo.sqlite")));
    QVERIFY(m_store);
    const ImportReport report = importFile(*m_store, demoDataResource());
    QVERIFY2(report.clean(), qPrintable(describe(report)));
    m_all = *m_store->tickets({}, 0, 1000);
    QCOMPARE(m_all.size(), 46);
}

void TestItemModels::ticketQueueFilterAndSearch_data()
{
    QTest::addColumn<TicketFilter>("filter");
    QTest::addColumn<QString>("search");
    const std::pair<const char *, TicketFilter> filters[] = {{"all", TicketFilter::All},
                                                             {"attention", TicketFilter::NeedsAttention},
                                                             {"unknown", TicketFilter::Unknown},
                                                             {"repeat", TicketFilter::RepeatedIntent}};
    // Prefixes of tickets, orders and sellers in any case; wildcards that must match only themselves.
    const QStringList searches = QStringLiteral("|SU-884|ashcombe| ASHCOMBE |t-20260317|SU_8|%|SU-8%|\\|"
                                                "T-2026031_-0412|nobody|\"su-88421\"|\"SU-884\"|\"")
                                         .split(u'|');
    for (const auto &[name, filter] : filters) {
        for (const QString &search : searches)
            QTest::addRow("%s, \"%s\"", name, qPrintable(search)) << filter << search;
    }
}

void TestItemModels::ticketQueueFilterAndSearch()
{
    QFETCH(TicketFilter, filter);
    QFETCH(QString, search);
    TicketQueueModel model(*m_store);
    Tester tester(&model, Tester::FailureReportingMode::QtTest);
    QSignalSpy counts(&model, &TicketQueueModel::countChanged);
    model.setFilter(filter);
    model.setSearch(QStringLiteral("SU-884")); // a search before the one under test, to change from
    model.setSearch(search);
    QCOMPARE(model.query().filter, filter);

    // What should match, worked out here from plain rows: a case-insensitive prefix of the
    // ticket, the order or the seller name, with no wildcard characters.
    QSet<QString> expected;
    // In quotes, the whole value.
    QString prefix = search.trimmed();
    const bool whole = prefix.size() >= 2 && prefix.startsWith(u'"') && prefix.endsWith(u'"');
    if (whole)
        prefix = prefix.mid(1, prefix.size() - 2);
    const auto matches = [&](const QString &value) {
        return whole ? value.compare(prefix, Qt::CaseInsensitive) == 0
                     : value.startsWith(prefix, Qt::CaseInsensitive);
    };
    for (const TicketRow &row : std::as_const(m_all)) {
        const bool flagged = filter == TicketFilter::All
                || (filter == TicketFilter::NeedsAttention && row.needsAttention)
                || (filter == TicketFilter::Unknown && row.hasUnknown)
                || (filter == TicketFilter::RepeatedIntent && row.hasRepeatedIntent);
        const bool found =
                prefix.isEmpty() || matches(row.extId) || matches(row.orderId) || matches(row.sellerName);
        if (flagged && found)
            expected.insert(row.extId);
    }
    TicketQuery query;
    query.filter = filter;
    query.search = search;
    QCOMPARE(model.rowCount(), *m_store->countTickets(query));
    QCOMPARE(model.totalCount(), model.rowCount());
    QVERIFY(!counts.isEmpty());
    QCOMPARE(counts.last().at(0).toLongLong(), model.totalCount());
    const QStringList shown = ticketColumn(model);
    QCOMPARE(QSet<QString>(shown.begin(), shown.end()), expected);
    QCOMPARE(shown.size(), expected.size());
    if (search == u"SU-884" || search == u"\"su-88421\"" || search.contains(u"ashcombe", Qt::CaseInsensitive))
        QVERIFY(!expected.isEmpty() || filter != TicketFilter::All);

    model.setSearch(QString());
    QCOMPARE(model.rowCount(), *m_store->countTickets(TicketQuery{filter, {}, {}, true}));
    model.refresh();
    QCOMPARE(model.rowCount(), *m_store->countTickets(TicketQuery{filter, {}, {}, true}));
}

void TestItemModels::ticketQueueSort_data()
{
    QTest::addColumn<int>("column");
    QTest::addColumn<Qt::SortOrder>("order");
    for (int column = 0; column < TicketQueueModel::ColumnCount; ++column) {
        QTest::addRow("column %d ascending", column) << column << Qt::AscendingOrder;
        QTest::addRow("column %d descending", column) << column << Qt::DescendingOrder;
    }
}

void TestItemModels::ticketQueueSort()
{
    QFETCH(int, column);
    QFETCH(Qt::SortOrder, order);
    TicketQueueModel model(*m_store);
    Tester tester(&model, Tester::FailureReportingMode::QtTest);
    const QStringList before = ticketColumn(model);
    const QPersistentModelIndex held = model.index(3, TicketQueueModel::TicketColumn);
    model.sort(column, order == Qt::AscendingOrder ? Qt::DescendingOrder : Qt::AscendingOrder);
    model.sort(column, order);
    QCOMPARE(model.rowCount(), 46);
    QVERIFY(!held.isValid() || held.data() == model.data(held));
    const QStringList after = ticketColumn(model);
    QCOMPARE(QSet<QString>(after.begin(), after.end()), QSet<QString>(before.begin(), before.end()));
    for (int row = 1; row < model.rowCount(); ++row) {
        const QString previous = sortKey(model, row - 1, column);
        const QString current = sortKey(model, row, column);
        QVERIFY2(order == Qt::AscendingOrder ? previous <= current : previous >= current,
                 qPrintable(QStringLiteral("rows %1 and %2: %3 then %4")
                                    .arg(row - 1)
                                    .arg(row)
                                    .arg(previous, current)));
    }
    if (column == TicketQueueModel::AttentionColumn) {
        // Worst first (the model's ascending order for this column), every ticket that needs a
        // person ("Needs a look" included) comes before the ones whose Attention cell is blank.
        QStringList marks;
        for (int row = 0; row < model.rowCount(); ++row)
            marks << (cell(model, row, column).toString().isEmpty() ? QStringLiteral("-")
                                                                    : QStringLiteral("!"));
        QVERIFY(marks.contains(QStringLiteral("-")) && marks.contains(QStringLiteral("!")));
        const QString joined = marks.join(QString());
        QVERIFY2(order == Qt::AscendingOrder ? !joined.contains(QStringLiteral("-!"))
                                             : !joined.contains(QStringLiteral("!-")),
                 qPrintable(joined));
    }
    model.refresh();
    QCOMPARE(ticketColumn(model), after);
}

void TestItemModels::ticketQueueIncidentRow()
{
    TicketQueueModel model(*m_store);
    Tester tester(&model, Tester::FailureReportingMode::QtTest);
    const qint64 id = **m_store->ticketIdByExtId(incident);
    const std::optional<int> row = model.rowOfTicket(id);
    QVERIFY(row.has_value());
    QCOMPARE(cell(model, *row, TicketQueueModel::TicketColumn).toString(), incident);
    QCOMPARE(cell(model, *row, TicketQueueModel::OrderColumn).toString(), QStringLiteral("SU-88421"));
    QCOMPARE(cell(model, *row, TicketQueueModel::SellerColumn).toString(),
             QStringLiteral("Ashcombe Furniture"));
    QCOMPARE(cell(model, *row, TicketQueueModel::OpenedColumn).toString(),
             QStringLiteral("2026-03-17 14:28:51"));
    QCOMPARE(cell(model, *row, TicketQueueModel::WritesColumn).toInt(), 2);
    QCOMPARE(cell(model, *row, TicketQueueModel::OutcomeColumn).toString(),
             QStringLiteral("Unknown: do not retry"));
    QCOMPARE(cell(model, *row, 0, TicketQueueModel::OutcomeIdRole).toString(), QStringLiteral("unknown"));
    QCOMPARE(cell(model, *row, 0, TicketQueueModel::TicketIdRole).toLongLong(), id);
    QVERIFY(cell(model, *row, 0, TicketQueueModel::NeedsAttentionRole).toBool());
    QVERIFY(cell(model, *row, 0, TicketQueueModel::RepeatedIntentRole).toBool());
    QVERIFY(!cell(model, *row, TicketQueueModel::AttentionColumn).toString().isEmpty());
}

void TestItemModels::ticketQueueRefreshSeesNewImport()
{
    std::unique_ptr<SqliteStore> store = openStore(m_dir.filePath(QStringLiteral("refresh.sqlite")));
    QVERIFY(store);
    QVERIFY(importFile(*store, demoDataResource()).clean());
    TicketQueueModel model(*store);
    Tester tester(&model, Tester::FailureReportingMode::QtTest);
    model.setFilter(TicketFilter::Unknown);
    const int unknownBefore = model.rowCount();
    const QString extra = m_dir.filePath(QStringLiteral("extra.jsonl"));
    QVERIFY(writeLines(extra,
                       {ticketOpened(QStringLiteral("T-EXTRA")),
                        refundCall(QStringLiteral("T-EXTRA"), QStringLiteral("2026-03-17T10:00:01Z"),
                                   QStringLiteral("c1"))}));
    QVERIFY(importFile(*store, extra).clean());
    QCOMPARE(model.rowCount(), unknownBefore); // nothing moves until asked
    model.refresh();
    QCOMPARE(model.rowCount(), unknownBefore + 1);
    model.setFilter(TicketFilter::All);
    QCOMPARE(model.rowCount(), 47);
}

void TestItemModels::transcript()
{
    TranscriptModel model(*m_store);
    Tester tester(&model, Tester::FailureReportingMode::QtTest);
    const qint64 id = **m_store->ticketIdByExtId(incident);
    QVERIFY(model.setTicket(id));
    QCOMPARE(model.ticketId(), id);
    // Lines 22-36 of the demo file: 7 messages and replies, 4 calls with their results folded in.
    QCOMPARE(model.rowCount(), 11);
    for (int row = 1; row < model.rowCount(); ++row)
        QVERIFY(cell(model, row - 1, 0, TranscriptModel::TimeRole).toLongLong()
                <= cell(model, row, 0, TranscriptModel::TimeRole).toLongLong());
    QCOMPARE(cell(model, 0, 0, TranscriptModel::AuthorRole).toString(), QStringLiteral("customer"));

    const std::optional<int> c3 = model.rowOfCall(QStringLiteral("c3"));
    const std::optional<int> c4 = model.rowOfCall(QStringLiteral("c4"));
    QVERIFY(c3 && c4 && *c3 < *c4);
    QCOMPARE(cell(model, *c3, 0, TranscriptModel::OutcomeIdRole).toString(), QStringLiteral("unknown"));
    QCOMPARE(cell(model, *c4, 0, TranscriptModel::OutcomeIdRole).toString(), QStringLiteral("performed"));
    QVERIFY(cell(model, *c3, 0, TranscriptModel::RepeatedRole).toBool());
    QVERIFY(cell(model, *c4, 0, TranscriptModel::RepeatedRole).toBool());
    QCOMPARE(cell(model, *c3, 0, TranscriptModel::RepeatedWithRole).toStringList(),
             QStringList{QStringLiteral("c4")});
    QCOMPARE(cell(model, *c4, 0, TranscriptModel::RepeatedWithRole).toStringList(),
             QStringList{QStringLiteral("c3")});
    QCOMPARE(cell(model, *c3, 0, TranscriptModel::IntentKeyRole),
             cell(model, *c4, 0, TranscriptModel::IntentKeyRole));
    const QVariant escalation = cell(model, *c3, 0, TranscriptModel::EscalationIdRole);
    QVERIFY(escalation.isValid());
    QVERIFY(!cell(model, *c4, 0, TranscriptModel::EscalationIdRole).isValid());
    const QList<EscalationRow> open = *m_store->openEscalations(0, 100);
    const auto match = std::find_if(open.begin(), open.end(), [&](const EscalationRow &row) {
        return row.id == escalation.toLongLong();
    });
    QVERIFY(match != open.end());
    QCOMPARE(match->callExtId, QStringLiteral("c3"));
    QCOMPARE(match->ticketExtId, incident);
    const std::optional<int> read = model.rowOfCall(QStringLiteral("c1"));
    QVERIFY(read);
    QCOMPARE(cell(model, *read, 0, TranscriptModel::ToolClassRole).toString(), QStringLiteral("read"));
    QVERIFY(!cell(model, *read, 0, TranscriptModel::OutcomeIdRole).isValid());

    QSignalSpy errors(&model, &TranscriptModel::errorOccurred);
    QVERIFY(!model.setTicket(-1));
    QCOMPARE(errors.size(), 1);
    QCOMPARE(model.rowCount(), 0);
    QVERIFY(model.setTicket(id));
    model.clear();
    QCOMPARE(model.rowCount(), 0);
}

void TestItemModels::escalationQueue()
{
    EscalationQueueModel model(*m_store);
    Tester tester(&model, Tester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 15);
    QCOMPARE(model.totalCount(), *m_store->countOpenEscalations());
    QSet<qint64> ids;
    int incidentRow = -1;
    for (int row = 0; row < model.rowCount(); ++row) {
        ids.insert(cell(model, row, 0, EscalationQueueModel::EscalationIdRole).toLongLong());
        if (cell(model, row, EscalationQueueModel::TicketColumn).toString() == incident)
            incidentRow = row;
        if (row > 0) // oldest first
            QVERIFY(cell(model, row - 1, EscalationQueueModel::SinceColumn).toString()
                    <= cell(model, row, EscalationQueueModel::SinceColumn).toString());
    }
    QCOMPARE(ids.size(), 15);
    QVERIFY(incidentRow >= 0);
    QCOMPARE(cell(model, incidentRow, 0, EscalationQueueModel::CallIdRole).toString(), QStringLiteral("c3"));
    QCOMPARE(cell(model, incidentRow, EscalationQueueModel::ToolColumn).toString(),
             QStringLiteral("issue_refund"));
    QCOMPARE(cell(model, incidentRow, EscalationQueueModel::AmountColumn).toString(),
             QStringLiteral("$118.00"));
    QCOMPARE(cell(model, incidentRow, 0, EscalationQueueModel::TicketIdRole).toLongLong(),
             **m_store->ticketIdByExtId(incident));
    // The number the command line takes, the call and the order tell two alike rows apart.
    const qint64 number = cell(model, incidentRow, 0, EscalationQueueModel::EscalationIdRole).toLongLong();
    QCOMPARE(cell(model, incidentRow, EscalationQueueModel::NumberColumn).toLongLong(), number);
    QCOMPARE(cell(model, incidentRow, EscalationQueueModel::CallColumn).toString(), QStringLiteral("c3"));
    QCOMPARE(cell(model, incidentRow, EscalationQueueModel::OrderColumn).toString(),
             QStringLiteral("SU-88421"));
    // A claim reads by its holder's name, and as "you" in the holder's own console.
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    QVERIFY_OK(m_store->claimEscalation(number, QStringLiteral("ana"), now, now + 15 * 60 * 1000));
    model.refresh();
    QVERIFY2(
            cell(model, incidentRow, EscalationQueueModel::ClaimColumn).toString().startsWith(u"ana, until "),
            qPrintable(cell(model, incidentRow, EscalationQueueModel::ClaimColumn).toString()));
    model.setOperatorName([] { return QStringLiteral("ana"); });
    QVERIFY2(
            cell(model, incidentRow, EscalationQueueModel::ClaimColumn).toString().startsWith(u"you, until "),
            qPrintable(cell(model, incidentRow, EscalationQueueModel::ClaimColumn).toString()));
    QVERIFY_OK(m_store->releaseEscalationClaim(number, QStringLiteral("ana")));
    QSignalSpy counts(&model, &EscalationQueueModel::countChanged);
    model.refresh();
    QCOMPARE(model.rowCount(), 15);
    QCOMPARE(counts.size(), 1);
}

void TestItemModels::escalationWaitingText_data()
{
    QTest::addColumn<qint64>("waitMs");
    QTest::addColumn<QString>("text");
    QTest::newRow("seconds") << qint64(45'900) << QStringLiteral("45 s");
    QTest::newRow("minutes") << qint64(12 * 60'000 + 5'000) << QStringLiteral("12 min");
    QTest::newRow("hours") << qint64((3 * 60 + 5) * 60'000) << QStringLiteral("3 h 05 min");
    QTest::newRow("days") << qint64((4 * 24 + 2) * 3'600'000LL + 59 * 60'000) << QStringLiteral("4 d 2 h");
    QTest::newRow("clock behind") << qint64(-5'000) << QStringLiteral("0 s");
}

void TestItemModels::escalationWaitingText()
{
    QFETCH(qint64, waitMs);
    QFETCH(QString, text);
    EscalationQueueModel model(*m_store);
    Tester tester(&model, Tester::FailureReportingMode::QtTest);
    const QList<EscalationRow> oldest = *m_store->openEscalations(0, 2);
    QCOMPARE(oldest.size(), 2);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.setClock([&] { return oldest.first().openedAt + waitMs; });
    QCOMPARE(changed.size(), 1);
    QCOMPARE(changed.first().at(0).toModelIndex(), model.index(0, EscalationQueueModel::WaitingColumn));
    QCOMPARE(changed.first().at(1).toModelIndex(), model.index(14, EscalationQueueModel::WaitingColumn));
    QCOMPARE(cell(model, 0, EscalationQueueModel::WaitingColumn).toString(), text);
    QCOMPARE(cell(model, 0, EscalationQueueModel::SinceColumn).toString(),
             QDateTime::fromMSecsSinceEpoch(oldest.first().openedAt, Qt::UTC)
                     .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")));
    QCOMPARE(cell(model, 1, EscalationQueueModel::TicketColumn).toString(), oldest.at(1).ticketExtId);
}

QTEST_GUILESS_MAIN(TestItemModels)
#include "tst_itemmodels.moc"
