// The console as a support agent uses it, on the demo data: find the March incident, read
// its two refunds, follow the repeated intent, and find the unknown one in the queue.

#include "escalationqueuepane.h"
#include "import/importjob.h"
#include "import/transcriptimporter.h"
#include "itemmodels/escalationqueuemodel.h"
#include "itemmodels/ticketqueuemodel.h"
#include "itemmodels/transcriptmodel.h"
#include "mainwindow.h"
#include "outcomebadge.h"
#include "store/storefactory.h"
#include "support/testmacros.h"
#include "ticketqueuepane.h"
#include "ticketview.h"
#include "toolcallcard.h"

#include <QAction>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QScreen>
#include <QSignalSpy>
#include <QSplitter>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

using namespace verity;

class TestIncidentGui : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void searchOpensTheIncidentTicket();
    void repeatedIntentLinksBothRefunds();
    void unknownRefundWaitsInTheEscalationQueue();
    void filtersNarrowTheQueue();
    void keyboardMovesThroughTickets();
    void transcriptTextIsPlainText();
    void importReportsRejectedLinesWithTheirNumbers();
    void layoutIsRememberedBetweenRuns();

private:
    void searchFor(const QString &text);
    ToolCallCard *card(const QString &callId) const;

    QTemporaryDir m_dir;
    QString m_dbPath;
    std::unique_ptr<Store> m_store;
    std::unique_ptr<MainWindow> m_window;
};

void TestIncidentGui::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    m_dbPath = m_dir.filePath(QStringLiteral("demo.sqlite"));
    auto store = openStore(m_dbPath);
    QVERIFY_OK(store);
    const ToolRegistry registry = ToolRegistry::builtIn();
    TranscriptImporter importer(**store, registry);
    const ImportReport report = importer.importFile(demoDataResource());
    QVERIFY2(report.clean(), qPrintable(report.summary()));
}

void TestIncidentGui::init()
{
    auto store = openStore(m_dbPath);
    QVERIFY(store.ok());
    m_store = std::move(*store);
    m_window = std::make_unique<MainWindow>(*m_store, m_dbPath, RegistrySource{});
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
}

void TestIncidentGui::cleanup()
{
    m_window.reset();
    m_store.reset();
}

void TestIncidentGui::searchFor(const QString &text)
{
    QLineEdit *search = m_window->queuePane()->searchBox();
    search->clear();
    QTest::keyClicks(search, text);
    QTest::keyClick(search, Qt::Key_Return);
}

ToolCallCard *TestIncidentGui::card(const QString &callId) const
{
    return m_window->ticketView()->card(callId);
}

void TestIncidentGui::searchOpensTheIncidentTicket()
{
    searchFor(QStringLiteral("SU-88421"));
    QCOMPARE(m_window->ticketQueue().rowCount(), 1);
    auto *title = m_window->ticketView()->findChild<QLabel *>(QStringLiteral("ticketTitle"));
    QVERIFY(title->text().contains(QStringLiteral("T-20260317-0412")));
    auto *facts = m_window->ticketView()->findChild<QLabel *>(QStringLiteral("ticketFacts"));
    QVERIFY(facts->text().contains(QStringLiteral("Ashcombe Furniture")));
    QVERIFY(facts->text().contains(QStringLiteral("$118.00")));
    QVERIFY(facts->text().contains(QStringLiteral("$189.00")));

    // The queue row says what a person must know before opening it.
    const QModelIndex outcome = m_window->ticketQueue().index(0, TicketQueueModel::OutcomeColumn);
    QCOMPARE(outcome.data().toString(), QStringLiteral("Unknown: do not retry"));
    QCOMPARE(m_window->ticketQueue().index(0, TicketQueueModel::AttentionColumn).data().toString(),
             QStringLiteral("Unknown"));
}

void TestIncidentGui::repeatedIntentLinksBothRefunds()
{
    searchFor(QStringLiteral("SU-88421"));
    QList<ToolCallCard *> refunds;
    for (ToolCallCard *candidate : m_window->ticketView()->cards()) {
        if (candidate->findChild<QLabel *>(QStringLiteral("toolName"))->accessibleName() == u"issue_refund")
            refunds << candidate;
    }
    QCOMPARE(refunds.size(), 2);
    ToolCallCard *first = card(QStringLiteral("c3"));
    ToolCallCard *second = card(QStringLiteral("c4"));
    QVERIFY(first && second);
    QCOMPARE(first->badge()->text(), QStringLiteral("Unknown: do not retry"));
    QCOMPARE(second->badge()->text(), QStringLiteral("Performed"));
    QTRY_VERIFY(first->findChild<QLabel *>(QStringLiteral("unknownNotice"))->isVisible());

    // Both carry the repeat mark, and the key that ties them is the same. The second is the
    // model's own retry after the unknown: a retry no counter saw.
    QVERIFY(first->findChild<QLabel *>(QStringLiteral("repeatNotice"))
                    ->text()
                    .startsWith(QStringLiteral("Repeated intent")));
    QCOMPARE(second->findChild<QLabel *>(QStringLiteral("repeatNotice"))->text(),
             QStringLiteral(
                     "Retry after an error: repeats call c3 (no earlier call with this key is known to have "
                     "taken effect). Same intent key as call c3."));
    const QString key = first->findChild<QLineEdit *>(QStringLiteral("intentKey"))->text();
    QCOMPARE(key.size(), 64);
    QCOMPARE(second->findChild<QLineEdit *>(QStringLiteral("intentKey"))->text(), key);

    auto *link = first->findChild<QPushButton *>(QStringLiteral("showRepeat_c4"));
    QVERIFY(link);
    QTRY_VERIFY(link->isVisible() && link->height() > 0); // laid out, as a person would see it
    QTest::mouseClick(link, Qt::LeftButton);
    QVERIFY(second->isHighlighted());
    QVERIFY(!first->isHighlighted());
    auto *back = second->findChild<QPushButton *>(QStringLiteral("showRepeat_c3"));
    QTRY_VERIFY(back->isVisible() && back->height() > 0);
    QTest::mouseClick(back, Qt::LeftButton);
    QVERIFY(first->isHighlighted());
}

void TestIncidentGui::unknownRefundWaitsInTheEscalationQueue()
{
    QCOMPARE(m_window->escalationCountText(), QStringLiteral("15 unknown outcomes waiting"));
    QVERIFY(m_window->escalationPane()->headline().startsWith(QStringLiteral("15 unknown outcomes waiting")));

    QTableView *table = m_window->escalationPane()->table();
    const QAbstractItemModel *model = table->model();
    int row = -1;
    for (int r = 0; r < model->rowCount(); ++r) {
        if (model->index(r, EscalationQueueModel::TicketColumn).data().toString() == u"T-20260317-0412")
            row = r;
    }
    QCOMPARE(row, 0); // the oldest unknown of all
    QCOMPARE(model->index(row, EscalationQueueModel::ToolColumn).data().toString(),
             QStringLiteral("issue_refund"));
    QCOMPARE(model->index(row, EscalationQueueModel::AmountColumn).data().toString(),
             QStringLiteral("$118.00"));

    // Opening it from the queue shows the very call, marked.
    const QRect cell = table->visualRect(model->index(row, EscalationQueueModel::TicketColumn));
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center());
    QCOMPARE(m_window->transcript().detail()->row.extId, QStringLiteral("T-20260317-0412"));
    QVERIFY(card(QStringLiteral("c3"))->isHighlighted());
    // Only the unknown call waits; the performed repeat does not.
    QVERIFY(m_window->transcript()
                    .data(m_window->transcript().index(
                                  *m_window->transcript().rowOfCall(QStringLiteral("c4")), 0),
                          TranscriptModel::EscalationIdRole)
                    .isNull());
}

void TestIncidentGui::filtersNarrowTheQueue()
{
    const struct
    {
        TicketFilter filter;
        const char *button;
    } filters[] = {{TicketFilter::NeedsAttention, "Needs attention"},
                   {TicketFilter::Unknown, "Unknown"},
                   {TicketFilter::RepeatedIntent, "Repeated intent"},
                   {TicketFilter::All, "All"}};
    auto *count = m_window->queuePane()->findChild<QLabel *>(QStringLiteral("ticketCount"));
    for (const auto &choice : filters) {
        QToolButton *button = nullptr;
        for (QToolButton *candidate : m_window->queuePane()->findChildren<QToolButton *>()) {
            if (candidate->text() == QLatin1String(choice.button))
                button = candidate;
        }
        QVERIFY2(button, choice.button);
        QTest::mouseClick(button, Qt::LeftButton);
        TicketQuery query;
        query.filter = choice.filter;
        const qint64 expected = *m_store->countTickets(query);
        QCOMPARE(m_window->ticketQueue().rowCount(), int(expected));
        QCOMPARE(count->text(), QStringLiteral("%1 tickets").arg(expected));
    }
    TicketQuery repeated;
    repeated.filter = TicketFilter::RepeatedIntent;
    QVERIFY(*m_store->countTickets(repeated) >= 5); // the five incident tickets at least
}

void TestIncidentGui::keyboardMovesThroughTickets()
{
    QTableView *table = m_window->queuePane()->table();
    table->setFocus();
    // Home selects the first row and opens it (focus alone opens nothing).
    QTest::keyClick(table, Qt::Key_Home);
    const qint64 first = m_window->transcript().ticketId();
    QVERIFY(first != 0);
    QTest::keyClick(table, Qt::Key_Down);
    const qint64 second = m_window->transcript().ticketId();
    QVERIFY(second != 0 && second != first);
    QTest::keyClick(table, Qt::Key_Up);
    QCOMPARE(m_window->transcript().ticketId(), first);

    // Ctrl+F reaches the search box from anywhere.
    QTest::keyClick(m_window.get(), Qt::Key_F, Qt::ControlModifier);
    QVERIFY(m_window->queuePane()->searchBox()->hasFocus());
}

void TestIncidentGui::transcriptTextIsPlainText()
{
    // One customer quoted the listing with markup in it; it must show as typed.
    for (int row = 0; row < m_window->ticketQueue().rowCount(); ++row) {
        m_window->openTicket(
                m_window->ticketQueue().index(row, 0).data(TicketQueueModel::TicketIdRole).toLongLong());
        for (QLabel *text : m_window->ticketView()->findChildren<QLabel *>(QStringLiteral("messageText"))) {
            if (text->text().contains(QStringLiteral("<b>"))) {
                QCOMPARE(text->textFormat(), Qt::PlainText);
                QVERIFY(text->text().contains(QStringLiteral("<b>100% wool?</b>")));
                return;
            }
        }
    }
    QFAIL("the demo's message with markup in it was not found");
}

void TestIncidentGui::importReportsRejectedLinesWithTheirNumbers()
{
    const QString file = m_dir.filePath(QStringLiteral("bad.jsonl"));
    QFile out(file);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(
            R"({"type":"ticket_opened","ticket":"T-GUI-1","at":"2026-04-10T10:00:00Z","order":{"id":"SU-90001","items":[]},"seller":{"id":"gui-seller","name":"GUI Seller"}})"
            "\n"
            R"({"type":"message","ticket":"T-GUI-1","at":"yesterday","from":"customer","text":"hello"})"
            "\n");
    out.close();

    m_window->setFileChooser([file](QWidget *) { return QStringList{file}; });
    QSignalSpy finished(m_window.get(), &MainWindow::importFinished);
    m_window->findChild<QAction *>(QStringLiteral("importAction"))->trigger();
    QVERIFY(finished.wait(10000));

    auto *result = m_window->findChild<QMessageBox *>(QStringLiteral("importResult"));
    QVERIFY(result);
    QVERIFY(result->isVisible());
    QVERIFY2(result->detailedText().contains(file + QStringLiteral(":2: field \"at\"")),
             qPrintable(result->detailedText()));
    result->close();

    // The good line is in, and the queue shows it without a restart.
    searchFor(QStringLiteral("T-GUI-1"));
    QCOMPARE(m_window->ticketQueue().rowCount(), 1);
}

void TestIncidentGui::layoutIsRememberedBetweenRuns()
{
    auto *splitter = m_window->findChild<QSplitter *>(QStringLiteral("mainSplitter"));
    const QRect screen = m_window->screen()->availableGeometry();
    m_window->resize(screen.width() - 100, screen.height() - 120);
    splitter->setSizes({300, screen.width() - 400});
    const QList<int> sizes = splitter->sizes();
    const QSize size = m_window->size();
    m_window->close();
    m_window.reset();

    m_window = std::make_unique<MainWindow>(*m_store, m_dbPath, RegistrySource{});
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    QCOMPARE(m_window->size(), size);
    QCOMPARE(m_window->findChild<QSplitter *>(QStringLiteral("mainSplitter"))->sizes(), sizes);

    // A size saved on a larger screen is brought within this one: nothing is cut off.
    m_window->resize(screen.width() + 500, screen.height() + 300);
    m_window->close();
    m_window.reset();
    m_window = std::make_unique<MainWindow>(*m_store, m_dbPath, RegistrySource{});
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    QVERIFY2(m_window->width() <= screen.width() && m_window->height() <= screen.height(),
             qPrintable(QStringLiteral("%1x%2 on %3x%4")
                                .arg(m_window->width())
                                .arg(m_window->height())
                                .arg(screen.width())
                                .arg(screen.height())));
}

QTEST_MAIN(TestIncidentGui)
#include "tst_incidentgui.moc"
