// The audit log's item model over a real database, watched by QAbstractItemModelTester while
// it pages through more entries than one page holds, refreshes, and finds rows by seq.

#include "audittestsupport.h"
#include "domain/displaytext.h"
#include "itemmodels/auditlogmodel.h"
#include "support/teststore.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace verity;
using namespace audittest;

class TestAuditLogModel : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void headers();
    void cells();
    void everyRowThroughThePages();
    void refreshSeesNewEntries();
    void rowOfSeq();
    void emptyLog();

private:
    QVariant cell(int row, int column, int role = Qt::DisplayRole) const
    {
        return m_model->data(m_model->index(row, column), role);
    }

    QTemporaryDir m_dir;
    QString m_path;
    std::unique_ptr<Store> m_store;
    std::unique_ptr<AuditLogModel> m_model;
    std::unique_ptr<QAbstractItemModelTester> m_tester;
};

// 600 entries: more than two of the model's 256-row pages.
void TestAuditLogModel::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_path = m_dir.filePath(QStringLiteral("model.sqlite"));
    m_store = test::openTestStore(m_path);
    QVERIFY(m_store);
    QCOMPARE(appendEntries(*m_store, 600, true), QString());
    m_model = std::make_unique<AuditLogModel>(*m_store);
    m_tester = std::make_unique<QAbstractItemModelTester>(
            m_model.get(), QAbstractItemModelTester::FailureReportingMode::QtTest);
}

void TestAuditLogModel::headers()
{
    QCOMPARE(m_model->columnCount(), int(AuditLogModel::ColumnCount));
    QStringList headers;
    for (int column = 0; column < m_model->columnCount(); ++column)
        headers << m_model->headerData(column, Qt::Horizontal).toString();
    QCOMPARE(headers,
             (QStringList{QStringLiteral("#"), QStringLiteral("Time"), QStringLiteral("Operator"),
                          QStringLiteral("Action"), QStringLiteral("Escalation"), QStringLiteral("Detail"),
                          QStringLiteral("Evidence")}));
}

void TestAuditLogModel::cells()
{
    QCOMPARE(m_model->rowCount(), 600);
    QCOMPARE(m_model->totalCount(), qint64(600));

    // Entry 1 has an escalation and evidence; entry 2 neither.
    QCOMPARE(cell(0, AuditLogModel::SeqColumn).toLongLong(), qint64(1));
    QCOMPARE(cell(0, AuditLogModel::TimeColumn).toString(), formatTime(firstEntryAt + 60000));
    QCOMPARE(cell(0, AuditLogModel::OperatorColumn).toString(), operatorOf(1));
    QCOMPARE(cell(0, AuditLogModel::ActionColumn).toString(), actionOf(1));
    QCOMPARE(cell(0, AuditLogModel::EscalationColumn).toLongLong(), qint64(101));
    QCOMPARE(cell(0, AuditLogModel::DetailColumn).toString(), detailOf(1));
    const QString evidence = evidenceOf(1);
    QCOMPARE(cell(0, AuditLogModel::EvidenceColumn).toString(), evidence.left(12) + QStringLiteral("…"));
    QVERIFY(cell(0, AuditLogModel::EvidenceColumn, Qt::ToolTipRole).toString().contains(evidence));
    QCOMPARE(cell(0, 0, AuditLogModel::EvidenceHashRole).toString(), evidence);
    QCOMPARE(cell(0, 0, AuditLogModel::EscalationIdRole).toLongLong(), qint64(101));
    QCOMPARE(cell(0, 0, AuditLogModel::SeqRole).toLongLong(), qint64(1));
    const QString hash = cell(0, 0, AuditLogModel::EntryHashRole).toString();
    QCOMPARE(hash.size(), 64);
    QVERIFY(cell(0, AuditLogModel::SeqColumn, Qt::ToolTipRole).toString().contains(hash));

    QCOMPARE(cell(1, AuditLogModel::EscalationColumn).toString(), QStringLiteral("—"));
    QVERIFY(cell(1, 0, AuditLogModel::EscalationIdRole).isNull());
    QCOMPARE(cell(1, AuditLogModel::EvidenceColumn).toString(), QStringLiteral("—"));
    QVERIFY(cell(1, AuditLogModel::EvidenceColumn, Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("No evidence")));

    QCOMPARE(shortHash(QStringLiteral("abc")), QStringLiteral("abc"));
}

void TestAuditLogModel::everyRowThroughThePages()
{
    // Backwards, so that every page is loaded again after the cache moved on.
    for (int row = m_model->rowCount() - 1; row >= 0; --row)
        QCOMPARE(cell(row, AuditLogModel::SeqColumn).toLongLong(), qint64(row + 1));
    QVERIFY(!cell(600, 0).isValid());
}

void TestAuditLogModel::refreshSeesNewEntries()
{
    QSignalSpy counts(m_model.get(), &AuditLogModel::countChanged);
    QCOMPARE(appendEntries(*m_store, 5, false, 600), QString());
    QCOMPARE(m_model->rowCount(), 600); // until refreshed
    m_model->refresh();
    QCOMPARE(m_model->rowCount(), 605);
    QCOMPARE(counts.size(), 1);
    QCOMPARE(counts.first().first().toLongLong(), qint64(605));
    QCOMPARE(cell(604, AuditLogModel::DetailColumn).toString(), detailOf(605));
}

void TestAuditLogModel::rowOfSeq()
{
    m_model->refresh();
    const int count = m_model->rowCount();
    QCOMPARE(m_model->rowOfSeq(1), 0);
    QCOMPARE(m_model->rowOfSeq(300), 299);
    QCOMPARE(m_model->rowOfSeq(count), count - 1);
    QCOMPARE(m_model->rowOfSeq(0), -1);
    QCOMPARE(m_model->rowOfSeq(count + 1), -1);

    // With a gap, rows and seqs part ways.
    RawSqlite raw(m_path);
    QCOMPARE(raw.exec(QStringLiteral("DELETE FROM audit_log WHERE seq = 3")), QString());
    m_model->refresh();
    QCOMPARE(m_model->rowCount(), count - 1);
    QCOMPARE(m_model->rowOfSeq(3), -1);
    QCOMPARE(m_model->rowOfSeq(4), 2);
    QCOMPARE(m_model->rowOfSeq(count), count - 2);
}

void TestAuditLogModel::emptyLog()
{
    auto store = test::openTestStore(m_dir.filePath(QStringLiteral("empty.sqlite")));
    QVERIFY(store);
    AuditLogModel model(*store);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.rowOfSeq(1), -1);
    model.refresh();
    QCOMPARE(model.rowCount(), 0);
}

QTEST_GUILESS_MAIN(TestAuditLogModel)
#include "tst_auditlogmodel.moc"
