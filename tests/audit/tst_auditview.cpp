// The audit view as a person uses it: press "Verify chain", read that the chain is intact;
// someone edits the database file; press it again and read which entry broke it, and why.

#include "audittestsupport.h"
#include "auditview.h"
#include "itemmodels/auditlogmodel.h"
#include "support/teststore.h"

#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace verity;
using namespace audittest;

class TestAuditView : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void listsTheEntries();
    void verifyChainSaysIntactThenNamesTheEditedEntry();
    void verifyChainNamesTheEntryAfterADeletion();
    void verifyChainSeesEntriesAddedSinceOpening();
    void unreadableLogIsSaidSo();

private:
    QString clickVerify();

    QTemporaryDir m_dir;
    QString m_path;
    int m_databases = 0;
    std::unique_ptr<Store> m_store;
    std::unique_ptr<AuditLogModel> m_model;
    std::unique_ptr<AuditView> m_view;
    QPushButton *m_button = nullptr;
    QLabel *m_status = nullptr;
    QTableView *m_table = nullptr;
};

void TestAuditView::initTestCase()
{
    QVERIFY(m_dir.isValid());
}

void TestAuditView::init()
{
    m_path = m_dir.filePath(QStringLiteral("view-%1.sqlite").arg(++m_databases));
    m_store = test::openTestStore(m_path);
    QVERIFY(m_store);
    QCOMPARE(appendEntries(*m_store, 5), QString());
    m_model = std::make_unique<AuditLogModel>(*m_store);
    m_view = std::make_unique<AuditView>(*m_store, *m_model);
    m_view->resize(900, 400);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
    m_button = m_view->findChild<QPushButton *>(QStringLiteral("verifyChainButton"));
    m_status = m_view->findChild<QLabel *>(QStringLiteral("chainStatus"));
    m_table = m_view->findChild<QTableView *>(QStringLiteral("auditTable"));
    QVERIFY(m_button && m_status && m_table);
}

void TestAuditView::cleanup()
{
    m_view.reset();
    m_model.reset();
    m_store.reset();
}

QString TestAuditView::clickVerify()
{
    QTest::mouseClick(m_button, Qt::LeftButton);
    return m_status->text();
}

void TestAuditView::listsTheEntries()
{
    QCOMPARE(m_table->model()->rowCount(), 5);
    QCOMPARE(m_table->model()->index(2, AuditLogModel::DetailColumn).data().toString(), detailOf(3));
    QVERIFY(m_status->text().contains(QStringLiteral("Not verified yet")));
    QCOMPARE(m_status->textFormat(), Qt::PlainText);
}

void TestAuditView::verifyChainSaysIntactThenNamesTheEditedEntry()
{
    QSignalSpy checked(m_view.get(), &AuditView::chainChecked);
    const QString intact = clickVerify();
    QVERIFY2(intact.contains(QStringLiteral("Audit chain intact: 5 entries checked")), qPrintable(intact));
    QCOMPARE(checked.size(), 1);
    QCOMPARE(checked.first().first().toBool(), true);

    {
        RawSqlite raw(m_path);
        QCOMPARE(raw.exec(QStringLiteral("UPDATE audit_log SET operator = 'mallory' WHERE seq = 3")),
                 QString());
    }
    const QString broken = clickVerify();
    QVERIFY2(broken.contains(QStringLiteral("Audit chain BROKEN at entry 3")), qPrintable(broken));
    QVERIFY2(broken.contains(QStringLiteral("does not match its contents")), qPrintable(broken));
    QCOMPARE(checked.size(), 2);
    QCOMPARE(checked.last().first().toBool(), false);
    // The broken entry is selected, and the table shows the edited operator.
    QCOMPARE(m_table->currentIndex().row(), 2);
    QCOMPARE(m_table->model()->index(2, AuditLogModel::OperatorColumn).data().toString(),
             QStringLiteral("mallory"));
}

void TestAuditView::verifyChainNamesTheEntryAfterADeletion()
{
    {
        RawSqlite raw(m_path);
        QCOMPARE(raw.exec(QStringLiteral("DELETE FROM audit_log WHERE seq = 2")), QString());
    }
    const QString broken = clickVerify();
    QVERIFY2(broken.contains(QStringLiteral("BROKEN at entry 3: entry 2 is missing")), qPrintable(broken));
    QCOMPARE(m_table->model()->rowCount(), 4);
    QCOMPARE(m_table->currentIndex().row(), 1);
}

void TestAuditView::verifyChainSeesEntriesAddedSinceOpening()
{
    QCOMPARE(appendEntries(*m_store, 2, false, 5), QString());
    const QString intact = clickVerify();
    QVERIFY2(intact.contains(QStringLiteral("intact: 7 entries")), qPrintable(intact));
    QCOMPARE(m_table->model()->rowCount(), 7);
}

void TestAuditView::unreadableLogIsSaidSo()
{
    {
        RawSqlite raw(m_path);
        QCOMPARE(raw.exec(QStringLiteral("ALTER TABLE audit_log RENAME TO audit_log_gone")), QString());
    }
    const QString status = clickVerify();
    QVERIFY2(status.contains(QStringLiteral("Could not verify the audit chain")), qPrintable(status));
    QVERIFY(!status.contains(QStringLiteral("intact")));
}

QTEST_MAIN(TestAuditView)
#include "tst_auditview.moc"
